// Who may run which git command on which repository, for git over HTTP (api/git-http.ts) and over
// SSH (src/ssh/): the original's Gitlab::GitAccess and GitAccessWiki, in their order — the
// transport being allowed (enabled_git_access_protocol), the SSH key meeting the key restrictions,
// the account (blocked, terms), the command, what the credentials allow, the project (hidden as not
// found when unreadable), then reading or pushing. Push rules per ref are decided later, in
// receive-pack's pre-receive hook (services/push/check-push.ts), for user pushes; a deploy key that
// may push skips them, as the original's skip_authorization for deploy keys.
import type { Actor } from '../../auth/actor.js'
import type { Db } from '../../db/index.js'
import type { DeployKeyRow } from '../../db/schema.js'
import { NO_PROJECT_ACCESS, projectAccessFor } from '../../finders/access.js'
import { findProjectByIdOrPath } from '../../finders/project-lookup.js'
import { canOnProject, canReadProject, type ProjectSubject } from '../../policies/project-policy.js'
import { deployKeyAccess } from '../deploy-keys/deploy-key-access.js'
import { mustAcceptTerms } from '../../auth/sessions.js'
import { getApplicationSettings } from '../settings.js'
import { keyRestrictionErrors, type SshKeyType } from '../ssh-keys/add-ssh-key.js'

/** The original's answers (Gitlab::GitAccess, GitAccessWiki), word for word: clients and people know them. */
export const GIT_ACCESS_MESSAGES = {
  projectNotFound: 'The project you were looking for could not be found.',
  download: 'You are not allowed to download code from this project.',
  push: 'You are not allowed to push code to this project.',
  deployKeyUpload: 'This deploy key does not have write access to this project.',
  tokenDownload: 'You are not allowed to download code.',
  tokenUpload: 'You are not allowed to upload code.',
  commandNotAllowed: "The command you're trying to execute is not allowed.",
  blocked: 'Your account has been blocked.',
  wikiNotFound: 'The wiki you were looking for could not be found.',
  wikiPush: "You are not allowed to write to this project's wiki.",
} as const

/** Gitlab::Auth::UserAccessDeniedReason's sentence for a user kept out by enforced terms. */
export function termsNotAccepted(username: string): string {
  return `You (@${username}) must accept the Terms of Service in order to perform this action. Please access Ingot from a web browser to accept these terms.`
}

export type GitTransport = 'http' | 'ssh'

export type GitCommand = 'git-upload-pack' | 'git-receive-pack' | 'git-upload-archive'

/** The commands each transport serves: upload-archive over SSH only, as the original. */
const COMMANDS: Record<GitTransport, readonly GitCommand[]> = {
  http: ['git-upload-pack', 'git-receive-pack'],
  ssh: ['git-upload-pack', 'git-receive-pack', 'git-upload-archive'],
}

/** The public key an SSH client authenticated with, checked against the key restrictions at each command. */
export interface SshKeyShape {
  key_type: string
  key_bits: number
}

export type GitAccessor =
  /** No credentials (HTTP only). */
  | { kind: 'anonymous' }
  /** A token of a blocked user (HTTP); an SSH key's blocked user is a `user` whose state says so. */
  | { kind: 'blocked' }
  /** `mayDownload`/`mayPush`: what the credentials allow (a token's scopes); an SSH key allows both. */
  | { kind: 'user'; actor: Actor; mayDownload: boolean; mayPush: boolean; sshKey?: SshKeyShape }
  | { kind: 'deploy_key'; deployKey: DeployKeyRow }

/** A refusal: `not_found` hides the repository (404 over HTTP), `forbidden` names what is refused (403). */
export class GitAccessDenied extends Error {
  constructor(readonly reason: 'forbidden' | 'not_found', message: string) {
    super(message)
  }
}

export interface GitAccessGranted {
  subject: ProjectSubject
  /** Whether the path named the project's wiki repository rather than its own. */
  wiki: boolean
  command: GitCommand
}

export interface GitAccessRequest {
  accessor: GitAccessor
  transport: GitTransport
  /** As the client named it; anything but a known command is refused. */
  command: unknown
  /** `<namespace>/<project>` or `<namespace>/<project>.wiki`, in any case, without `.git`. */
  fullPath: string
}

const WIKI_SUFFIX = '.wiki'

/**
 * The project a path names, and whether it names its wiki: `<full_path>.wiki` is the wiki of the
 * project at `<full_path>`, unless no project is there (then it is a project's own path).
 */
async function findRepositoryOwner(db: Db, fullPath: string) {
  if (fullPath.endsWith(WIKI_SUFFIX)) {
    const owner = await findProjectByIdOrPath(db, fullPath.slice(0, -WIKI_SUFFIX.length))
    if (owner !== null) return { found: owner, wiki: true }
  }
  return { found: await findProjectByIdOrPath(db, fullPath), wiki: false }
}

function isCommand(transport: GitTransport, command: unknown): command is GitCommand {
  return (COMMANDS[transport] as readonly unknown[]).includes(command)
}

const forbidden = (message: string) => new GitAccessDenied('forbidden', message)
const notFound = (message: string) => new GitAccessDenied('not_found', message)

/** The repository, if the accessor may run the command on it; otherwise throws GitAccessDenied. */
export async function checkGitAccess(db: Db, request: GitAccessRequest): Promise<GitAccessGranted> {
  const { accessor, transport, command } = request
  const settings = await getApplicationSettings(db)
  const only = settings.enabled_git_access_protocol
  if (only !== null && only !== transport) throw forbidden(`Git access over ${transport.toUpperCase()} is not allowed`)
  const sshKey = accessor.kind === 'deploy_key' ? accessor.deployKey : accessor.kind === 'user' ? accessor.sshKey : undefined
  if (sshKey !== undefined) {
    const [problem] = keyRestrictionErrors({ type: sshKey.key_type as SshKeyType, bits: sshKey.key_bits }, settings)
    if (problem !== undefined) throw forbidden(`Your SSH key ${problem}.`)
  }
  if (accessor.kind === 'blocked' || (accessor.kind === 'user' && accessor.actor.user.state === 'blocked')) throw forbidden(GIT_ACCESS_MESSAGES.blocked)
  const actor = accessor.kind === 'user' ? accessor.actor : null
  if (actor !== null && mustAcceptTerms(actor.user, settings)) throw forbidden(termsNotAccepted(actor.user.username))
  if (!isCommand(transport, command) || (accessor.kind === 'anonymous' && command === 'git-receive-pack')) {
    throw forbidden(GIT_ACCESS_MESSAGES.commandNotAllowed)
  }
  const push = command === 'git-receive-pack'
  if (accessor.kind === 'user') {
    if (!push && !accessor.mayDownload) throw forbidden(GIT_ACCESS_MESSAGES.tokenDownload)
    if (push && !accessor.mayPush) throw forbidden(GIT_ACCESS_MESSAGES.tokenUpload)
  }
  const { found, wiki } = await findRepositoryOwner(db, request.fullPath)
  if (found === null) throw notFound(GIT_ACCESS_MESSAGES.projectNotFound)
  if (accessor.kind === 'deploy_key') return deployKeyDecision(db, accessor.deployKey, { ...found, access: NO_PROJECT_ACCESS }, wiki, command)
  const access = actor === null
    ? NO_PROJECT_ACCESS
    : (await projectAccessFor(db, actor.user.id, [found.project.id])).get(found.project.id) ?? NO_PROJECT_ACCESS
  const subject = { ...found, access }
  // A disabled wiki is hidden like an unreadable project.
  if (!canOnProject(actor, subject, wiki ? 'read_wiki' : 'read_project')) throw notFound(wiki ? GIT_ACCESS_MESSAGES.wikiNotFound : GIT_ACCESS_MESSAGES.projectNotFound)
  if (wiki) {
    if (push && !canOnProject(actor, subject, 'create_wiki')) throw forbidden(GIT_ACCESS_MESSAGES.wikiPush)
    return { subject, wiki, command }
  }
  if (!push && !canOnProject(actor, subject, 'download_code')) throw forbidden(GIT_ACCESS_MESSAGES.download)
  if (push && !canOnProject(actor, subject, 'push_code')) throw forbidden(GIT_ACCESS_MESSAGES.push)
  return { subject, wiki, command }
}

/**
 * A deploy key reads the projects it is enabled on (and public ones, as anyone), their code and
 * their wikis; it pushes where it is enabled with can_push, never to a wiki, as the original's
 * GitAccessWiki asks a user to write one.
 */
async function deployKeyDecision(db: Db, deployKey: DeployKeyRow, subject: ProjectSubject, wiki: boolean, command: GitCommand): Promise<GitAccessGranted> {
  const { project } = subject
  const keyAccess = await deployKeyAccess(db, deployKey.id, project.id)
  const readable = keyAccess.read || canReadProject(null, project, NO_PROJECT_ACCESS)
  if (!readable || (wiki && project.wiki_enabled !== 1)) throw notFound(wiki ? GIT_ACCESS_MESSAGES.wikiNotFound : GIT_ACCESS_MESSAGES.projectNotFound)
  if (command !== 'git-receive-pack') return { subject, wiki, command }
  if (wiki) throw forbidden(GIT_ACCESS_MESSAGES.wikiPush)
  // An archived project is read-only to everyone (the policies' rule), deploy keys included.
  if (project.archived) throw forbidden(GIT_ACCESS_MESSAGES.push)
  if (!keyAccess.push) throw forbidden(GIT_ACCESS_MESSAGES.deployKeyUpload)
  return { subject, wiki, command }
}
