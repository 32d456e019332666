// The short-lived credential `git-lfs-authenticate` hands out over SSH (the original's LfsToken),
// for the LFS routes over HTTP only. Stateless: the grant (who, which project, which operation,
// until when) is sealed with the instance's secret key (common/secret-box.ts), so any web process
// checks it without a store, and nobody can make or alter one. The login beside it names its
// subject: the user's username, or `lfs+deploy-key-<id>` for a deploy key, as the original's.
import type { SecretBox } from '../../common/secret-box.js'
import { SecretBoxError } from '../../common/secret-box.js'

/** Seconds a token lives: the original's LfsToken::EXPIRY_TIME. */
export const LFS_TOKEN_TTL_S = 1800

export type LfsTokenSubject = { kind: 'user'; userId: number } | { kind: 'deploy_key'; deployKeyId: number }

export interface LfsTokenGrant {
  subject: LfsTokenSubject
  projectId: number
  /** `download` tokens read; `upload` tokens read and write (git-lfs asks for `upload` to push and lock). */
  operation: 'download' | 'upload'
}

interface SealedGrant {
  k: 'user' | 'deploy_key'
  i: number
  p: number
  o: 'download' | 'upload'
  /** Expiry, epoch ms. */
  e: number
}

const PURPOSE = 'lfs.token'

/** The login a token is presented under: what the original's LfsToken#actor_name says. */
export function lfsTokenLogin(subject: LfsTokenSubject, username: string | null): string {
  return subject.kind === 'deploy_key' ? `lfs+deploy-key-${subject.deployKeyId}` : username ?? ''
}

export function issueLfsToken(secrets: SecretBox, grant: LfsTokenGrant, now = Date.now()): string {
  const { subject } = grant
  const sealed: SealedGrant = {
    k: subject.kind,
    i: subject.kind === 'user' ? subject.userId : subject.deployKeyId,
    p: grant.projectId,
    o: grant.operation,
    e: now + LFS_TOKEN_TTL_S * 1000,
  }
  return secrets.seal(PURPOSE, JSON.stringify(sealed))
}

/** The grant a token carries while it lives; null for anything else (another secret, an altered or expired token). */
export function openLfsToken(secrets: SecretBox, token: string, now = Date.now()): LfsTokenGrant | null {
  let sealed: SealedGrant
  try {
    sealed = JSON.parse(secrets.open(PURPOSE, token)) as SealedGrant
  } catch (err) {
    if (err instanceof SecretBoxError || err instanceof SyntaxError) return null
    throw err
  }
  if (!(sealed.e > now)) return null
  const subject: LfsTokenSubject = sealed.k === 'user' ? { kind: 'user', userId: sealed.i } : { kind: 'deploy_key', deployKeyId: sealed.i }
  return { subject, projectId: sealed.p, operation: sealed.o === 'upload' ? 'upload' : 'download' }
}
