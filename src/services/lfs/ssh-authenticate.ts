// `git-lfs-authenticate <path> <download|upload>` over SSH (the original's gitlab-shell with
// /internal/lfs_authenticate): what git-lfs reads from the command's output to reach the LFS API
// over HTTP, a short-lived credential for it included. The SSH server checks the key's access to
// the project for the operation before it asks here; the LFS routes check it again on every use.
import type { AppContext } from '../../context.js'
import { findProjectByIdOrPath } from '../../finders/project-lookup.js'
import { LFS_TOKEN_TTL_S, issueLfsToken, lfsTokenLogin } from './lfs-token.js'

/** Who authenticated over SSH: a user's key or a deploy key. */
export type LfsSshSubject = { kind: 'user'; userId: number } | { kind: 'deploy_key'; deployKeyId: number }

/** Printed as JSON on the command's standard output. */
export interface LfsAuthenticateAnswer {
  header: { Authorization: string }
  /** `<project's HTTP URL>.git/info/lfs`. */
  href: string
  /** Seconds the credential lives. */
  expires_in: number
}

export async function lfsAuthenticateAnswer(
  ctx: AppContext, subject: LfsSshSubject, projectId: number, operation: 'download' | 'upload',
): Promise<LfsAuthenticateAnswer> {
  const found = await findProjectByIdOrPath(ctx.db, String(projectId))
  if (found === null) throw new Error(`git-lfs-authenticate: project ${projectId} does not exist`)
  const username = subject.kind === 'user'
    ? (await ctx.db.selectFrom('users').select('username').where('id', '=', subject.userId).executeTakeFirstOrThrow()).username
    : null
  const token = issueLfsToken(ctx.secrets, { subject, projectId, operation })
  const credentials = Buffer.from(`${lfsTokenLogin(subject, username)}:${token}`).toString('base64')
  return {
    header: { Authorization: `Basic ${credentials}` },
    href: `${ctx.config.externalUrl}/${found.namespace.full_path}/${found.project.path}.git/info/lfs`,
    expires_in: LFS_TOKEN_TTL_S,
  }
}
