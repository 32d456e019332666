// GitRepository: every read and ref update Ingot makes on one bare repository, on top of the
// long-lived cat-file readers (lookups, objects) and short git commands (log, ls-tree, refs).
// Revisions are checked with isSafeRevision before they reach git; refs move by compare-and-swap.
import { access } from 'node:fs/promises'
import { join } from 'node:path'
import { GitError, isFullObjectId, isSafeRevision, runGit, runGitBuffer, runGitLimited, searchesHistory, type LimitedOutput, type RunGitOptions } from './command.js'
import { historySearchRefused } from '../common/errors.js'
import { MAX_INSTANT, MIN_INSTANT } from '../db/values.js'
import type { CatFilePool, GitObject, ObjectInfo } from './cat-file.js'
import { BRANCH_PREFIX, TAG_PREFIX } from './ref-names.js'
import { ImmutableMemo } from './memo.js'
import { WeightedLru } from '../common/weighted-lru.js'
import { readLooseObject } from './quarantine.js'

const mergeBases = new ImmutableMemo<string | null>()

/** How many commits isAncestor follows by itself before asking git. */
const LINE_WALK_LIMIT = 100

export const NULL_OID = '0000000000000000000000000000000000000000'

export interface Signature {
  name: string
  email: string
  /** Seconds since the epoch. */
  time: number
  /** The author's or committer's zone, as git records it: `+0200`. */
  timezone: string
}

/** Read only: commits read once are shared by every caller that reads them again (readCommit). */
export interface Commit {
  readonly id: string
  readonly tree: string
  readonly parents: readonly string[]
  readonly author: Readonly<Signature>
  readonly committer: Readonly<Signature>
  readonly message: string
}

export interface TreeEntry {
  mode: string
  type: 'blob' | 'tree' | 'commit'
  id: string
  /** Full path from the root of the tree that was listed. */
  path: string
}

export interface RefInfo {
  /** `refs/heads/main`, `refs/tags/v1.0` */
  name: string
  /** What the ref points at: a commit, or for an annotated tag the tag object. */
  target: string
  targetType: ObjectInfo['type']
  /** The commit reached after peeling tags. */
  commit: string
  /** The annotation of an annotated tag; null for a lightweight one or a branch. */
  tagMessage: string | null
}

/** An ISO 8601 time with milliseconds in the signature's own zone, as the original shows commit dates. */
export function signatureTime(signature: Signature): string {
  const sign = signature.timezone.startsWith('-') ? -1 : 1
  const zone = signature.timezone.replace(/^[+-]/, '').padStart(4, '0')
  const offsetMinutes = sign * (Number(zone.slice(0, 2)) * 60 + Number(zone.slice(2, 4)))
  // A commit may carry any date (git takes what a client wrote): one beyond the years 0000–9999
  // shows as the nearest instant within them, as Date cannot write it.
  const ms = Math.min(Math.max((signature.time + offsetMinutes * 60) * 1000, MIN_INSTANT), MAX_INSTANT)
  const local = new Date(ms).toISOString().slice(0, 23)
  return `${local}${sign < 0 ? '-' : '+'}${zone.slice(0, 2)}:${zone.slice(2, 4)}`
}

function parseSignature(text: string): Signature {
  const match = /^(.*) <(.*)> (\d+) ([+-]\d{4})$/.exec(text)
  if (match === null) return { name: text, email: '', time: 0, timezone: '+0000' }
  return { name: match[1] ?? '', email: match[2] ?? '', time: Number(match[3]), timezone: match[4] ?? '+0000' }
}

/** A commit object's bytes as a Commit. */
export function parseCommit(id: string, data: Buffer): Commit {
  const text = data.toString('utf8')
  const headerEnd = text.indexOf('\n\n')
  const headers = (headerEnd === -1 ? text : text.slice(0, headerEnd)).split('\n')
  let tree = ''
  const parents: string[] = []
  let author = parseSignature('')
  let committer = parseSignature('')
  for (const line of headers) {
    const space = line.indexOf(' ')
    const key = line.slice(0, space)
    const value = line.slice(space + 1)
    if (key === 'tree') tree = value
    else if (key === 'parent') parents.push(value)
    else if (key === 'author') author = parseSignature(value)
    else if (key === 'committer') committer = parseSignature(value)
  }
  return { id, tree, parents, author, committer, message: headerEnd === -1 ? '' : text.slice(headerEnd + 2) }
}

/**
 * Commits read by their full id, by repository: a commit never changes, and pages of history and
 * the pages around them read the same commits again and again. Weighed by their message (the bulk
 * of a commit) and a fixed share for the rest.
 */
const recentCommits = new WeightedLru<Commit>(4 * 1024 * 1024, (commit) => commit.message.length + 256)
/** A commit larger than this is read again rather than kept. */
const KEPT_COMMIT_BYTES = 64 * 1024

export class GitRepository {
  constructor(readonly gitDir: string, private readonly objects: CatFilePool) {}

  run(args: readonly string[], options: Omit<RunGitOptions, 'gitDir'> = {}): Promise<string> {
    return runGit(args, { ...options, gitDir: this.gitDir })
  }

  runBuffer(args: readonly string[], options: Omit<RunGitOptions, 'gitDir'> = {}): Promise<Buffer> {
    return runGitBuffer(args, { ...options, gitDir: this.gitDir })
  }

  /** Runs git keeping at most `maxOutputBytes` of its output, flagged truncated past it. */
  runLimited(args: readonly string[], options: Omit<RunGitOptions, 'gitDir'> = {}): Promise<LimitedOutput> {
    return runGitLimited(args, { ...options, gitDir: this.gitDir })
  }

  /** The object a name reaches (`oid`, `ref^{commit}`, `rev:path`); null when missing. */
  info(name: string): Promise<ObjectInfo | null> {
    return this.objects.info(this.gitDir, name)
  }

  read(name: string): Promise<GitObject | null> {
    return this.objects.read(this.gitDir, name)
  }

  /**
   * The commit a user-given revision (branch, tag, object id) names; null when it names none. Every
   * ref or sha the API takes is resolved here, so here an expression that searches the history is
   * refused (400) before git walks it.
   */
  async resolveCommit(revision: string): Promise<string | null> {
    if (searchesHistory(revision)) throw historySearchRefused()
    if (!isSafeRevision(revision)) return null
    return (await this.info(`${revision}^{commit}`))?.oid ?? null
  }

  async readCommit(id: string): Promise<Commit | null> {
    const key = `${this.gitDir}\0${id}`
    const known = recentCommits.get(key)
    if (known !== undefined) return known
    const object = await this.read(id)
    if (object === null || object.type !== 'commit') return null
    const commit = parseCommit(object.oid, object.data)
    // Only what was named by its id: a branch or tag name moves.
    if (id === object.oid && object.data.length <= KEPT_COMMIT_BYTES) recentCommits.set(key, commit)
    return commit
  }

  /** Several commits at once, in the order asked (missing ones left out). */
  async readCommits(ids: readonly string[]): Promise<Commit[]> {
    const commits = await Promise.all(ids.map((id) => this.readCommit(id)))
    return commits.filter((commit): commit is Commit => commit !== null)
  }

  /** Whether the repository has no commit at all (an empty project). */
  async isEmpty(): Promise<boolean> {
    return (await this.run(['for-each-ref', '--count=1', '--format=%(refname)', BRANCH_PREFIX, TAG_PREFIX])).trim() === ''
  }

  /** The branch HEAD names (set even before the branch exists). */
  async headBranch(): Promise<string | null> {
    try {
      return (await this.run(['symbolic-ref', '--short', 'HEAD'])).trim() || null
    } catch (err) {
      if (err instanceof GitError) return null
      throw err
    }
  }

  /** Just the full names of the refs under the given prefixes. */
  async refNames(...prefixes: string[]): Promise<string[]> {
    return (await this.run(['for-each-ref', '--format=%(refname)', ...prefixes])).split('\n').filter((name) => name !== '')
  }

  /** Refs under the given prefixes (`refs/heads/`, `refs/tags/`), each peeled to its commit. */
  async refs(...prefixes: string[]): Promise<RefInfo[]> {
    const format = '%(refname)%00%(objectname)%00%(objecttype)%00%(*objectname)%00%(*objecttype)%00%(contents)%1e'
    const out = await this.run(['for-each-ref', `--format=${format}`, ...prefixes])
    const refs: RefInfo[] = []
    for (const record of out.split('\x1e')) {
      const line = record.replace(/^\n/, '')
      if (line === '') continue
      const [name = '', target = '', targetType = '', peeled = '', , contents = ''] = line.split('\0')
      const annotated = targetType === 'tag'
      refs.push({
        name, target, targetType: targetType as ObjectInfo['type'],
        commit: annotated ? peeled : target,
        tagMessage: annotated ? contents.replace(/\n$/, '') : null,
      })
    }
    return refs
  }

  /**
   * Moves a ref from `oldId` (NULL_OID: it must not exist) to `newId` (NULL_OID: delete it), only if
   * it still points at `oldId`; false when another write got there first.
   */
  async compareAndSwapRef(ref: string, newId: string, oldId: string): Promise<boolean> {
    try {
      if (newId === NULL_OID) await this.run(['update-ref', '-d', '--end-of-options', ref, oldId])
      else await this.run(['update-ref', '--end-of-options', ref, newId, oldId])
      return true
    } catch (err) {
      if (err instanceof GitError && /cannot lock ref|but expected|is at .* but expected|unable to resolve reference/.test(err.stderr)) return false
      throw err
    }
  }

  /**
   * Whether `ancestor` is reachable from `descendant`. `env` is a pre-receive hook's (the push's
   * objects in quarantine there).
   */
  async isAncestor(ancestor: string, descendant: string, env?: Record<string, string>): Promise<boolean> {
    if (await this.lineReaches(descendant, ancestor, env?.GIT_OBJECT_DIRECTORY)) return true
    try {
      await this.run(['merge-base', '--is-ancestor', '--end-of-options', ancestor, descendant], env === undefined ? {} : { env })
      return true
    } catch (err) {
      if (err instanceof GitError && err.exitCode === 1) return false
      throw err
    }
  }

  /**
   * Whether following single parents from `from` reaches `to` within LINE_WALK_LIMIT commits,
   * read from the quarantine directory `quarantine` (loose) or through the cat-file reader: what a
   * push of a few commits on top of a branch is, and then proof that `to` is an ancestor. False
   * means only "not shown so" (a merge, a longer or other history, a packed push): ask git. The
   * walk steps aside wherever git would see other parents than the objects say: a replacement
   * (`refs/replace/<id>`) of a commit on the way, grafts, a shallow repository.
   */
  private async lineReaches(from: string, to: string, quarantine: string | undefined): Promise<boolean> {
    if (!isFullObjectId(from) || !isFullObjectId(to)) return false
    const altered = await Promise.all(['shallow', 'info/grafts'].map((file) => access(join(this.gitDir, file)).then(() => true, () => false)))
    if (altered.includes(true)) return false
    let id = from
    for (let steps = 0; id !== to; steps++) {
      if (steps === LINE_WALK_LIMIT || await this.info(`refs/replace/${id}`) !== null) return false
      const loose = quarantine === undefined ? null : await readLooseObject(quarantine, id)
      const commit = loose === null ? await this.readCommit(id) : loose.type === 'commit' ? parseCommit(id, loose.data) : null
      if (commit === null || commit.parents.length !== 1) return false
      id = commit.parents[0]!
    }
    return true
  }

  /** The best common ancestor of the commits; null when they share none. */
  async mergeBase(...commits: string[]): Promise<string | null> {
    // Between commit ids the answer never changes (commits do not): pages showing a merge request ask it on every view.
    if (commits.every(isFullObjectId)) {
      return mergeBases.get(`${this.gitDir}\0${commits.join('\0')}`, () => this.runMergeBase(commits))
    }
    return this.runMergeBase(commits)
  }

  private async runMergeBase(commits: readonly string[]): Promise<string | null> {
    try {
      return (await this.run(['merge-base', '--end-of-options', ...commits])).trim() || null
    } catch (err) {
      if (err instanceof GitError && err.exitCode === 1) return null
      throw err
    }
  }

  /**
   * Adds the commits no commit-graph covers yet to the repository's commit-graph chain, with
   * changed-path Bloom filters: path-limited history walks read them instead of every tree.
   */
  async writeCommitGraph(): Promise<void> {
    await this.run(['commit-graph', 'write', '--reachable', '--changed-paths', '--split'], { timeoutMs: 600_000 })
  }

  /** Bytes of objects on disk (loose and packed), from `git count-objects -v` (which counts KiB). */
  async objectsSize(): Promise<number> {
    const counts = new Map((await this.run(['count-objects', '-v'])).split('\n').map((line) => {
      const [key = '', value = '0'] = line.split(': ')
      return [key, Number(value)] as const
    }))
    return ((counts.get('size') ?? 0) + (counts.get('size-pack') ?? 0)) * 1024
  }

  /** Entries of the tree at `revision` under `path` ('' for the root), recursively or one level. */
  async listTree(revision: string, path: string, recursive: boolean): Promise<TreeEntry[]> {
    const prefix = path === '' ? '' : `${path.replace(/\/+$/, '')}/`
    const args = ['ls-tree', '-z', '--full-tree', ...(recursive ? ['-r', '-t'] : []), '--end-of-options', revision]
    const out = await this.runBuffer(prefix === '' ? args : [...args, '--', prefix])
    const entries: TreeEntry[] = []
    for (const record of out.toString('utf8').split('\0')) {
      if (record === '') continue
      const tab = record.indexOf('\t')
      const [mode = '', type = '', id = ''] = record.slice(0, tab).split(' ')
      entries.push({ mode, type: type as TreeEntry['type'], id, path: record.slice(tab + 1) })
    }
    return entries
  }
}
