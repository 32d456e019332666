// Which pending job a runner gets (the original 11.5's Ci::RegisterJobService): pending CI jobs,
// oldest first, of the projects the runner serves (an instance runner: every project with shared
// runners and jobs on; a group runner: the projects of its groups and their subgroups; a project
// runner: the projects it is assigned to), whose tags the runner all has (an untagged job only for
// a runner that runs untagged jobs), of protected refs only for a `ref_protected` runner. Taking
// one is a compare-and-swap (transitions.ts startJobForRunner): a runner that loses the race tries
// its next candidate, so two runners never share a job.
import { sql } from 'kysely'
import type { AppContext } from '../../../context.js'
import type { Db } from '../../../db/index.js'
import type { CiBuildRow, CiRunnerRow } from '../../../db/schema.js'
import { parseJsonArray } from '../../../db/values.js'
import { isProtectedRef } from '../../../finders/protected-refs.js'
import { readBuildOptions } from '../build-options.js'
import { newJobToken } from '../job-token.js'
import { dropJob, startJobForRunner } from '../transitions.js'
import { dependenciesOf, type Dependency } from './dependencies.js'

/** Candidates read per query: enough that a runner almost always finds its job in the first. */
const CANDIDATES_PER_QUERY = 50

/** What the runner says it can do (`info.features` of its request). */
export type RunnerFeatures = Record<string, unknown>

export type Assignment =
  /** The job taken and the jobs whose artifacts it downloads. */
  | { taken: CiBuildRow; dependencies: Dependency[]; token: string }
  /** No job fits; `conflict` when one did but another runner took it first (the original's 409). */
  | { taken: null; conflict: boolean }

/** What choosing a job reads of it. */
type CandidateJob = Pick<CiBuildRow, 'id' | 'project_id' | 'pipeline_id' | 'stage_idx' | 'tag_list' | 'options'>

interface Candidate {
  job: CandidateJob
  ref: string
  tag: boolean
  /** The project's build_timeout. */
  buildTimeout: number
}

/**
 * The queue's state as X-GitLab-Last-Update tells the runner (the original's runner queue value):
 * it changes whenever a CI job becomes pending or stops being so, and when the runner's settings
 * change (the original ticks it on both). Read from one index.
 */
export async function queueValue(db: Db, runner: CiRunnerRow): Promise<string> {
  const row = await db.selectFrom('ci_builds')
    .select((eb) => [eb.fn.countAll<number>().as('count'), eb.fn.max('queued_at').as('latest'), eb.fn.max('id').as('newest')])
    .where('status', '=', 'pending').where('kind', '=', 'ci')
    .executeTakeFirstOrThrow()
  return `${Number(row.count)}-${Number(row.latest ?? 0)}-${Number(row.newest ?? 0)}-${runner.updated_at}`
}

/** The ids of the groups a group runner serves and of all their subgroups, as a subquery. */
function groupRunnerNamespaces(runnerId: number) {
  return sql<number>`(with recursive tree(id) as (
      select namespace_id from ci_runner_namespaces where runner_id = ${runnerId}
      union select n.id from namespaces n join tree on n.parent_id = tree.id
    ) select id from tree)`
}

/** Pending CI jobs the runner's kind may take, after `afterId`, oldest first. */
async function candidates(db: Db, runner: CiRunnerRow, afterId: number): Promise<Candidate[]> {
  const untaggedOnly = parseJsonArray(runner.tag_list).length === 0
  const rows = await db.selectFrom('ci_builds')
    .innerJoin('projects', 'projects.id', 'ci_builds.project_id')
    .innerJoin('ci_pipelines', 'ci_pipelines.id', 'ci_builds.pipeline_id')
    .select(['ci_builds.id', 'ci_builds.project_id', 'ci_builds.pipeline_id', 'ci_builds.stage_idx', 'ci_builds.tag_list', 'ci_builds.options',
      'ci_pipelines.ref as pipeline_ref', 'ci_pipelines.tag as pipeline_tag', 'projects.build_timeout'])
    .where('ci_builds.status', '=', 'pending').where('ci_builds.kind', '=', 'ci').where('ci_builds.id', '>', afterId)
    .where('projects.jobs_enabled', '=', 1)
    // A runner without tags takes untagged jobs only; the rest of the tag rule is applied below.
    .$if(untaggedOnly, (q) => q.where('ci_builds.tag_list', '=', '[]'))
    .$if(runner.runner_type === 'instance_type', (q) => q.where('projects.shared_runners_enabled', '=', 1))
    .$if(runner.runner_type === 'group_type', (q) => q.where('projects.namespace_id', 'in', groupRunnerNamespaces(runner.id)))
    .$if(runner.runner_type === 'project_type', (q) => q.where('ci_builds.project_id', 'in',
      (sub) => sub.selectFrom('ci_runner_projects').select('project_id').where('runner_id', '=', runner.id)))
    .orderBy('ci_builds.id').limit(CANDIDATES_PER_QUERY)
    .execute()
  return rows.map(({ pipeline_ref, pipeline_tag, build_timeout, ...job }) => ({ job, ref: pipeline_ref, tag: pipeline_tag === 1, buildTimeout: build_timeout }))
}

/** The original's accepting_tags?: every tag of the job is the runner's; an untagged job only for a runner that runs untagged jobs. */
function acceptsTags(runner: CiRunnerRow, runnerTags: readonly string[], job: CandidateJob): boolean {
  const jobTags = parseJsonArray(job.tag_list)
  if (jobTags.length === 0) return runner.run_untagged === 1
  return jobTags.every((tag) => runnerTags.includes(tag))
}

/** A job with report artifacts needs a runner that uploads several artifacts (the original's supported_runner?). */
function runnerSupports(job: CandidateJob, features: RunnerFeatures): boolean {
  const reports = readBuildOptions(job).artifacts?.reports ?? {}
  return Object.keys(reports).length === 0 || features.upload_multiple_artifacts === true
}

/** Seconds the job may run: the project's build_timeout, capped by the runner's maximum_timeout. */
function timeoutFor(runner: CiRunnerRow, buildTimeout: number): number {
  return runner.maximum_timeout === null ? buildTimeout : Math.min(buildTimeout, runner.maximum_timeout)
}

/**
 * Jobs that requests of this process are taking right now. Runners polling at once all read the
 * same oldest jobs; each request tries first those no other is taking, rather than queueing
 * behind another's take of the oldest to find it gone (which made a take three tries on average
 * with four runners). Other processes' takes still race, and the compare-and-swap settles them.
 */
const beingTaken = new Set<number>()

/** The job taken, 'unfit' when the runner may not take it, 'lost' when another took it first. */
async function tryCandidate(ctx: AppContext, runner: CiRunnerRow, runnerTags: readonly string[], features: RunnerFeatures, candidate: Candidate): Promise<Assignment | 'unfit' | 'lost'> {
  const { job, ref, tag, buildTimeout } = candidate
  if (!acceptsTags(runner, runnerTags, job)) return 'unfit'
  if (runner.access_level === 'ref_protected' && !await isProtectedRef(ctx.db, job.project_id, ref, tag)) return 'unfit'
  if (!runnerSupports(job, features)) {
    await dropJob(ctx, job.id, 'runner_unsupported', (current) => current.status === 'pending')
    return 'unfit'
  }
  beingTaken.add(job.id)
  try {
    const dependencies = await dependenciesOf(ctx.db, job)
    if (dependencies.some((dependency) => dependency.missing)) {
      await dropJob(ctx, job.id, 'missing_dependency_failure', (current) => current.status === 'pending')
      return 'unfit'
    }
    const { token, digest } = newJobToken()
    const taken = await startJobForRunner(ctx, job, runner.id, { tokenDigest: digest, timeout: timeoutFor(runner, buildTimeout) })
    return taken === null ? 'lost' : { taken, dependencies, token }
  } finally {
    beingTaken.delete(job.id)
  }
}

/** Gives the runner the oldest pending job it may take, or tells that none fits. */
export async function assignJob(ctx: AppContext, runner: CiRunnerRow, features: RunnerFeatures): Promise<Assignment> {
  const runnerTags = parseJsonArray(runner.tag_list)
  let conflict = false
  let afterId = 0
  for (;;) {
    const batch = await candidates(ctx.db, runner, afterId)
    afterId = batch.at(-1)?.job.id ?? afterId
    const untried = [...batch]
    while (untried.length > 0) {
      // The oldest that no other request is taking; when all are, the oldest.
      const [candidate] = untried.splice(Math.max(0, untried.findIndex(({ job }) => !beingTaken.has(job.id))), 1)
      const outcome = await tryCandidate(ctx, runner, runnerTags, features, candidate!)
      if (outcome === 'lost') conflict = true
      else if (outcome !== 'unfit') return outcome
    }
    if (batch.length < CANDIDATES_PER_QUERY) return { taken: null, conflict }
  }
}
