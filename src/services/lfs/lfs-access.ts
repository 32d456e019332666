// Who calls the LFS routes and what they may do with a project, as the original's
// GitHttpClientController and LfsRequest decide it: the credentials of git over HTTP
// (auth/git-credentials.ts: passwords, personal, impersonation and OAuth tokens, job tokens), plus
// the LFS token of `git-lfs-authenticate` (lfs-token.ts), accepted here only. Downloading needs the
// repository's read (download_code), or a deploy key enabled on the project; uploading (and
// locking) needs push (push_code), or a deploy key enabled with can_push; the project's
// lfs_enabled must be on for either.
import type { AppContext } from '../../context.js'
import type { Actor } from '../../auth/actor.js'
import { authenticateGitClient, basicCredentials, type GitClient } from '../../auth/git-credentials.js'
import { NO_PROJECT_ACCESS, projectAccessFor } from '../../finders/access.js'
import type { ProjectAndNamespace } from '../../finders/project-lookup.js'
import { canOnProject, type ProjectSubject } from '../../policies/project-policy.js'
import { deployKeyAccess } from '../deploy-keys/deploy-key-access.js'
import { lfsTokenLogin, openLfsToken } from './lfs-token.js'

export type LfsCaller =
  | { kind: 'anonymous' }
  | { kind: 'user'; actor: Actor; mayDownload: boolean; mayPush: boolean; onlyProjectId: number | null }
  | { kind: 'deploy_key'; deployKeyId: number; mayPush: boolean; onlyProjectId: number }

export type LfsAuthentication = LfsCaller | Extract<GitClient, { kind: 'refused' } | { kind: 'blocked' }>

export type LfsOperation = 'download' | 'upload'

/** The caller a request's Authorization header names; `address` is the client's, which failures count against. */
export async function authenticateLfsCaller(ctx: AppContext, authorization: string | undefined, address: string): Promise<LfsAuthentication> {
  const byToken = await callerOfLfsToken(ctx, authorization)
  if (byToken !== null) return byToken
  const client = await authenticateGitClient(ctx, authorization, address)
  return client.kind === 'user' ? { ...client, onlyProjectId: null } : client
}

/** The caller of an LFS token presented under its login; null when the credentials are no live LFS token. */
async function callerOfLfsToken(ctx: AppContext, authorization: string | undefined): Promise<LfsCaller | null> {
  const credentials = basicCredentials(authorization)
  if (credentials === null) return null
  const grant = openLfsToken(ctx.secrets, credentials.password)
  if (grant === null) return null
  const mayPush = grant.operation === 'upload'
  const { subject } = grant
  if (subject.kind === 'deploy_key') {
    if (credentials.login !== lfsTokenLogin(subject, null)) return null
    const key = await ctx.db.selectFrom('deploy_keys').select('id').where('id', '=', subject.deployKeyId).executeTakeFirst()
    return key === undefined ? null : { kind: 'deploy_key', deployKeyId: subject.deployKeyId, mayPush, onlyProjectId: grant.projectId }
  }
  const user = await ctx.db.selectFrom('users').selectAll().where('id', '=', subject.userId).executeTakeFirst()
  if (user === undefined || user.state === 'blocked' || credentials.login.toLowerCase() !== user.username_lower) return null
  return { kind: 'user', actor: { user, token: null, sudoFrom: null }, mayDownload: true, mayPush, onlyProjectId: grant.projectId }
}

/** The project as the caller sees it: their membership's access, for the policy. */
export async function lfsSubjectFor(ctx: AppContext, caller: LfsCaller, found: ProjectAndNamespace): Promise<ProjectSubject> {
  const access = caller.kind === 'user'
    ? (await projectAccessFor(ctx.db, caller.actor.user.id, [found.project.id])).get(found.project.id) ?? NO_PROJECT_ACCESS
    : NO_PROJECT_ACCESS
  return { ...found, access }
}

export function actorOf(caller: LfsCaller): Actor | null {
  return caller.kind === 'user' ? caller.actor : null
}

/**
 * What the caller may do: `allowed`; `forbidden` (403) when they see the project (it is public, or
 * they read it) but may not do this; `not_found` (404) otherwise, so that a private project stays
 * hidden. (Anonymous callers are asked for credentials before this, where that would help.)
 */
export async function lfsAccess(
  ctx: AppContext, caller: LfsCaller, subject: ProjectSubject, operation: LfsOperation,
): Promise<'allowed' | 'forbidden' | 'not_found'> {
  const { project } = subject
  const scoped = caller.kind === 'anonymous' || caller.onlyProjectId === null || caller.onlyProjectId === project.id
  const keyAccess = caller.kind === 'deploy_key' && scoped ? await deployKeyAccess(ctx.db, caller.deployKeyId, project.id) : null
  if (project.lfs_enabled === 1 && scoped && mayDo(caller, subject, operation, keyAccess)) return 'allowed'
  const actor = actorOf(caller)
  const sees = canOnProject(actor, subject, 'read_project') || (keyAccess?.read ?? false)
  return sees ? 'forbidden' : 'not_found'
}

function mayDo(caller: LfsCaller, subject: ProjectSubject, operation: LfsOperation, keyAccess: { read: boolean; push: boolean } | null): boolean {
  switch (caller.kind) {
    case 'anonymous': return operation === 'download' && canOnProject(null, subject, 'download_code')
    case 'deploy_key': return operation === 'download' ? keyAccess?.read === true : caller.mayPush && keyAccess?.push === true
    case 'user': return operation === 'download'
      ? caller.mayDownload && canOnProject(caller.actor, subject, 'download_code')
      : caller.mayPush && canOnProject(caller.actor, subject, 'push_code')
  }
}
