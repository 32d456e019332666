// The pages outside any project, at the original's URLs: `/explore/projects` (and `/starred`) and
// `/explore/groups` for everyone (what the API lists for the visitor: public ones to anonymous
// visitors, internal ones too once signed in), and the signed-in visitor's dashboard:
// `/dashboard/projects` (their projects; `/starred`), `/dashboard/groups`, `/dashboard/activity`
// (what they did), `/dashboard/issues` and `/dashboard/merge_requests` (assigned to them by
// default; `?author_username=` for those they opened). `/` is the dashboard's projects once signed in.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { mustAcceptTerms } from '../auth/sessions.js'
import { findUserEvents } from '../finders/events-finder.js'
import { findIssuePage, issuesByIds, loadIssueViews } from '../finders/issues-finder.js'
import { listMergeRequests } from '../finders/merge-requests-finder.js'
import { findUserByUsername } from '../finders/users-finder.js'
import type { ProjectFilters } from '../finders/projects-finder.js'
import { canCreateGroup } from '../policies/group-policy.js'
import { csrfField, html, page, type SafeHtml } from './html.js'
import { eventList, eventPage, groupList, groupPage, pageNumber, projectList, projectPage, LIST_PER_PAGE } from './listings.js'
import { SIGN_IN_PATH, TERMS_PATH, webUrl } from './pages.js'
import { encodePath } from './projects/context.js'
import { pageLinks, stateTabs, timeOf } from './projects/issuables.js'
import { WEB, actorOf, forSignedIn, redirect, sendPage, tokenOf, visitOf, type SignedInVisit, type Visit } from './visit.js'

type Tab = { href: string; label: string }

function tabs(list: readonly Tab[], current: string, label: string): SafeHtml {
  return html`<nav aria-label="${label}"><ul class="actions state-tabs">${list.map((tab) => html`<li><a href="${tab.href}"${tab.href === current ? html` aria-current="page"` : ''}>${tab.label}</a></li>`)}</ul></nav>`
}

const EXPLORE_TABS: readonly Tab[] = [
  { href: '/explore/projects', label: 'All projects' }, { href: '/explore/projects/starred', label: 'Most starred' }, { href: '/explore/groups', label: 'Groups' },
]

const DASHBOARD_TABS: readonly Tab[] = [
  { href: '/dashboard/projects', label: 'Your projects' }, { href: '/dashboard/projects/starred', label: 'Starred projects' },
  { href: '/dashboard/groups', label: 'Your groups' }, { href: '/dashboard/activity', label: 'Your activity' },
  { href: '/dashboard/issues', label: 'Issues' }, { href: '/dashboard/merge_requests', label: 'Merge requests' },
]

function searchValue(req: FastifyRequest): string {
  const value = (req.query as Record<string, unknown>).search
  return typeof value === 'string' ? value.trim() : ''
}

function searchForm(action: string, value: string, label: string): SafeHtml {
  return html`<form class="inline-form filters" method="get" action="${action}" role="search"><div><label for="search">${label}</label><input type="text" id="search" name="search" value="${value}"></div><button type="submit">Search</button></form>`
}

function keptQuery(req: FastifyRequest): URLSearchParams {
  const search = searchValue(req)
  return new URLSearchParams(search === '' ? {} : { search })
}

async function projectsPage(req: FastifyRequest, reply: FastifyReply, visit: Visit, options: { title: string; tabs: SafeHtml; path: string; filters: Partial<ProjectFilters>; byStars?: boolean; empty: string; newProject?: boolean }) {
  const number = pageNumber(req.query)
  const search = searchValue(req)
  const found = await projectPage(req.ingot.db, req.actor, { kind: 'all' }, {
    orderBy: 'last_activity_at', sort: 'desc', ...options.filters, ...(search === '' ? {} : { search }),
  }, number, options.byStars === true)
  return sendPage(reply, visit, 200, page({ title: options.title, user: visit.session?.user ?? null, csrfToken: visit.session === null ? undefined : tokenOf(visit), wide: true }, html`
<div class="list-header"><h1>${options.title}</h1>${options.newProject === true ? html`<a class="button" href="/projects/new">New project</a>` : ''}</div>
${options.tabs}
${searchForm(options.path, search, 'Filter by name')}
${projectList(found.items, options.empty)}
${pageLinks(options.path, keptQuery(req), number, LIST_PER_PAGE, found.total)}`))
}

async function groupsPage(req: FastifyRequest, reply: FastifyReply, visit: Visit, options: { title: string; tabs: SafeHtml; path: string; mine: boolean }) {
  const number = pageNumber(req.query)
  const search = searchValue(req)
  const found = await groupPage(req.ingot.db, req.actor, {
    orderBy: 'name', sort: 'asc', allAvailable: !options.mine, ...(search === '' ? {} : { search }),
  }, number)
  return sendPage(reply, visit, 200, page({ title: options.title, user: visit.session?.user ?? null, wide: true }, html`
<div class="list-header"><h1>${options.title}</h1>${canCreateGroup(req.actor, null) ? html`<a class="button" href="/groups/new">New group</a>` : ''}</div>
${options.tabs}
${searchForm(options.path, search, 'Filter by name')}
${groupList(found.items, options.mine ? 'You are not a member of any group.' : 'No groups.')}
${pageLinks(options.path, keptQuery(req), number, LIST_PER_PAGE, found.total)}`))
}

/** The visitor as the API reads a caller signed in by cookie, for the finders. */
function actAs(req: FastifyRequest, visit: Visit): void {
  if (visit.session !== null) req.actor = actorOf(visit as SignedInVisit)
}

/** A page anyone may see: the visitor read as the API reads them; one who must accept the terms is sent to them first. */
function forAnyone(handler: (req: FastifyRequest, reply: FastifyReply, visit: Visit) => Promise<FastifyReply>) {
  return async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const visit = await visitOf(req)
    if (visit.session !== null && mustAcceptTerms(visit.session.user, visit.settings)) return redirect(reply, visit, TERMS_PATH)
    actAs(req, visit)
    return handler(req, reply, visit)
  }
}

function forMember(handler: (req: FastifyRequest, reply: FastifyReply, visit: SignedInVisit) => Promise<FastifyReply>) {
  return forSignedIn(async (req, reply, visit) => {
    actAs(req, visit)
    return handler(req, reply, visit)
  })
}

const ISSUE_STATES = ['opened', 'closed', 'all']

/** Whose issues or merge requests a dashboard list shows: assigned to the visitor, or `?author_username=` / `?assignee_username=`. */
async function peopleFilter(req: FastifyRequest, visit: SignedInVisit): Promise<{ authorId?: number; assigneeId?: number; query: URLSearchParams }> {
  const query = req.query as Record<string, unknown>
  const named = async (name: string) => {
    const value = query[name]
    return typeof value === 'string' && value !== '' ? { value, id: (await findUserByUsername(req.ingot.db, value))?.id ?? 0 } : null
  }
  const [author, assignee] = await Promise.all([named('author_username'), named('assignee_username')])
  const kept = new URLSearchParams()
  if (author !== null) kept.set('author_username', author.value)
  if (assignee !== null) kept.set('assignee_username', assignee.value)
  if (author === null && assignee === null) return { assigneeId: visit.session.user.id, query: kept }
  return { ...(author === null ? {} : { authorId: author.id }), ...(assignee === null ? {} : { assigneeId: assignee.id }), query: kept }
}

function stateOf(req: FastifyRequest, states: readonly string[]): string {
  const value = (req.query as Record<string, unknown>).state
  return typeof value === 'string' && states.includes(value) ? value : 'opened'
}

const dashboard: FastifyPluginAsync = async (app) => {
  app.get('/', WEB, async (req, reply) => {
    const visit = await visitOf(req)
    if (visit.session === null) return redirect(reply, visit, homePageUrl(app.ingot.config.externalUrl, visit.settings.home_page_url) ?? SIGN_IN_PATH)
    if (mustAcceptTerms(visit.session.user, visit.settings)) return redirect(reply, visit, TERMS_PATH)
    actAs(req, visit)
    return yourProjects(req, reply, visit as SignedInVisit, '/dashboard/projects')
  })

  const yourProjects = (req: FastifyRequest, reply: FastifyReply, visit: SignedInVisit, path: string) => projectsPage(req, reply, visit, {
    title: 'Projects', path, tabs: html`${tabs(DASHBOARD_TABS, path, 'Dashboard')}${signOut(visit)}`, filters: { membership: true }, empty: 'You are not a member of any project yet.', newProject: true,
  })

  app.get('/dashboard/projects', WEB, forMember((req, reply, visit) => yourProjects(req, reply, visit, '/dashboard/projects')))
  app.get('/dashboard/projects/starred', WEB, forMember((req, reply, visit) => projectsPage(req, reply, visit, {
    title: 'Starred projects', path: '/dashboard/projects/starred', tabs: tabs(DASHBOARD_TABS, '/dashboard/projects/starred', 'Dashboard'), filters: { starred: true }, empty: 'You have starred no project.',
  })))
  app.get('/dashboard/groups', WEB, forMember((req, reply, visit) => groupsPage(req, reply, visit, {
    title: 'Groups', path: '/dashboard/groups', tabs: tabs(DASHBOARD_TABS, '/dashboard/groups', 'Dashboard'), mine: true,
  })))
  app.get('/dashboard/activity', WEB, forMember(async (req, reply, visit) => {
    const number = pageNumber(req.query)
    const { db } = req.ingot
    const found = await eventPage(db, await findUserEvents(db, req.actor, visit.session.user, { sort: 'desc' }), number)
    return sendPage(reply, visit, 200, page({ title: 'Activity', user: visit.session.user, wide: true }, html`
<h1>Activity</h1>
${tabs(DASHBOARD_TABS, '/dashboard/activity', 'Dashboard')}
${eventList(found.views, found.projects, 'Nothing yet.')}
${pageLinks('/dashboard/activity', new URLSearchParams(), number, LIST_PER_PAGE, found.total)}`))
  }))
  app.get('/dashboard/issues', WEB, forMember(async (req, reply, visit) => {
    const { db } = req.ingot
    const number = pageNumber(req.query)
    const state = stateOf(req, ISSUE_STATES)
    const people = await peopleFilter(req, visit)
    const filters = { authorId: people.authorId, assigneeId: people.assigneeId }
    const order = { orderBy: 'updated_at' as const, sort: 'desc' as const }
    const [opened, closed] = await Promise.all(['opened', 'closed'].map((s) =>
      findIssuePage(db, req.actor, { kind: 'all' }, { ...filters, state: s }, order, { page: s === state ? number : 1, per_page: s === state ? LIST_PER_PAGE : 1 })))
    const shown = state === 'opened' ? opened! : state === 'closed' ? closed! : await findIssuePage(db, req.actor, { kind: 'all' }, filters, order, { page: number, per_page: LIST_PER_PAGE })
    const views = await loadIssueViews(db, await issuesByIds(db, shown.items))
    return sendPage(reply, visit, 200, page({ title: 'Issues', user: visit.session.user, wide: true }, html`
<h1>Issues</h1>
${tabs(DASHBOARD_TABS, '/dashboard/issues', 'Dashboard')}
${stateTabs('/dashboard/issues', people.query, [
      { state: 'opened', label: 'Open', count: opened!.total }, { state: 'closed', label: 'Closed', count: closed!.total }, { state: 'all', label: 'All', count: opened!.total + closed!.total },
    ], state)}
${views.length === 0 ? html`<p class="muted">No issues.</p>` : html`<ul class="issuable-list">${views.map((view) => html`<li><div><a class="title" href="/${encodePath(view.projectFullPath)}/issues/${view.issue.iid}">${view.issue.title}</a></div>
<div class="muted">${view.projectFullPath}#${view.issue.iid} · opened ${timeOf(view.issue.created_at)} by ${view.author.name} · updated ${timeOf(view.issue.updated_at)}</div></li>`)}</ul>`}
${pageLinks('/dashboard/issues', new URLSearchParams([...people.query, ['state', state]]), number, LIST_PER_PAGE, shown.total)}`))
  }))
  app.get('/dashboard/merge_requests', WEB, forMember(async (req, reply, visit) => {
    const { db } = req.ingot
    const number = pageNumber(req.query)
    const state = stateOf(req, ['opened', 'merged', 'closed', 'all'])
    const people = await peopleFilter(req, visit)
    const filters = { authorId: people.authorId, assigneeId: people.assigneeId, orderBy: 'updated_at' as const, sort: 'desc' as const }
    const countOf = async (s: string) => (await listMergeRequests(db, req.actor, { kind: 'all' }, { ...filters, state: s }, { page: 1, per_page: 1 })).total
    const [shown, opened, merged, closed] = await Promise.all([
      listMergeRequests(db, req.actor, { kind: 'all' }, { ...filters, state: state === 'all' ? undefined : state }, { page: number, per_page: LIST_PER_PAGE }),
      countOf('opened'), countOf('merged'), countOf('closed'),
    ])
    return sendPage(reply, visit, 200, page({ title: 'Merge requests', user: visit.session.user, wide: true }, html`
<h1>Merge requests</h1>
${tabs(DASHBOARD_TABS, '/dashboard/merge_requests', 'Dashboard')}
${stateTabs('/dashboard/merge_requests', people.query, [
      { state: 'opened', label: 'Open', count: opened }, { state: 'merged', label: 'Merged', count: merged },
      { state: 'closed', label: 'Closed', count: closed }, { state: 'all', label: 'All', count: opened + merged + closed },
    ], state)}
${shown.items.length === 0 ? html`<p class="muted">No merge requests.</p>` : html`<ul class="issuable-list">${shown.items.map((view) => html`<li><div><a class="title" href="/${encodePath(view.projectFullPath)}/merge_requests/${view.mergeRequest.iid}">${view.mergeRequest.title}</a></div>
<div class="muted">${view.projectFullPath}!${view.mergeRequest.iid} · opened ${timeOf(view.mergeRequest.created_at)} by ${view.author.name} · updated ${timeOf(view.mergeRequest.updated_at)}</div></li>`)}</ul>`}
${pageLinks('/dashboard/merge_requests', new URLSearchParams([...people.query, ['state', state]]), number, LIST_PER_PAGE, shown.total)}`))
  }))

  app.get('/explore', WEB, async (req, reply) => redirect(reply, await visitOf(req), '/explore/projects'))
  app.get('/explore/projects', WEB, forAnyone((req, reply, visit) => projectsPage(req, reply, visit, {
    title: 'Explore projects', path: '/explore/projects', tabs: tabs(EXPLORE_TABS, '/explore/projects', 'Explore'), filters: {}, empty: 'No projects.',
  })))
  app.get('/explore/projects/starred', WEB, forAnyone((req, reply, visit) => projectsPage(req, reply, visit, {
    title: 'Most starred projects', path: '/explore/projects/starred', tabs: tabs(EXPLORE_TABS, '/explore/projects/starred', 'Explore'),
    filters: {}, byStars: true, empty: 'No projects.',
  })))
  app.get('/explore/groups', WEB, forAnyone((req, reply, visit) => groupsPage(req, reply, visit, {
    title: 'Explore groups', path: '/explore/groups', tabs: tabs(EXPLORE_TABS, '/explore/groups', 'Explore'), mine: false,
  })))
}

function signOut(visit: SignedInVisit): SafeHtml {
  return html`<form class="sign-out" method="post" action="/users/sign_out">${csrfField(tokenOf(visit))}<button type="submit">Sign out</button></form>`
}

/** The administrator's home page for anonymous visitors, unless it is this site's own root. */
function homePageUrl(externalUrl: string, setting: string | null): string | null {
  const url = webUrl(setting)
  if (url === null) return null
  const root = externalUrl.replace(/\/+$/, '')
  return [root, '', '/'].includes(url.replace(/\/+$/, '')) ? null : url
}

export default dashboard
