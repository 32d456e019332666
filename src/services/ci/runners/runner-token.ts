// Runner tokens: what `POST /runners` gives a runner and every later runner request carries
// (`token`, or the RUNNER-TOKEN header newer runners add). Stored as digests only. Newer runners
// treat a token that starts with `glrt-` as an authentication token of their newer workflow, so
// neither these nor registration tokens may start with it.
import type { Db } from '../../../db/index.js'
import type { CiRunnerRow } from '../../../db/schema.js'
import { generateToken, tokenDigest } from '../../../auth/secrets.js'

/** A new runner or registration token, never one that starts with `glrt-`. */
export function newRunnerToken(): { token: string; digest: string } {
  let token = generateToken()
  while (token.startsWith('glrt-')) token = generateToken()
  return { token, digest: tokenDigest(token) }
}

/** The runner with this token, or null. */
export async function findRunnerByToken(db: Db, token: string): Promise<CiRunnerRow | null> {
  if (token === '') return null
  return (await db.selectFrom('ci_runners').selectAll().where('token_digest', '=', tokenDigest(token)).executeTakeFirst()) ?? null
}
