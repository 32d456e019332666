// The lists the pages outside a project share: projects and groups as the API's finders find them
// for the visitor (so a page lists exactly what the API would), a page of them at a time, and
// events told as sentences ("pushed to branch main at group/project"). Each list is loaded in a
// fixed number of queries whatever its length.
import type { Actor } from '../auth/actor.js'
import { paginate, type Page } from '../common/pages.js'
import type { Db } from '../db/index.js'
import type { EventRow, NamespaceRow, ProjectRow } from '../db/schema.js'
import { eventActionName, type EventView } from '../entities/event.js'
import { loadEventViews, type EventsQuery } from '../finders/events-finder.js'
import { findGroups, type GroupFilters } from '../finders/groups-finder.js'
import { findProjects, type ProjectFilters, type ProjectScope } from '../finders/projects-finder.js'
import { namespacesById, projectsById } from '../finders/rows.js'
import { html, type SafeHtml } from './html.js'
import { encodePath } from './projects/context.js'
import { timeOf, userLink } from './projects/issuables.js'

export const LIST_PER_PAGE = 20

/** `?page=N` of a list, 1 when absent or not a page number. */
export function pageNumber(query: unknown): number {
  const asked = String((query as Record<string, unknown>).page ?? '1')
  return /^\d{1,6}$/.test(asked) && Number(asked) >= 1 ? Number(asked) : 1
}

export interface ListedProject {
  project: ProjectRow
  namespace: NamespaceRow
}

/** A page of the projects the API's finder gives the visitor; `byStars` orders them most starred first (the explore page's tab). */
export async function projectPage(db: Db, actor: Actor | null, scope: ProjectScope, filters: ProjectFilters, page: number, byStars = false): Promise<Page<ListedProject>> {
  const query = await findProjects(db, actor, scope, filters)
  const ordered = byStars ? query.clearOrderBy().orderBy('projects.star_count', 'desc').orderBy('projects.id', 'desc') : query
  const found = await paginate(db, ordered, { page, per_page: LIST_PER_PAGE })
  const namespaces = await namespacesById(db, found.items.map((project) => project.namespace_id))
  return { ...found, items: found.items.flatMap((project) => {
    const namespace = namespaces.get(project.namespace_id)
    return namespace === undefined ? [] : [{ project, namespace }]
  }) }
}

export async function groupPage(db: Db, actor: Actor | null, filters: GroupFilters, page: number): Promise<Page<NamespaceRow>> {
  return paginate(db, findGroups(db, actor, filters), { page, per_page: LIST_PER_PAGE })
}

const VISIBILITY: Readonly<Record<number, string>> = { 0: 'Private', 10: 'Internal', 20: 'Public' }

export function projectList(projects: readonly ListedProject[], empty: string): SafeHtml {
  if (projects.length === 0) return html`<p class="muted">${empty}</p>`
  return html`<ul class="issuable-list project-list">${projects.map(({ project, namespace }) => html`<li><div><a class="title" href="/${encodePath(`${namespace.full_path}/${project.path}`)}">${namespace.full_name} / ${project.name}</a>
<span class="badge">${VISIBILITY[project.visibility_level] ?? ''}</span>${project.archived === 1 ? html` <span class="badge">Archived</span>` : ''}</div>
${project.description === null || project.description === '' ? '' : html`<div>${project.description}</div>`}
<div class="muted">${project.star_count} ${project.star_count === 1 ? 'star' : 'stars'} · updated ${timeOf(project.last_activity_at)}</div></li>`)}</ul>`
}

export function groupList(groups: readonly NamespaceRow[], empty: string): SafeHtml {
  if (groups.length === 0) return html`<p class="muted">${empty}</p>`
  return html`<ul class="issuable-list group-list">${groups.map((group) => html`<li><div><a class="title" href="/groups/${encodePath(group.full_path)}">${group.full_name}</a>
<span class="badge">${VISIBILITY[group.visibility_level] ?? ''}</span></div>
${group.description === null || group.description === '' ? '' : html`<div>${group.description}</div>`}</li>`)}</ul>`
}

export async function eventPage(db: Db, query: EventsQuery, page: number): Promise<{ views: EventView[]; projects: Map<number, ListedProject>; total: number }> {
  const found = await paginate(db, query, { page, per_page: LIST_PER_PAGE })
  const [views, projects] = await Promise.all([
    loadEventViews(db, found.items as EventRow[]),
    projectsById(db, [...new Set(found.items.flatMap((event) => (event.project_id === null ? [] : [event.project_id])))]),
  ])
  const namespaces = await namespacesById(db, [...projects.values()].map((project) => project.namespace_id))
  const listed = new Map<number, ListedProject>()
  for (const project of projects.values()) {
    const namespace = namespaces.get(project.namespace_id)
    if (namespace !== undefined) listed.set(project.id, { project, namespace })
  }
  return { views, projects: listed, total: found.total }
}

const TARGET_WORDS: Readonly<Record<string, string>> = { Issue: 'issue', MergeRequest: 'merge request', Milestone: 'milestone', Note: 'a comment on', WikiPage: 'wiki page' }

/** Where an event's target is shown: an issue, a merge request, a comment's noteable. */
function targetLink(view: EventView, base: string): SafeHtml {
  const { event, note } = view
  const title = event.target_title ?? ''
  switch (event.target_type) {
    case 'Issue': return html`<a href="${base}/issues/${event.target_iid ?? ''}">#${event.target_iid} ${title}</a>`
    case 'MergeRequest': return html`<a href="${base}/merge_requests/${event.target_iid ?? ''}">!${event.target_iid} ${title}</a>`
    case 'Milestone': return html`<a href="${base}/milestones/${event.target_iid ?? ''}">%${title}</a>`
    case 'Note': {
      if (note === null) return html`${title}`
      const kind = note.note.noteable_type
      const page = kind === 'Issue' ? 'issues' : kind === 'MergeRequest' ? 'merge_requests' : null
      return page === null || note.noteableIid === null ? html`${title}`
        : html`<a href="${base}/${page}/${note.noteableIid}#note_${note.note.id}">${kind === 'Issue' ? '#' : '!'}${note.noteableIid}</a>`
    }
    default: return html`${title}`
  }
}

/** Events as sentences, newest first as found: who did what to which target, in which project, when. */
export function eventList(views: readonly EventView[], projects: ReadonlyMap<number, ListedProject>, empty: string): SafeHtml {
  if (views.length === 0) return html`<p class="muted">${empty}</p>`
  return html`<ol class="issuable-list events">${views.map((view) => {
    const { event, pushData } = view
    const listed = event.project_id === null ? undefined : projects.get(event.project_id)
    const base = listed === undefined ? '' : `/${encodePath(`${listed.namespace.full_path}/${listed.project.path}`)}`
    const where = listed === undefined ? '' : html` at <a href="${base}">${listed.namespace.full_name} / ${listed.project.name}</a>`
    const action = eventActionName(event, pushData)
    const what = event.action === 'pushed' && pushData !== null
      ? html`${pushData.ref_type} <span class="mono">${pushData.ref}</span>${pushData.commit_title === null ? '' : html` <span class="muted">· ${pushData.commit_title}</span>`}`
      : event.target_type === null ? '' : html`${event.target_type === 'Note' ? '' : TARGET_WORDS[event.target_type] ?? ''} ${targetLink(view, base)}`
    return html`<li>${userLink(view.author)} ${action} ${what}${where} <span class="muted">${timeOf(event.created_at)}</span></li>`
  })}</ol>`
}
