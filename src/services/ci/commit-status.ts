// Commit statuses set by outside systems (the original 11.5's GenericCommitStatus and its
// CommitStatuses API): a row of ci_builds of kind `external` in a pipeline of the commit and ref —
// the newest such pipeline, else a new one of source `external`. A status of the same name that is
// still pending or running is moved on; otherwise a new status replaces the previous one (kept,
// marked retried). The move and the pipeline's new status are one transaction under the
// pipeline's row lock (transitions.ts, status.ts). External statuses are never handed to a runner:
// whatever picks pending jobs for runners must take rows of kind `ci` only.
import type { AppContext } from '../../context.js'
import type { Commit } from '../../git/repository.js'
import { lockRow } from '../../db/locks.js'
import type { CiBuildRow, CiStatus } from '../../db/schema.js'
import { nextPipelineIid } from './pipeline-iids.js'
import { processPipeline } from './status.js'
import { afterProcessing } from './transitions.js'

export const COMMIT_STATUS_STATES = ['pending', 'running', 'success', 'failed', 'canceled'] as const
export type CommitStatusState = typeof COMMIT_STATUS_STATES[number]

/** The original's stage of external statuses, after every stage of a CI file. */
const EXTERNAL_STAGE = 'external'
const EXTERNAL_STAGE_IDX = 1_000_000

export interface CommitStatusInput {
  projectId: number
  userId: number
  commit: Commit
  ref: string
  tag: boolean
  name: string
  state: CommitStatusState
  targetUrl: string | null
  description: string | null
  coverage: number | null
}

export type CommitStatusResult = { ok: true; status: CiBuildRow } | { ok: false; message: string }

/** The original's state machine events of a commit status: the event a state is reached by, and the states it leaves. */
const EVENTS: Record<CommitStatusState, { event: string; from: readonly CiStatus[] }> = {
  pending: { event: 'enqueue', from: ['created', 'skipped', 'manual', 'scheduled'] },
  running: { event: 'run', from: ['pending'] },
  success: { event: 'success', from: ['created', 'pending', 'running'] },
  failed: { event: 'drop', from: ['created', 'pending', 'running'] },
  canceled: { event: 'cancel', from: ['created', 'pending', 'running', 'scheduled'] },
}

function invalidTransition(event: string, from: CiStatus): string {
  return `Cannot transition status via :${event} from :${from} (Reason(s): Status cannot transition via "${event}")`
}

/** Creates or moves the commit status; the row as it is after, or the original's message for an invalid transition. */
export async function setCommitStatus(ctx: AppContext, input: CommitStatusInput): Promise<CommitStatusResult> {
  const outcome = await ctx.db.transaction().execute(async (trx) => {
    const now = Date.now()
    let pipeline = await trx.selectFrom('ci_pipelines').select('id')
      .where('project_id', '=', input.projectId).where('sha', '=', input.commit.id).where('ref', '=', input.ref)
      .orderBy('id', 'desc').executeTakeFirst()
    if (pipeline === undefined) {
      pipeline = await trx.insertInto('ci_pipelines').values({
        project_id: input.projectId, iid: await nextPipelineIid(trx, input.projectId), ref: input.ref, tag: input.tag ? 1 : 0, sha: input.commit.id, before_sha: null,
        source: 'external', status: 'created', user_id: input.userId, committed_at: input.commit.committer.time * 1000,
        created_at: now, updated_at: now,
      }).returning('id').executeTakeFirstOrThrow()
    }
    const pipelineId = pipeline.id
    await lockRow(trx, 'ci_pipelines', pipelineId)
    const existing = await trx.selectFrom('ci_builds').selectAll()
      .where('pipeline_id', '=', pipelineId).where('kind', '=', 'external').where('name', '=', input.name)
      .where('retried', '=', 0).orderBy('id', 'desc').executeTakeFirst()
    const current: CiStatus = existing !== undefined && (existing.status === 'pending' || existing.status === 'running') ? existing.status : 'created'
    // `running` on a new status enqueues it first, as the original does (enqueue, then run!).
    const from: CiStatus = input.state === 'running' && current === 'created' ? 'pending' : current
    const { event, from: allowed } = EVENTS[input.state]
    if (!allowed.includes(from)) return { ok: false as const, message: invalidTransition(event, from) }
    const finished = input.state !== 'pending' && input.state !== 'running'
    const fields = {
      status: input.state,
      ...(input.targetUrl === null ? {} : { target_url: input.targetUrl }),
      ...(input.description === null ? {} : { description: input.description }),
      ...(input.coverage === null ? {} : { coverage: input.coverage }),
      ...(input.state === 'running' ? { started_at: now } : {}),
      ...(finished ? { finished_at: now } : {}),
      failure_reason: input.state === 'failed' ? 'api_failure' : null,
      updated_at: now,
    }
    let id: number
    if (current !== 'created') {
      id = existing!.id
      await trx.updateTable('ci_builds').set(fields).where('id', '=', id).execute()
    } else {
      if (existing !== undefined) await trx.updateTable('ci_builds').set({ retried: 1, updated_at: now }).where('id', '=', existing.id).execute()
      const row = await trx.insertInto('ci_builds').values({
        pipeline_id: pipelineId, project_id: input.projectId, name: input.name, stage: EXTERNAL_STAGE, stage_idx: EXTERNAL_STAGE_IDX,
        when: 'on_success', options: '{}', yaml_variables: '[]', tag_list: '[]', coverage_regex: null, coverage: null,
        user_id: input.userId, runner_id: null, token_digest: null, queued_at: now, started_at: null,
        finished_at: null, scheduled_at: null, created_at: now, kind: 'external', target_url: null, description: null,
        ...fields,
      }).returning('id').executeTakeFirstOrThrow()
      id = row.id
    }
    const processed = await processPipeline(trx, pipelineId, now)
    const status = await trx.selectFrom('ci_builds').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
    return { ok: true as const, status, processed }
  })
  if (!outcome.ok) return outcome
  await afterProcessing(ctx, outcome.processed)
  return { ok: true, status: outcome.status }
}
