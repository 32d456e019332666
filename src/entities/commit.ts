// Commit entities (spec: Commit): the commit summary every repository endpoint embeds, the list
// item with `stats` (with_stats), the detail of GET …/commits/:sha with stats, status and
// last_pipeline, and a commit's reference entry (`{type, name}`).
import { Type, type Static } from '@sinclair/typebox'
import type { CiPipelineRow } from '../db/schema.js'
import { signatureTime, type Commit } from '../git/repository.js'
import { Nullable, NullableString } from './common.js'

export const CommitBasic = Type.Object({
  id: Type.String(),
  short_id: Type.String(),
  title: Type.String(),
  created_at: Type.String(),
  parent_ids: Type.Array(Type.String()),
  message: Type.String(),
  author_name: Type.String(),
  author_email: Type.String(),
  authored_date: Type.String(),
  committer_name: Type.String(),
  committer_email: Type.String(),
  committed_date: Type.String(),
})
export type CommitBasicEntity = Static<typeof CommitBasic>

export const CommitStats = Type.Object({ additions: Type.Integer(), deletions: Type.Integer(), total: Type.Integer() })
export type CommitStatsEntity = Static<typeof CommitStats>

export const CommitWithStats = Type.Composite([CommitBasic, Type.Object({ stats: Type.Optional(CommitStats) })])
export type CommitWithStatsEntity = Static<typeof CommitWithStats>

export const CommitRef = Type.Object({ type: Type.Union([Type.Literal('branch'), Type.Literal('tag')]), name: Type.String() })
export type CommitRefEntity = Static<typeof CommitRef>

export const LastPipeline = Nullable(Type.Object({ id: Type.Integer(), ref: Type.String(), sha: Type.String(), status: Type.String() }))

export const CommitDetail = Type.Composite([CommitBasic, Type.Object({
  stats: Type.Optional(CommitStats),
  status: NullableString,
  last_pipeline: LastPipeline,
})])
export type CommitDetailEntity = Static<typeof CommitDetail>

/** The first line of a commit message. */
export function commitTitle(message: string): string {
  return message.split('\n', 1)[0]?.trim() ?? ''
}

export function presentCommit(commit: Commit): CommitBasicEntity {
  return {
    id: commit.id,
    short_id: commit.id.slice(0, 8),
    title: commitTitle(commit.message),
    created_at: signatureTime(commit.committer),
    parent_ids: [...commit.parents],
    message: commit.message,
    author_name: commit.author.name,
    author_email: commit.author.email,
    authored_date: signatureTime(commit.author),
    committer_name: commit.committer.name,
    committer_email: commit.committer.email,
    committed_date: signatureTime(commit.committer),
  }
}

/** A list item: the summary, with the commit's stats when they were asked for. */
export function presentCommitWithStats(commit: Commit, stats: CommitStatsEntity | null): CommitWithStatsEntity {
  return { ...presentCommit(commit), ...(stats === null ? {} : { stats }) }
}

/** The detail form: `status` and `last_pipeline` are the commit's latest pipeline's, null without one. */
export function presentCommitDetail(commit: Commit, stats: CommitStatsEntity | null, lastPipeline: CiPipelineRow | null): CommitDetailEntity {
  return {
    ...presentCommit(commit),
    ...(stats === null ? {} : { stats }),
    status: lastPipeline?.status ?? null,
    last_pipeline: lastPipeline === null ? null : { id: lastPipeline.id, ref: lastPipeline.ref, sha: lastPipeline.sha, status: lastPipeline.status },
  }
}
