// The caller of a request once credentials (and sudo) are resolved.
import type { AccessTokenRow, UserRow } from '../db/schema.js'

export type Scope = 'api' | 'read_user' | 'read_repository' | 'sudo' | 'openid'
/** The scopes of the API (the original's API_SCOPES): what personal access tokens may carry. */
export const SCOPES: readonly Scope[] = ['api', 'read_user', 'read_repository', 'sudo']
/** What an OAuth application may ask for: the API's scopes and OpenID Connect's. */
export const OAUTH_SCOPES: readonly Scope[] = [...SCOPES, 'openid']

export interface Actor {
  /** The user the request acts as: the token's owner, or the sudo target. */
  user: UserRow
  /** The token that authenticated the request; null for a password (git over HTTP with Basic auth). */
  token: AccessTokenRow | null
  /** The administrator who sent the request, when it acts as another user through sudo. */
  sudoFrom: UserRow | null
  /** The web session whose cookie authenticated the request, when one did. */
  sessionId?: number
  /** The running CI job whose token authenticated the request, when one did (auth/job-token.ts); the actor is its user. */
  job?: { id: number; projectId: number; pipelineId: number }
}

export function isAdmin(actor: Actor | null): boolean {
  return actor !== null && actor.user.admin === 1
}
