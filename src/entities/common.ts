// What every entity needs: the caller and the base URLs, and schema helpers that keep response
// schemas fast to serialize (type arrays, not anyOf, for nullable values).
import { Type, type Static, type TSchema } from '@sinclair/typebox'
import type { Actor } from '../auth/actor.js'

export interface PresentContext {
  /** INGOT_EXTERNAL_URL without a trailing slash. */
  baseUrl: string
  /** `${baseUrl}/api/v4`. */
  apiUrl: string
  /** What SSH clone URLs put before `<full_path>.git` (sshUrlPrefix()); null while git over SSH is off. */
  sshUrlPrefix: string | null
  /** Whether Git LFS is on for the instance (INGOT_LFS_ENABLED): projects show lfs_enabled false while it is off. */
  lfsEnabled: boolean
  actor: Actor | null
}

/** How the instance serves repositories, as the entities show it. */
export interface RepositoryTransports {
  sshUrlPrefix: string | null
  lfsEnabled: boolean
}

export function presentContext(baseUrl: string, actor: Actor | null, transports: RepositoryTransports): PresentContext {
  return { baseUrl, apiUrl: `${baseUrl}/api/v4`, ...transports, actor }
}

/**
 * The start of SSH clone URLs: `git@host:` on port 22, `ssh://git@host:port/` on any other; null
 * when no SSH server runs (port 0) or the enabled_git_access_protocol setting allows HTTP only.
 */
export function sshUrlPrefix(ssh: { sshPort: number; sshHost: string }, enabledGitAccessProtocol: 'ssh' | 'http' | null): string | null {
  if (ssh.sshPort === 0 || enabledGitAccessProtocol === 'http') return null
  const host = ssh.sshHost.includes(':') ? `[${ssh.sshHost}]` : ssh.sshHost
  return ssh.sshPort === 22 ? `git@${host}:` : `ssh://git@${host}:${ssh.sshPort}/`
}

/** ssh_url_to_repo of a repository's full path (`ns/project`, `ns/project.wiki`); empty while SSH is off, as the API shows it. */
export function sshUrlToRepo(ctx: PresentContext, fullPath: string): string {
  return ctx.sshUrlPrefix === null ? '' : `${ctx.sshUrlPrefix}${fullPath}.git`
}

/** A nullable primitive or object schema, as `type: [T, 'null']`. */
export function Nullable<T extends TSchema>(schema: T) {
  const type = (schema as { type?: unknown }).type
  if (typeof type !== 'string') throw new Error('Nullable() needs a schema with a single type')
  return Type.Unsafe<Static<T> | null>({ ...schema, type: [type, 'null'] })
}

export const IsoDateTime = Type.String({ description: 'ISO 8601 UTC with milliseconds' })
export const NullableString = Nullable(Type.String())
export const NullableInteger = Nullable(Type.Integer())
export const NullableDateTime = Nullable(IsoDateTime)
/** `YYYY-MM-DD` or null. */
export const NullableDate = Nullable(Type.String({ description: 'YYYY-MM-DD' }))

export const CustomAttribute = Type.Object({ key: Type.String(), value: Type.String() })
export type CustomAttributeEntity = Static<typeof CustomAttribute>

/** `{"message": …}`: the body of 202 answers and of errors in response schemas. */
export const MessageBody = Type.Object({ message: Type.Unknown() })
