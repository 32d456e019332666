// Branch entity (spec: Branch): a branch with its tip commit and what the protection rules and the
// default branch make of it, `can_push` for the caller. Lists build every view in one batch.
import { Type, type Static } from '@sinclair/typebox'
import type { Commit } from '../git/repository.js'
import { CommitBasic, presentCommit } from './commit.js'

export const Branch = Type.Object({
  name: Type.String(),
  commit: CommitBasic,
  merged: Type.Boolean(),
  protected: Type.Boolean(),
  developers_can_push: Type.Boolean(),
  developers_can_merge: Type.Boolean(),
  can_push: Type.Boolean(),
  default: Type.Boolean(),
})
export type BranchEntity = Static<typeof Branch>

export interface BranchView {
  name: string
  commit: Commit
  /** Merged into the default branch without being at its tip. */
  merged: boolean
  protected: boolean
  developersCanPush: boolean
  developersCanMerge: boolean
  canPush: boolean
  isDefault: boolean
}

export function presentBranch(view: BranchView): BranchEntity {
  return {
    name: view.name,
    commit: presentCommit(view.commit),
    merged: view.merged,
    protected: view.protected,
    developers_can_push: view.developersCanPush,
    developers_can_merge: view.developersCanMerge,
    can_push: view.canPush,
    default: view.isDefault,
  }
}
