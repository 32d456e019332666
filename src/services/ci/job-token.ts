// Job tokens: given to a runner with the job it takes (jobs/request) and kept as a digest on the
// job's row. The runner acts for the job with it (PUT, trace, artifacts), the job's script clones
// with it; it is good only while the job runs, so it dies when the job ends.
import type { Db } from '../../db/index.js'
import type { CiBuildRow } from '../../db/schema.js'
import { generateToken, tokenDigest } from '../../auth/secrets.js'

export function newJobToken(): { token: string; digest: string } {
  const token = generateToken()
  return { token, digest: tokenDigest(token) }
}

/** The job this token was given for, whatever its status now, or null. */
export async function findJobByToken(db: Db, token: string): Promise<CiBuildRow | null> {
  if (token === '') return null
  return (await db.selectFrom('ci_builds').selectAll().where('token_digest', '=', tokenDigest(token)).executeTakeFirst()) ?? null
}

/** The CI job (not an external commit status) with this id, or null. */
export async function findCiJob(db: Db, jobId: number): Promise<CiBuildRow | null> {
  return (await db.selectFrom('ci_builds').selectAll().where('id', '=', jobId).where('kind', '=', 'ci').executeTakeFirst()) ?? null
}
