// Tags of a project's repository (spec: Tags and releases): the list ordered by name (version
// order, as the original sorts tag names) or by the date of the tagged commit, one tag by name, and
// the views with their releases. A list costs one `for-each-ref`, one pipelined cat-file batch for
// the page's commits and one query for the page's releases; one tag, a few cat-file reads.
import type { AppContext } from '../context.js'
import type { ReleaseRow } from '../db/schema.js'
import type { TagView } from '../entities/tag.js'
import { findTagRef, tagRefs, type TagRef } from '../git/tags.js'
import { pageParams, type Page, type PaginationQuery } from '../common/pages.js'

type Ctx = Pick<AppContext, 'db' | 'repositories'>

export type TagOrder = 'name' | 'updated'

/**
 * Version order of tag names, as the original's VersionSorter: runs of digits compare as numbers,
 * runs of letters (with a leading '-') as text, numbers after text, and a name that goes on with
 * text after another ends sorts before it (`1.0-rc1` < `1.0` < `1.0.1`).
 */
export function compareVersions(a: string, b: string): number {
  const pa = versionParts(a)
  const pb = versionParts(b)
  const shared = Math.min(pa.length, pb.length)
  for (let i = 0; i < shared; i += 1) {
    const x = pa[i]!
    const y = pb[i]!
    if (typeof x === 'number' && typeof y === 'number') {
      if (x !== y) return x < y ? -1 : 1
    } else if (typeof x === 'string' && typeof y === 'string') {
      if (x !== y) return x < y ? -1 : 1
    } else {
      return typeof x === 'number' ? 1 : -1
    }
  }
  if (pa.length !== pb.length) {
    const next = pa.length > pb.length ? pa[shared] : pb[shared]
    const longerIsLater = typeof next === 'number'
    return (pa.length > pb.length) === longerIsLater ? 1 : -1
  }
  return a < b ? -1 : a > b ? 1 : 0
}

function versionParts(name: string): (number | string)[] {
  const parts: (number | string)[] = []
  for (const match of name.matchAll(/(\d+)|(-?[A-Za-z]+|-)/g)) {
    parts.push(match[1] !== undefined ? Number(match[1]) : match[2]!)
  }
  return parts
}

export function sortTags(tags: TagRef[], orderBy: TagOrder, sort: 'asc' | 'desc'): TagRef[] {
  const direction = sort === 'asc' ? 1 : -1
  const byName = (a: TagRef, b: TagRef) => compareVersions(a.name, b.name)
  const compare = orderBy === 'name'
    ? byName
    : (a: TagRef, b: TagRef) => (a.committedAt - b.committedAt) || byName(a, b)
  return [...tags].sort((a, b) => direction * compare(a, b))
}

/** Views of tags: their commits through the cat-file reader, their releases in one query. */
export async function tagViews(ctx: Ctx, projectId: number, tags: readonly TagRef[]): Promise<TagView[]> {
  if (tags.length === 0) return []
  const repo = ctx.repositories.open(projectId)
  const commitIds = tags.map((tag) => tag.commitId).filter((id): id is string => id !== null)
  const [commits, releases] = await Promise.all([
    repo.readCommits(commitIds),
    ctx.db.selectFrom('releases').selectAll().where('project_id', '=', projectId)
      .where('tag', 'in', tags.map((tag) => tag.name)).execute(),
  ])
  const commitsById = new Map(commits.map((commit) => [commit.id, commit]))
  const releasesByTag = new Map<string, ReleaseRow>(releases.map((release) => [release.tag, release]))
  return tags.map((tag) => ({
    name: tag.name,
    message: tag.message,
    target: tag.target,
    commit: tag.commitId === null ? null : commitsById.get(tag.commitId) ?? null,
    release: releasesByTag.get(tag.name) ?? null,
  }))
}

export interface TagListOptions {
  orderBy: TagOrder
  sort: 'asc' | 'desc'
}

export async function listTags(ctx: Ctx, projectId: number, options: TagListOptions, pagination: PaginationQuery): Promise<Page<TagView>> {
  const repo = ctx.repositories.open(projectId)
  const tags = sortTags(await tagRefs(repo), options.orderBy, options.sort)
  const { page, perPage } = pageParams(pagination)
  const items = await tagViews(ctx, projectId, tags.slice((page - 1) * perPage, page * perPage))
  return { items, total: tags.length, page, perPage }
}

export async function findTag(ctx: Ctx, projectId: number, name: string): Promise<TagView | null> {
  const tag = await findTagRef(ctx.repositories.open(projectId), name)
  return tag === null ? null : (await tagViews(ctx, projectId, [tag]))[0] ?? null
}
