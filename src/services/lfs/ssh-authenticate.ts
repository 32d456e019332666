// `git-lfs-authenticate <path> <download|upload>` over SSH (the original's gitlab-shell with
// /internal/lfs_authenticate): what git-lfs reads from the command's output to reach the LFS API
// over HTTP, a short-lived credential for it included. The SSH server checks the key's access to
// the project for the operation before it asks here.
import type { AppContext } from '../../context.js'

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
  _ctx: AppContext, _subject: LfsSshSubject, _projectId: number, _operation: 'download' | 'upload',
): Promise<LfsAuthenticateAnswer> {
  // Seam for issue 17: the LFS slice builds the credential and its check on the HTTP side.
  throw new Error('git-lfs-authenticate is not built yet')
}
