// Tag and release entities (spec: Tag and release): `message` is null for a lightweight tag,
// `target` the tag object for an annotated one and the commit for a lightweight one; `release`
// the tag's release notes or null.
import { Type, type Static } from '@sinclair/typebox'
import type { ReleaseRow } from '../db/schema.js'
import type { Commit } from '../git/repository.js'
import { CommitBasic, presentCommit } from './commit.js'
import { Nullable, NullableString } from './common.js'

export const Release = Type.Object({
  tag_name: Type.String(),
  description: Type.String(),
})
export type ReleaseEntity = Static<typeof Release>

export const Tag = Type.Object({
  name: Type.String(),
  message: NullableString,
  target: Type.String(),
  // Null only for a tag of a tree or blob, which no commit stands behind.
  commit: Nullable(CommitBasic),
  release: Nullable(Release),
})
export type TagEntity = Static<typeof Tag>

export interface TagView {
  name: string
  /** The annotation; null for a lightweight tag. */
  message: string | null
  /** What the ref points at: the tag object, or the commit of a lightweight tag. */
  target: string
  commit: Commit | null
  release: ReleaseRow | null
}

export function presentRelease(release: ReleaseRow): ReleaseEntity {
  return { tag_name: release.tag, description: release.description }
}

export function presentTag(view: TagView): TagEntity {
  return {
    name: view.name,
    message: view.message,
    target: view.target,
    commit: view.commit === null ? null : presentCommit(view.commit),
    release: view.release === null ? null : presentRelease(view.release),
  }
}
