// What a CI job with an environment does when it succeeds, as the original 11.5's
// CreateDeploymentService: a job that starts the environment (action start, the default) makes it
// available, sets its URL when the job names one, and records a deployment numbered per project;
// a job that stops it (action stop) marks it stopped.
import type { Db } from '../../db/index.js'
import type { CiBuildRow } from '../../db/schema.js'
import { nextInternalId } from '../issuables/internal-ids.js'
import { readBuildOptions } from './build-options.js'
import { ensureEnvironment, environmentErrors } from './environments.js'

/** Called in the transaction that ended the job successfully: its deployment, or its environment stopped. */
export async function recordJobDeployment(trx: Db, job: CiBuildRow, now: number): Promise<void> {
  // A commit status (kind external) has no build options.
  const target = job.kind === 'ci' ? readBuildOptions(job).environment : null
  if (target === null) return
  const environment = await ensureEnvironment(trx, job.project_id, target.name, now)
  if (environment === null) return
  if (target.action === 'stop') {
    await trx.updateTable('environments').set({ state: 'stopped', updated_at: now }).where('id', '=', environment.id).execute()
    return
  }
  const url = target.url !== null && environmentErrors({ external_url: target.url }) === null ? target.url : environment.external_url
  await trx.updateTable('environments').set({ state: 'available', external_url: url, updated_at: now }).where('id', '=', environment.id).execute()
  const pipeline = await trx.selectFrom('ci_pipelines').select(['ref', 'tag', 'sha']).where('id', '=', job.pipeline_id).executeTakeFirstOrThrow()
  const iid = await nextInternalId(trx, { type: 'project', id: job.project_id }, 'deployments')
  await trx.insertInto('deployments').values({
    project_id: job.project_id, iid, environment_id: environment.id, ref: pipeline.ref, tag: pipeline.tag, sha: pipeline.sha,
    user_id: job.user_id, deployable_id: job.id, on_stop: target.onStop, created_at: now, updated_at: now,
  }).execute()
}
