// Who last changed each line of a file at a commit: `git blame --porcelain`, read into runs of
// consecutive lines from the same commit, each with that commit's id, summary, author and time.
// Kept per (repository, commit, path): the answer never changes. Files are blamed only up to
// BLAME_MAX_BYTES of output; a larger answer is refused rather than cut.
import { isFullObjectId } from './command.js'
import { ImmutableMemo } from './memo.js'
import type { GitRepository } from './repository.js'

export interface BlameCommit {
  id: string
  summary: string
  author: string
  /** Epoch seconds of the authoring. */
  authorTime: number
}

export interface BlameRun {
  commit: BlameCommit
  /** The file's line number (from 1) of the run's first line. */
  firstLine: number
  /** The lines' text, without their line ends. */
  lines: string[]
}

/** What `git blame --porcelain` may print before the file counts as too large to blame here. */
export const BLAME_MAX_BYTES = 8 * 1024 * 1024

const runs = new ImmutableMemo<BlameRun[] | null>(256)

/** The file's lines in runs by commit; null when the blame is larger than BLAME_MAX_BYTES. `commit` must be a full id. */
export function blameFile(repo: GitRepository, commit: string, path: string): Promise<BlameRun[] | null> {
  // git blame takes no --end-of-options (2.39); a full id cannot be read as an option.
  if (!isFullObjectId(commit)) throw new Error(`blameFile needs a full commit id, not ${commit}`)
  return runs.get(`${repo.gitDir}\0${commit}\0${path}`, async () => {
    const out = await repo.runLimited(['blame', '--porcelain', commit, '--', path], { maxOutputBytes: BLAME_MAX_BYTES })
    return out.truncated ? null : parsePorcelain(out.stdout.toString('utf8'))
  })
}

const HEADER = /^([0-9a-f]{40}) \d+ (\d+)(?: \d+)?$/

/** `<sha> <orig> <final> [<count>]`, the commit's fields the first time it appears, then `\t<line>`. */
export function parsePorcelain(text: string): BlameRun[] {
  const commits = new Map<string, BlameCommit>()
  const result: BlameRun[] = []
  let current: BlameCommit | null = null
  let lineNumber = 0
  for (const line of text.split('\n')) {
    const header = HEADER.exec(line)
    if (header !== null) {
      const id = header[1]!
      lineNumber = Number(header[2])
      current = commits.get(id) ?? { id, summary: '', author: '', authorTime: 0 }
      commits.set(id, current)
      continue
    }
    if (current === null) continue
    if (line.startsWith('\t')) {
      const last = result[result.length - 1]
      if (last !== undefined && last.commit === current && last.firstLine + last.lines.length === lineNumber) last.lines.push(line.slice(1))
      else result.push({ commit: current, firstLine: lineNumber, lines: [line.slice(1)] })
    } else if (line.startsWith('author ')) current.author = line.slice('author '.length)
    else if (line.startsWith('author-time ')) current.authorTime = Number(line.slice('author-time '.length))
    else if (line.startsWith('summary ')) current.summary = line.slice('summary '.length)
  }
  return result
}
