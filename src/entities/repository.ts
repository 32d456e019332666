// Repository entities (spec: Repository tree entry, Compare result, Contributor, Diff entry) and the
// blob info of GET …/repository/blobs/:sha.
import { Type, type Static } from '@sinclair/typebox'
import type { Comparison } from '../git/compare.js'
import type { Contributor as GitContributor } from '../git/contributors.js'
import type { DiffEntry as GitDiffEntry } from '../git/diff.js'
import type { TreeEntry as GitTreeEntry } from '../git/repository.js'
import { CommitBasic, presentCommit } from './commit.js'
import { Nullable } from './common.js'

export const TreeEntry = Type.Object({
  id: Type.String(),
  name: Type.String(),
  // Submodules are listed too, as `commit`, as the original lists them.
  type: Type.Union([Type.Literal('tree'), Type.Literal('blob'), Type.Literal('commit')]),
  path: Type.String(),
  mode: Type.String(),
})
export type TreeEntryEntity = Static<typeof TreeEntry>

export const BlobInfo = Type.Object({
  size: Type.Integer(),
  encoding: Type.Literal('base64'),
  content: Type.String(),
  sha: Type.String(),
})
export type BlobInfoEntity = Static<typeof BlobInfo>

export const DiffEntry = Type.Object({
  old_path: Type.String(),
  new_path: Type.String(),
  a_mode: Type.String(),
  b_mode: Type.String(),
  new_file: Type.Boolean(),
  renamed_file: Type.Boolean(),
  deleted_file: Type.Boolean(),
  diff: Type.String(),
  too_large: Type.Boolean({ description: "The file's diff is 100 KB or more and left out (diff is empty)" }),
  collapsed: Type.Boolean({ description: "The file's diff is collapsed (diff is empty); the API shows diffs expanded" }),
})
export type DiffEntryEntity = Static<typeof DiffEntry>

export const CompareResult = Type.Object({
  commit: Nullable(CommitBasic),
  commits: Type.Array(CommitBasic),
  diffs: Type.Array(DiffEntry),
  compare_timeout: Type.Boolean(),
  compare_same_ref: Type.Boolean(),
})
export type CompareResultEntity = Static<typeof CompareResult>

export const Contributor = Type.Object({
  name: Type.String(),
  email: Type.String(),
  commits: Type.Integer(),
  additions: Type.Integer(),
  deletions: Type.Integer(),
})
export type ContributorEntity = Static<typeof Contributor>

export function presentTreeEntry(entry: GitTreeEntry): TreeEntryEntity {
  const slash = entry.path.lastIndexOf('/')
  return { id: entry.id, name: entry.path.slice(slash + 1), type: entry.type, path: entry.path, mode: entry.mode }
}

export function presentBlobInfo(blob: { oid: string; size: number; data: Buffer }): BlobInfoEntity {
  return { size: blob.size, encoding: 'base64', content: blob.data.toString('base64'), sha: blob.oid }
}

export function presentDiff(diff: GitDiffEntry): DiffEntryEntity {
  return {
    old_path: diff.old_path, new_path: diff.new_path, a_mode: diff.a_mode, b_mode: diff.b_mode,
    new_file: diff.new_file, renamed_file: diff.renamed_file, deleted_file: diff.deleted_file, diff: diff.diff,
    too_large: diff.too_large, collapsed: diff.collapsed,
  }
}

/** `commit` is the newest of the compared commits (the last), null when there are none. */
export function presentCompare(comparison: Comparison): CompareResultEntity {
  const commits = comparison.commits.map(presentCommit)
  return {
    commit: commits.at(-1) ?? null,
    commits,
    diffs: comparison.diffs.map(presentDiff),
    compare_timeout: comparison.overflow,
    compare_same_ref: comparison.same,
  }
}

export function presentContributor(contributor: GitContributor): ContributorEntity {
  return {
    name: contributor.name, email: contributor.email, commits: contributor.commits,
    additions: contributor.additions, deletions: contributor.deletions,
  }
}
