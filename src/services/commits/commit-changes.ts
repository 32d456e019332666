// One commit of file actions on a branch (spec: Commits `actions[]`, Repository files): the one
// write path of the commits and files APIs. Actions are checked against the tip the commit builds
// on, the commit is written without a work tree (git/write.ts), and the branch moves through the
// push rules and a compare-and-swap (push/move-refs.ts), so a concurrent write is refused, never lost.
import type { Actor } from '../../auth/actor.js'
import type { AppContext } from '../../context.js'
import type { ProjectSubject } from '../../policies/project-policy.js'
import { NULL_OID, type GitRepository } from '../../git/repository.js'
import { writeCommit, type Identity, type TreeChange } from '../../git/write.js'
import { lastCommitForPath } from '../../git/log.js'
import { findBranchTip } from '../../git/branches.js'
import { BRANCH_PREFIX } from '../../git/ref-names.js'
import { badRequest } from '../../common/errors.js'
import { isCreatableRefName, moveRef } from '../push/move-refs.js'

export interface CommitAction {
  action: 'create' | 'delete' | 'move' | 'update' | 'chmod'
  file_path: string
  previous_path?: string
  content?: string
  encoding?: 'text' | 'base64'
  last_commit_id?: string
  execute_filemode?: boolean
}

export interface CommitChangesRequest {
  branch: string
  startBranch?: string
  message: string
  actions: CommitAction[]
  authorName?: string
  authorEmail?: string
  /**
   * Refuse a commit that changes nothing (the files API's "same content" case); the commits API
   * writes such a commit as the original does.
   */
  refuseEmptyCommit?: boolean
}

export const FILE_EXISTS = 'A file with this name already exists'
export const FILE_MISSING = "A file with this name doesn't exist"
export const DIRECTORY_EXISTS = 'A directory with this name already exists'
export const FILE_CHANGED = 'You are attempting to update a file that has changed since you started editing it.'
export const SAME_CONTENT = 'You are attempting to update a file with the same content'
const DIRECTORY_TRAVERSAL = 'Path cannot include directory traversal'

/** The original's answer when the branch moved between reading its tip and moving it. */
export const branchMovedMessage = (branch: string) => `Could not update branch ${branch}. Please refresh and try again.`

/**
 * A file path as a commit may write it: leading slashes dropped (as the original does); refused when
 * empty, with a `..` (directory traversal), `.` or empty segment, a `.git` segment (git would drop
 * it), a leading `-`, or a control character.
 */
export function cleanFilePath(raw: string): { path: string } | { error: string } {
  const path = raw.replace(/^\/+/, '')
  if (path === '') return { error: 'You must provide a file path' }
  const segments = path.split('/')
  if (segments.includes('..')) return { error: DIRECTORY_TRAVERSAL }
  // eslint-disable-next-line no-control-regex
  const invalid = /[\x00-\x1f\x7f]/.test(path) || path.startsWith('-')
    || segments.some((segment) => segment === '' || segment === '.' || segment.toLowerCase() === '.git')
  return invalid ? { error: `The file path \`${raw}\` is not valid` } : { path }
}

/** What a path holds while the actions apply: a file's source, or nothing (removed). */
interface PendingFile {
  /** The path in the parent commit whose blob (when no content) and mode this file keeps. */
  origin: string | null
  content?: Buffer
  executable?: boolean
}

type Kind = 'file' | 'directory' | 'submodule' | null

/**
 * The tree of the parent commit with the actions applied so far, so each action sees the earlier
 * ones (a move then a create at the old path, a create then an update).
 */
class PendingTree {
  readonly files = new Map<string, PendingFile | null>()
  private readonly directories = new Set<string>()

  constructor(private readonly repo: GitRepository, private readonly parent: string | null) {}

  async kindOf(path: string): Promise<Kind> {
    const pending = this.files.get(path)
    if (pending !== undefined) return pending === null ? null : 'file'
    if (this.directories.has(path)) return 'directory'
    if (this.parent === null) return null
    const info = await this.repo.info(`${this.parent}:${path}`)
    if (info === null) return null
    return info.type === 'blob' ? 'file' : info.type === 'tree' ? 'directory' : info.type === 'commit' ? 'submodule' : null
  }

  /** Why a file cannot be created at `path`; null when it can. */
  async blockerOfNewFile(path: string): Promise<string | null> {
    const kind = await this.kindOf(path)
    if (kind === 'file' || kind === 'submodule') return FILE_EXISTS
    if (kind === 'directory') return DIRECTORY_EXISTS
    const segments = path.split('/')
    for (let i = 1; i < segments.length; i += 1) {
      const directory = segments.slice(0, i).join('/')
      const above = await this.kindOf(directory)
      if (above === 'file' || above === 'submodule') return `A file with the name \`${directory}\` already exists, so it cannot be a directory`
      if (above === 'directory') break
    }
    return null
  }

  /** The file at `path` as it stands (a file of the parent when no action touched it yet). */
  current(path: string): PendingFile {
    return this.files.get(path) ?? { origin: path }
  }

  put(path: string, file: PendingFile | null): void {
    this.files.set(path, file)
    if (file === null) return
    const segments = path.split('/')
    for (let i = 1; i < segments.length; i += 1) this.directories.add(segments.slice(0, i).join('/'))
  }

  /** The changes for writeCommit: removals first, so a file may take the place of a removed one. */
  changes(): TreeChange[] {
    const removals: TreeChange[] = []
    const writes: TreeChange[] = []
    for (const [path, file] of this.files) {
      if (file === null) {
        removals.push({ path, remove: true })
        continue
      }
      writes.push({
        path,
        ...(file.origin === null ? {} : { fromPath: file.origin }),
        ...(file.content === undefined ? {} : { content: file.content }),
        ...(file.executable === undefined ? {} : { executable: file.executable }),
      })
    }
    return [...removals, ...writes]
  }
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

function decodeContent(action: CommitAction): Buffer | undefined {
  if (action.content === undefined) return undefined
  if (action.encoding !== 'base64') return Buffer.from(action.content, 'utf8')
  const compact = action.content.replace(/\s+/g, '')
  if (!BASE64.test(compact) || compact.length % 4 === 1) throw badRequest(`The content of \`${action.file_path}\` is not valid Base64`)
  return Buffer.from(compact, 'base64')
}

/** An identity git accepts: without the characters it strips, falling back when nothing is left. */
function identity(name: string | undefined, email: string | undefined, fallback: Identity): Identity {
  const clean = (value: string | undefined) => value?.replace(/[<>\0\r\n]/g, '').trim()
  const givenName = clean(name)
  // git refuses a name made only of the punctuation it trims.
  const usableName = givenName !== undefined && !/^[\s.,:;"'\\]*$/.test(givenName) ? givenName : fallback.name
  return { name: usableName, email: clean(email) || fallback.email }
}

/** Applies one action to the pending tree; 400 with the reason when the commit cannot be made. */
async function applyAction(repo: GitRepository, tree: PendingTree, parent: string | null, action: CommitAction): Promise<void> {
  const target = cleanFilePath(action.file_path)
  if ('error' in target) throw badRequest(target.error)
  const path = target.path
  const content = decodeContent(action)

  // The file whose last commit `last_commit_id` names: a move's source, otherwise the path itself.
  let checked = path
  switch (action.action) {
    case 'create': {
      const blocker = await tree.blockerOfNewFile(path)
      if (blocker !== null) throw badRequest(blocker)
      tree.put(path, { origin: null, content: content ?? Buffer.alloc(0) })
      break
    }
    case 'update': {
      if (await tree.kindOf(path) !== 'file') throw badRequest(FILE_MISSING)
      if (content === undefined) throw badRequest(`You must provide content for \`${action.file_path}\``)
      tree.put(path, { ...tree.current(path), content })
      break
    }
    case 'delete': {
      if (await tree.kindOf(path) !== 'file') throw badRequest(FILE_MISSING)
      tree.put(path, null)
      break
    }
    case 'chmod': {
      if (await tree.kindOf(path) !== 'file') throw badRequest(FILE_MISSING)
      if (action.execute_filemode === undefined) throw badRequest('execute_filemode is missing')
      tree.put(path, { ...tree.current(path), executable: action.execute_filemode })
      break
    }
    case 'move': {
      if (action.previous_path === undefined) throw badRequest(`You must supply the original file path when moving file \`${action.file_path}\``)
      const source = cleanFilePath(action.previous_path)
      if ('error' in source) throw badRequest(source.error)
      if (await tree.kindOf(source.path) !== 'file') throw badRequest(FILE_MISSING)
      checked = source.path
      if (source.path !== path) {
        const moved = tree.current(source.path)
        tree.put(source.path, null)
        const blocker = await tree.blockerOfNewFile(path)
        if (blocker !== null) throw badRequest(blocker)
        tree.put(path, content === undefined ? moved : { ...moved, content })
      } else if (content !== undefined) {
        tree.put(path, { ...tree.current(path), content })
      }
      break
    }
  }
  if (action.last_commit_id !== undefined && action.action !== 'create' && parent !== null) {
    const last = await lastCommitForPath(repo, parent, checked)
    if (last !== null && last !== action.last_commit_id.toLowerCase()) throw badRequest(FILE_CHANGED)
  }
}

/** Where the commit goes and what it builds on; 400 when the branches do not allow it. */
async function baseOf(repo: GitRepository, request: CommitChangesRequest): Promise<{ tip: string | null; parent: string | null }> {
  const { branch } = request
  const tip = (await findBranchTip(repo, branch))?.commitId ?? null
  const start = request.startBranch ?? branch
  if (tip !== null) {
    if (start !== branch) throw badRequest(`A branch called '${branch}' already exists. Switch to that branch in order to make changes`)
    return { tip, parent: tip }
  }
  if (!isCreatableRefName(branch)) throw badRequest(`Something went wrong when we tried to create '${branch}' for you: Branch name is invalid`)
  if (await repo.isEmpty()) return { tip: null, parent: null }
  const startTip = (await findBranchTip(repo, start))?.commitId ?? null
  if (startTip === null) throw badRequest('You can only create or edit files when you are on a branch')
  return { tip: null, parent: startTip }
}

/** Writes the actions as one commit on `branch`, moves it there and returns its id; 400 with the reason when it cannot. */
export async function commitChanges(ctx: AppContext, subject: ProjectSubject, actor: Actor, request: CommitChangesRequest): Promise<string> {
  const repo = ctx.repositories.open(subject.project.id)
  const base = await baseOf(repo, request)
  const tree = new PendingTree(repo, base.parent)
  for (const action of request.actions) await applyAction(repo, tree, base.parent, action)

  const committer: Identity = { name: actor.user.name, email: actor.user.email }
  const commitId = await writeCommit(repo, {
    parent: base.parent,
    changes: tree.changes(),
    message: request.message,
    author: identity(request.authorName, request.authorEmail, committer),
    committer,
  })
  if (request.refuseEmptyCommit === true && base.parent !== null) {
    const [written, parent] = await Promise.all([repo.readCommit(commitId), repo.readCommit(base.parent)])
    if (written !== null && parent !== null && written.tree === parent.tree) throw badRequest(SAME_CONTENT)
  }

  const outcome = await moveRef(ctx, subject, actor, { ref: `${BRANCH_PREFIX}${request.branch}`, oldId: base.tip ?? NULL_OID, newId: commitId })
  if (outcome.status === 'refused') throw badRequest(outcome.message)
  if (outcome.status === 'stale') throw badRequest(branchMovedMessage(request.branch))
  return commitId
}
