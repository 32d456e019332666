// The labels of issues and merge requests, which the API names by title: a project's own labels
// and its groups' (the project's group and that group's ancestors). A title no label has yet is
// created on the fly as a project label, as the original does.
import { sql } from 'kysely'
import type { Db } from '../../db/index.js'
import type { IssuableType, LabelRow } from '../../db/schema.js'

/** The colour of labels created on the fly and of labels created without one. */
export const DEFAULT_LABEL_COLOR = '#428BCA'

/** Ids of the group namespaces whose labels the project can use: its group and that group's ancestors. */
export function projectGroupChain(projectId: number) {
  return sql<number>`(with recursive chain(id) as (
      select n.id from namespaces n join projects p on p.namespace_id = n.id where p.id = ${projectId} and n.kind = 'group'
      union all select n.parent_id from namespaces n join chain on n.id = chain.id where n.parent_id is not null
    ) select id from chain)`
}

/** The labels available to the project with any of the titles (project labels first on a shared title). */
export async function availableLabelsTitled(db: Db, projectId: number, titles: readonly string[]): Promise<LabelRow[]> {
  if (titles.length === 0) return []
  return db.selectFrom('labels').selectAll()
    .where('title', 'in', [...titles])
    .where((eb) => eb.or([eb('project_id', '=', projectId), eb('group_id', 'in', projectGroupChain(projectId))]))
    .orderBy(sql`case when project_id is null then 1 else 0 end`).orderBy('id')
    .execute()
}

/** "bug, ui ,bug" → ["bug", "ui"]: the titles a comma-separated `labels` parameter names. */
export function labelTitlesOf(list: string | readonly string[]): string[] {
  const parts = typeof list === 'string' ? list.split(',') : list
  return [...new Set(parts.map((title) => title.trim()).filter((title) => title !== ''))]
}

/** The labels with these titles, creating the ones the project does not have yet. */
export async function findOrCreateLabels(trx: Db, projectId: number, titles: readonly string[]): Promise<LabelRow[]> {
  const found = await availableLabelsTitled(trx, projectId, titles)
  const byTitle = new Map<string, LabelRow>()
  for (const label of found) if (!byTitle.has(label.title)) byTitle.set(label.title, label)
  const now = Date.now()
  for (const title of titles) {
    if (byTitle.has(title)) continue
    const created = await trx.insertInto('labels')
      .values({ project_id: projectId, group_id: null, title, color: DEFAULT_LABEL_COLOR, description: null, priority: null, created_at: now, updated_at: now })
      .returningAll().executeTakeFirstOrThrow()
    byTitle.set(title, created)
  }
  return titles.flatMap((title) => byTitle.get(title) ?? [])
}

export interface LabelChange {
  /** The labels the target carried before. */
  before: LabelRow[]
  added: LabelRow[]
  removed: LabelRow[]
}

/** Makes the target carry exactly these labels; says which were added and removed (for system notes). */
export async function replaceLabels(
  trx: Db, target: { type: IssuableType; id: number }, labels: readonly LabelRow[],
): Promise<LabelChange> {
  const current = await trx.selectFrom('label_links').innerJoin('labels', 'labels.id', 'label_links.label_id')
    .selectAll('labels').where('target_type', '=', target.type).where('target_id', '=', target.id).execute()
  const wanted = new Set(labels.map((label) => label.id))
  const had = new Set(current.map((label) => label.id))
  const removed = current.filter((label) => !wanted.has(label.id))
  const added = labels.filter((label) => !had.has(label.id))
  if (removed.length > 0) {
    await trx.deleteFrom('label_links').where('target_type', '=', target.type).where('target_id', '=', target.id)
      .where('label_id', 'in', removed.map((label) => label.id)).execute()
  }
  if (added.length > 0) {
    await trx.insertInto('label_links')
      .values(added.map((label) => ({ label_id: label.id, target_type: target.type, target_id: target.id }))).execute()
  }
  return { before: current, added, removed }
}

/** The label titles of each target, sorted by title as the entities show them (one query for a page). */
export async function labelTitlesByTarget(db: Db, type: IssuableType, ids: readonly number[]): Promise<Map<number, string[]>> {
  const result = new Map<number, string[]>()
  if (ids.length === 0) return result
  const rows = await db.selectFrom('label_links').innerJoin('labels', 'labels.id', 'label_links.label_id')
    .select(['label_links.target_id', 'labels.title'])
    .where('label_links.target_type', '=', type).where('label_links.target_id', 'in', [...ids])
    .execute()
  for (const row of rows) {
    const titles = result.get(row.target_id) ?? []
    titles.push(row.title)
    result.set(row.target_id, titles)
  }
  for (const titles of result.values()) titles.sort()
  return result
}

/** The "added ~a ~b and removed ~c labels" body of a label change's system note; null for no change. */
export function labelChangeNote(change: LabelChange): string | null {
  const refs = (labels: LabelRow[]) => labels.map((label) => `~${label.id}`).join(' ')
  const parts: string[] = []
  if (change.added.length > 0) parts.push(`added ${refs(change.added)}`)
  if (change.removed.length > 0) parts.push(`removed ${refs(change.removed)}`)
  if (parts.length === 0) return null
  const count = change.added.length + change.removed.length
  return `${parts.join(' and ')} ${count === 1 ? 'label' : 'labels'}`
}
