// Repository archives streamed straight from `git archive` (spec: Repository, archive): tar, tar.gz
// and zip from git itself (its built-in gzip, in the same process, is faster than a gzip beside it),
// tar.bz2 through the bzip2 program. Nothing is written to disk and the first bytes leave as soon
// as git produces them.
import { spawn } from 'node:child_process'
import { PassThrough, type Readable } from 'node:stream'
import { GIT_ENV, findProgram, spawnGit } from './command.js'
import { ownedOutput } from './blob.js'
import type { GitRepository } from './repository.js'

export type ArchiveExtension = 'tar.gz' | 'tar.bz2' | 'tar' | 'zip'

/**
 * The archive a requested format name gives, as the original maps them: the bzip2 names to
 * tar.bz2, `tar` and `zip` to themselves, and everything else (tgz, gz, unknown names) to tar.gz.
 */
export function archiveExtension(format: string | undefined): ArchiveExtension {
  switch ((format ?? 'tar.gz').toLowerCase()) {
    case 'tar.bz2': case 'tbz': case 'tbz2': case 'tb2': case 'bz2': return 'tar.bz2'
    case 'tar': return 'tar'
    case 'zip': return 'zip'
    default: return 'tar.gz'
  }
}

/** Format names accepted as a suffix of the archive path (`…/archive.zip`). */
export const ARCHIVE_SUFFIXES = ['zip', 'tar', 'tar.gz', 'tgz', 'gz', 'tar.bz2', 'tbz', 'tbz2', 'tb2', 'bz2'] as const

/** Content types as the original's archive sender gives them. */
export function archiveContentType(extension: ArchiveExtension): string {
  return extension === 'zip' ? 'application/zip' : 'application/octet-stream'
}

/**
 * The archive's name without extension, which is also the directory its files sit under:
 * `<project path>-<ref with / as ->-<commit id>`, as the original names it.
 */
export function archivePrefix(projectPath: string, ref: string, commit: string): string {
  return `${projectPath}-${ref.replace(/\//g, '-')}-${commit}`
}

/** Where a program lives on the PATH git runs with; null when it is not installed. */
export class ArchiverMissingError extends Error {
  constructor(readonly program: string) {
    super(`the ${program} program is not installed`)
  }
}

/**
 * The archive of a commit (a resolved commit id) with its files under `prefix/`, as a stream.
 * Throws ArchiverMissingError, before anything starts, when tar.bz2 is asked and bzip2 is not on
 * `searchPath` (looked up on every request, so installing it needs no restart).
 */
export function streamArchive(
  repo: GitRepository, commit: string, prefix: string, extension: ArchiveExtension, searchPath: string = GIT_ENV.PATH ?? '',
): Readable {
  let compressor: string | null = null
  if (extension === 'tar.bz2') {
    compressor = findProgram('bzip2', searchPath)
    if (compressor === null) throw new ArchiverMissingError('bzip2')
  }
  const format = extension === 'tar.bz2' ? 'tar' : extension
  const { child, stderrText } = spawnGit(['archive', `--format=${format}`, `--prefix=${prefix}/`, '--end-of-options', commit], { gitDir: repo.gitDir })
  child.stdin.end()
  const archive = ownedOutput(child, stderrText)
  if (compressor !== null) return compressWith(archive, compressor)
  return archive
}

/** `source` through an external compressor (`<program> -c`), which ends with the result. */
function compressWith(source: Readable, program: string): Readable {
  const child = spawn(program, ['-c'], { env: GIT_ENV, stdio: ['pipe', 'pipe', 'ignore'] })
  const out = new PassThrough({ highWaterMark: 64 * 1024 })
  let sourceFailed = false
  let exited = false
  source.on('error', (err) => {
    sourceFailed = true
    out.destroy(err)
    child.kill()
  })
  child.stdin.on('error', () => {}) // the compressor died; its exit code tells
  source.pipe(child.stdin)
  child.stdout.pipe(out, { end: false })
  child.on('error', (err) => out.destroy(err))
  child.on('close', (code) => {
    exited = true
    if (code === 0 && !sourceFailed) out.end()
    else out.destroy(new Error(`${program} failed (${code ?? 'killed'})`))
  })
  out.on('close', () => {
    source.destroy()
    if (!exited) child.kill()
  })
  return out
}
