// A merge request's merge_request_diff in project.json, from the same source as the API's
// …/commits and …/changes (Ingot keeps no diff versions; it computes them from git): the commits
// from the target head it was last compared with to its head, and the files changed from their
// merge base to its head. Per merge request: one merge-base, one rev-list and the two `git diff`
// runs diffCommits makes; the commits themselves are read through the long-lived cat-file reader.
import type { AppContext } from '../../context.js'
import type { MergeRequestRow } from '../../db/schema.js'
import { diffCommits } from '../../git/diff.js'
import { commitIdsBetween } from '../../git/merge.js'
import { signatureTime, type Commit } from '../../git/repository.js'
import type { DiffRefs, JsonRecord } from './export-tree-records.js'

/** The commits a merge request's diff spans: its target's head it was compared with, their merge base, and its head. */
export async function diffRefsOf(ctx: AppContext, mr: MergeRequestRow): Promise<DiffRefs> {
  if (mr.sha === null || mr.target_sha === null) return { base_sha: null, start_sha: mr.target_sha, head_sha: mr.sha }
  const repo = ctx.repositories.open(mr.target_project_id)
  return { base_sha: await repo.mergeBase(mr.target_sha, mr.sha), start_sha: mr.target_sha, head_sha: mr.sha }
}

function diffCommitRecord(commit: Commit, order: number): JsonRecord {
  return {
    sha: commit.id,
    relative_order: order,
    authored_date: signatureTime(commit.author),
    committed_date: signatureTime(commit.committer),
    author_name: commit.author.name,
    author_email: commit.author.email,
    committer_name: commit.committer.name,
    committer_email: commit.committer.email,
    message: commit.message,
  }
}

/** The merge request's merge_request_diff record (the original's latest diff version). */
export async function mergeRequestDiffRecord(ctx: AppContext, mr: MergeRequestRow, refs: DiffRefs): Promise<JsonRecord> {
  const record: JsonRecord = {
    merge_request_id: mr.id,
    state: 'empty',
    base_commit_sha: refs.base_sha,
    head_commit_sha: refs.head_sha,
    start_commit_sha: refs.start_sha,
    real_size: null,
    commits_count: 0,
    created_at: new Date(Number(mr.created_at)).toISOString(),
    updated_at: new Date(Number(mr.updated_at)).toISOString(),
    merge_request_diff_commits: [],
    merge_request_diff_files: [],
  }
  if (mr.sha === null) return record
  const repo = ctx.repositories.open(mr.target_project_id)
  const ids = await commitIdsBetween(repo, mr.target_sha === null ? [] : [mr.target_sha], mr.sha)
  const commits = await repo.readCommits(ids)
  const collection = await diffCommits(repo, refs.base_sha, mr.sha)
  const files = collection.diffs.map((diff, order) => ({
    relative_order: order,
    new_file: diff.new_file,
    renamed_file: diff.renamed_file,
    deleted_file: diff.deleted_file,
    too_large: diff.too_large,
    a_mode: diff.a_mode,
    b_mode: diff.b_mode,
    new_path: diff.new_path,
    old_path: diff.old_path,
    binary: diff.diff.startsWith('Binary files '),
    utf8_diff: diff.diff,
  }))
  return {
    ...record,
    state: commits.length === 0 ? 'empty' : collection.overflow ? 'overflow' : 'collected',
    real_size: `${files.length}${collection.overflow ? '+' : ''}`,
    commits_count: commits.length,
    merge_request_diff_commits: commits.map(diffCommitRecord),
    merge_request_diff_files: files,
  }
}
