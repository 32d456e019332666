// How a project's work is planned, at the original's URLs: `/milestones` (open and closed, with
// their progress), `/milestones/:iid` (its issues and merge requests), `/labels` (with their
// descriptions) and `/boards` (each board's lists as columns: open issues, an issue list per
// label, closed issues). Everything is read through the API's finders, so an issue a visitor may
// not see is in no count and no column.
import type { FastifyReply } from 'fastify'
import type { IssueView } from '../../entities/issue.js'
import { listBoards, loadBoardViews } from '../../finders/boards-finder.js'
import { findIssuePage, issuesByIds, loadIssueViews, type IssueFilters } from '../../finders/issues-finder.js'
import { listAvailableLabels } from '../../finders/labels-finder.js'
import { listMergeRequests } from '../../finders/merge-requests-finder.js'
import { listMilestones } from '../../finders/milestones-finder.js'
import { canOnProject } from '../../policies/project-policy.js'
import { html, page, type SafeHtml } from '../html.js'
import { sendNotFound, sendPage } from '../visit.js'
import { projectChrome, projectUrl, type ProjectPage, type ProjectPageRequest } from './context.js'
import { labelChips, labelsByTitle, pageLinks, projectMarkdown } from './issuables.js'

const PER_PAGE = 20
/** A board column shows this many issues; the issues page with the column's filter has them all. */
const COLUMN_LIMIT = 20

function chrome(request: ProjectPageRequest, title: string, body: SafeHtml): FastifyReply {
  const { req, reply, visit, loaded } = request
  return sendPage(reply, visit, 200, page({ title: `${title} · ${loaded.project.name}`, user: visit.session?.user ?? null, wide: true }, projectChrome(req.actor, loaded, 'issues', body)))
}

function pageOf(request: ProjectPageRequest): number {
  const asked = String((request.req.query as Record<string, unknown>).page ?? '1')
  return /^\d{1,6}$/.test(asked) && Number(asked) >= 1 ? Number(asked) : 1
}

/** Open and closed issues of a filter (what the visitor may see), for a progress count. */
async function issueCounts(request: ProjectPageRequest, filters: IssueFilters): Promise<{ opened: number; closed: number }> {
  const { req, loaded } = request
  const count = async (state: string) => (await findIssuePage(req.ingot.db, req.actor, { kind: 'project', subject: loaded }, { ...filters, state }, { orderBy: 'created_at', sort: 'desc' }, { page: 1, per_page: 1 })).total
  const [opened, closed] = await Promise.all([count('opened'), count('closed')])
  return { opened, closed }
}

function progress(counts: { opened: number; closed: number }): SafeHtml {
  const total = counts.opened + counts.closed
  const percent = total === 0 ? 0 : Math.round((counts.closed / total) * 100)
  return html`<progress max="100" value="${percent}" aria-label="Closed issues">${percent}%</progress> <span class="muted">${counts.closed} of ${total} issues closed (${percent}%)</span>`
}

async function milestonesList(request: ProjectPageRequest): Promise<FastifyReply> {
  const { req, loaded } = request
  const state = (req.query as Record<string, unknown>).state === 'closed' ? 'closed' : 'active'
  const number = pageOf(request)
  const found = await listMilestones(req.ingot.db, { type: 'project', id: loaded.project.id }, { state }, { page: number, per_page: PER_PAGE })
  const counts = await Promise.all(found.items.map((milestone) => issueCounts(request, { milestoneId: milestone.id })))
  const base = `${projectUrl(loaded)}/milestones`
  return chrome(request, 'Milestones', html`<h1>Milestones</h1>
<nav aria-label="State"><ul class="actions state-tabs"><li><a href="${base}"${state === 'active' ? html` aria-current="page"` : ''}>Open</a></li><li><a href="${base}?state=closed"${state === 'closed' ? html` aria-current="page"` : ''}>Closed</a></li></ul></nav>
${found.items.length === 0 ? html`<p class="muted">No milestones.</p>` : html`<ul class="issuable-list">${found.items.map((milestone, i) => html`<li><div><a class="title" href="${base}/${milestone.iid}">${milestone.title}</a>${milestone.due_date === null ? '' : html` <span class="muted">due ${milestone.due_date}</span>`}</div>
<div>${progress(counts[i]!)}</div></li>`)}</ul>`}
${pageLinks(base, new URLSearchParams(state === 'closed' ? { state } : {}), number, PER_PAGE, found.total)}`)
}

async function milestonePage(request: ProjectPageRequest, iid: number): Promise<FastifyReply> {
  const { req, reply, visit, loaded } = request
  const { db } = req.ingot
  const [milestone] = (await listMilestones(db, { type: 'project', id: loaded.project.id }, { iids: [iid] }, { page: 1, per_page: 1 })).items
  if (milestone === undefined) return sendNotFound(reply, visit)
  const filters = { milestoneId: milestone.id }
  const [counts, issues, mergeRequests] = await Promise.all([
    issueCounts(request, filters),
    findIssuePage(db, req.actor, { kind: 'project', subject: loaded }, filters, { orderBy: 'created_at', sort: 'desc' }, { page: 1, per_page: 100 }),
    canOnProject(req.actor, loaded, 'read_merge_request')
      ? listMergeRequests(db, req.actor, { kind: 'project', projectId: loaded.project.id }, { milestoneId: milestone.id, orderBy: 'created_at', sort: 'desc' }, { page: 1, per_page: 100 })
      : null,
  ])
  const views = await loadIssueViews(db, await issuesByIds(db, issues.items))
  return chrome(request, milestone.title, html`<h1>${milestone.title} <small class="muted">${milestone.state === 'closed' ? 'closed' : 'open'}</small></h1>
<p>${milestone.start_date === null ? '' : html`From ${milestone.start_date} `}${milestone.due_date === null ? '' : html`until ${milestone.due_date}`}</p>
<p>${progress(counts)}</p>
${milestone.description === null || milestone.description === '' ? '' : html`<div class="box"><div class="content markdown">${projectMarkdown(loaded, milestone.description)}</div></div>`}
<section aria-labelledby="milestone-issues"><h2 id="milestone-issues">Issues</h2>${issueItems(request, views)}</section>
${mergeRequests === null ? '' : html`<section aria-labelledby="milestone-mrs"><h2 id="milestone-mrs">Merge requests</h2>${mergeRequests.items.length === 0 ? html`<p class="muted">None.</p>`
    : html`<ul class="issuable-list">${mergeRequests.items.map((view) => html`<li><a href="${projectUrl(loaded)}/merge_requests/${view.mergeRequest.iid}">!${view.mergeRequest.iid} ${view.mergeRequest.title}</a> <span class="muted">${view.mergeRequest.state}</span></li>`)}</ul>`}</section>`}`)
}

function issueItems(request: ProjectPageRequest, views: readonly IssueView[]): SafeHtml {
  if (views.length === 0) return html`<p class="muted">None.</p>`
  return html`<ul class="issuable-list">${views.map((view) => html`<li><a href="${projectUrl(request.loaded)}/issues/${view.issue.iid}">#${view.issue.iid} ${view.issue.title}</a>${view.issue.state === 'closed' ? html` <span class="muted">closed</span>` : ''}</li>`)}</ul>`
}

async function labelsPage(request: ProjectPageRequest): Promise<FastifyReply> {
  const { req, loaded } = request
  const number = pageOf(request)
  const found = await listAvailableLabels(req.ingot.db, { type: 'project', id: loaded.project.id }, { page: number, per_page: PER_PAGE })
  const chips = new Map(found.items.map((label) => [label.title, label]))
  return chrome(request, 'Labels', html`<h1>Labels</h1>
${found.items.length === 0 ? html`<p class="muted">No labels.</p>` : html`<ul class="issuable-list">${found.items.map((label) => html`<li>${labelChips(loaded, 'issues', [label.title], chips)}
${label.description === null || label.description === '' ? '' : html` ${label.description}`}${label.group_id === null ? '' : html` <span class="muted">(group label)</span>`}</li>`)}</ul>`}
${pageLinks(`${projectUrl(loaded)}/labels`, new URLSearchParams(), number, PER_PAGE, found.total)}`)
}

async function boardsPage(request: ProjectPageRequest): Promise<FastifyReply> {
  const { req, loaded } = request
  const { db } = req.ingot
  const boards = await loadBoardViews(db, (await listBoards(db, { type: 'project', id: loaded.project.id }, { page: 1, per_page: 20 })).items)
  const scope = { kind: 'project' as const, subject: loaded }
  const order = { orderBy: 'created_at' as const, sort: 'desc' as const }
  // Every project has a board to show, as the original makes one on first visit.
  const shown = boards.length === 0 ? [{ name: 'Development', lists: [] as { title: string; labels: string[] }[] }]
    : boards.map((view) => ({ name: view.board.name, lists: view.lists.map((list) => ({ title: list.label.title, labels: [list.label.title] })) }))
  const sections: SafeHtml[] = []
  for (const board of shown) {
    const listLabels = board.lists.map((list) => list.title)
    const columns = [
      { title: 'Open', filters: { state: 'opened', labels: undefined } as IssueFilters, excluded: listLabels },
      ...board.lists.map((list) => ({ title: list.title, filters: { state: 'opened', labels: list.labels } as IssueFilters, excluded: [] as string[] })),
      { title: 'Closed', filters: { state: 'closed' } as IssueFilters, excluded: [] as string[] },
    ]
    const found = await Promise.all(columns.map((column) => findIssuePage(db, req.actor, scope, column.filters, order, { page: 1, per_page: COLUMN_LIMIT + 20 })))
    const views = await loadIssueViews(db, await issuesByIds(db, found.flatMap((f) => f.items)))
    const byId = new Map(views.map((view) => [view.issue.id, view]))
    const chips = await labelsByTitle(db, loaded.project.id, views.flatMap((view) => view.labels))
    sections.push(html`<section aria-label="${board.name}"><h2>${board.name}</h2><div class="board">${columns.map((column, i) => {
      // The Open column holds the open issues no list of the board takes, as the original's backlog.
      const items = found[i]!.items.map((id) => byId.get(id)!).filter((view) => view !== undefined && !view.labels.some((label) => column.excluded.includes(label))).slice(0, COLUMN_LIMIT)
      return html`<section class="box board-list" aria-label="${column.title}"><header><h3>${column.title}</h3></header><ul class="issuable-list">${items.map((view) => html`<li><a href="${projectUrl(loaded)}/issues/${view.issue.iid}">${view.issue.title}</a> <span class="muted">#${view.issue.iid}</span>${labelChips(loaded, 'issues', view.labels, chips)}</li>`)}</ul></section>`
    })}</div></section>`)
  }
  return chrome(request, 'Boards', html`<h1>Boards</h1>${sections}`)
}

export const milestonesPage: ProjectPage = async (request) => {
  const { req, reply, visit, loaded, rest } = request
  if (!canOnProject(req.actor, loaded, 'read_milestone') || rest.length > 1) return sendNotFound(reply, visit)
  if (rest.length === 0) return milestonesList(request)
  return /^\d{1,9}$/.test(rest[0]!) ? milestonePage(request, Number(rest[0])) : sendNotFound(reply, visit)
}

export const labelsListPage: ProjectPage = async (request) => {
  const { req, reply, visit, loaded, rest } = request
  if (!canOnProject(req.actor, loaded, 'read_issue') || rest.length > 0) return sendNotFound(reply, visit)
  return labelsPage(request)
}

export const boardsListPage: ProjectPage = async (request) => {
  const { req, reply, visit, loaded, rest } = request
  if (!canOnProject(req.actor, loaded, 'read_issue') || rest.length > 0) return sendNotFound(reply, visit)
  return boardsPage(request)
}
