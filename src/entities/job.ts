// The Job entity (spec: Job) as the original 11.5's: the job, its commit, its pipeline's summary,
// its user, its runner (null until a runner takes it) and its artifacts (`artifacts_file` only
// while it has an archive; every file, the archived trace too, in `artifacts`). Everything comes
// loaded with the page (finders/jobs-finder.ts).
import { Type, type Static } from '@sinclair/typebox'
import { isoTime } from '../db/values.js'
import type { JobView } from '../finders/jobs-finder.js'
import { liveArchive } from '../finders/job-artifacts-finder.js'
import { CommitBasic, presentCommit } from './commit.js'
import { IsoDateTime, Nullable, NullableDateTime, NullableString, type PresentContext } from './common.js'
import { User, presentUser } from './user.js'
import { Runner, presentRunner } from './runner.js'

export const Job = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  stage: Type.String(),
  status: Type.String(),
  ref: Type.String(),
  tag: Type.Boolean(),
  coverage: Nullable(Type.Number()),
  created_at: IsoDateTime,
  started_at: NullableDateTime,
  finished_at: NullableDateTime,
  duration: Nullable(Type.Number()),
  artifacts_expire_at: NullableDateTime,
  artifacts_file: Type.Optional(Type.Object({ filename: Type.String(), size: Type.Integer() })),
  artifacts: Type.Array(Type.Object({ file_type: Type.String(), size: Type.Integer(), filename: Type.String(), file_format: NullableString })),
  commit: Nullable(CommitBasic),
  pipeline: Type.Object({ id: Type.Integer(), ref: Type.String(), sha: Type.String(), status: Type.String() }),
  runner: Nullable(Runner),
  user: Nullable(User),
  web_url: Type.String(),
})
export type JobEntity = Static<typeof Job>

export function jobWebUrl(projectFullPath: string, jobId: number, ctx: PresentContext): string {
  return `${ctx.baseUrl}/${projectFullPath}/-/jobs/${jobId}`
}

/** Seconds from start to finish, or to now while the job runs; null before it started. */
function durationOf(startedAt: number | null, finishedAt: number | null, now: number): number | null {
  return startedAt === null ? null : ((finishedAt ?? now) - startedAt) / 1000
}

export function presentJob({ job, pipeline, user, runner, commit, artifacts }: JobView, projectFullPath: string, ctx: PresentContext, now = Date.now()): JobEntity {
  const archive = liveArchive(artifacts, now)
  return {
    id: job.id,
    name: job.name,
    stage: job.stage,
    status: job.status,
    ref: pipeline.ref,
    tag: pipeline.tag === 1,
    coverage: job.coverage,
    created_at: isoTime(job.created_at),
    started_at: isoTime(job.started_at),
    finished_at: isoTime(job.finished_at),
    duration: durationOf(job.started_at, job.finished_at, now),
    ...(archive === null ? {} : { artifacts_file: { filename: archive.filename, size: archive.size } }),
    artifacts: artifacts.map((artifact) => ({ file_type: artifact.file_type, size: artifact.size, filename: artifact.filename, file_format: artifact.file_format })),
    artifacts_expire_at: isoTime(job.artifacts_expire_at),
    commit: commit === null ? null : presentCommit(commit),
    pipeline: { id: pipeline.id, ref: pipeline.ref, sha: pipeline.sha, status: pipeline.status },
    runner: runner === null ? null : presentRunner(runner, now),
    user: user === null ? null : presentUser(user, ctx),
    web_url: jobWebUrl(projectFullPath, job.id, ctx),
  }
}
