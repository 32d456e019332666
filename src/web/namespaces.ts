// The pages of users and groups at the original's URLs: `/:username` (a user's profile, their
// personal projects and their activity, each as the visitor may see them), `/groups/:path` (a
// group's subgroups and projects; subgroups as `/groups/a/b`), `/:group` (a top-level group: users
// and groups share one path space) and `/groups/:path/-/group_members`. A group the visitor may not
// see is the same 404 page as a missing one. `/a/b` names a project or, failing that, a subgroup:
// the project router hands such a URL to groupPageAt when no project has that path.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { mustAcceptTerms } from '../auth/sessions.js'
import type { NamespaceRow } from '../db/schema.js'
import { findUserEvents } from '../finders/events-finder.js'
import { findVisibleGroup } from '../finders/groups-finder.js'
import { namespaceKindAt } from '../finders/namespaces-finder.js'
import { findAllMembers } from '../finders/members-finder.js'
import { findUserByUsername } from '../finders/users-finder.js'
import { canReadUserProfile } from '../policies/user-policy.js'
import { isReservedTopLevel } from '../services/namespaces/path-rules.js'
import { paginate } from '../common/pages.js'
import { html, page, type SafeHtml } from './html.js'
import { LIST_PER_PAGE, eventList, eventPage, groupList, groupPage, pageNumber, projectList, projectPage } from './listings.js'
import { TERMS_PATH } from './pages.js'
import { encodePath } from './projects/context.js'
import { pageLinks, userLink } from './projects/issuables.js'
import { WEB, actorOf, redirect, sendNotFound, sendPage, visitOf, type SignedInVisit, type Visit } from './visit.js'

const ACCESS_LEVELS: Readonly<Record<number, string>> = { 10: 'Guest', 20: 'Reporter', 30: 'Developer', 40: 'Maintainer', 50: 'Owner' }

/** A table of members with their access levels (a project's or a group's, inherited ones included). */
export function membersTable(members: readonly { user: { username: string; name: string }; accessLevel: number; expiresAt: string | null }[]): SafeHtml {
  if (members.length === 0) return html`<p class="muted">No members.</p>`
  return html`<table><thead><tr><th scope="col">Member</th><th scope="col">Access</th><th scope="col">Expires</th></tr></thead>
<tbody>${members.map((m) => html`<tr><td>${userLink(m.user)} <span class="muted">@${m.user.username}</span></td><td>${ACCESS_LEVELS[m.accessLevel] ?? m.accessLevel}</td><td>${m.expiresAt ?? html`<span class="muted">Never</span>`}</td></tr>`)}</tbody></table>`
}

/** Reads the visitor as the API reads a caller signed in by cookie; false (and the answer sent) when they must accept the terms first. */
async function visitorOf(req: FastifyRequest, reply: FastifyReply): Promise<Visit | null> {
  const visit = await visitOf(req)
  if (visit.session !== null && mustAcceptTerms(visit.session.user, visit.settings)) {
    redirect(reply, visit, TERMS_PATH)
    return null
  }
  if (visit.session !== null) req.actor = actorOf(visit as SignedInVisit)
  return visit
}

function groupTabs(group: NamespaceRow, current: 'overview' | 'members'): SafeHtml {
  const base = `/groups/${encodePath(group.full_path)}`
  const tab = (name: typeof current, href: string, label: string) => html`<li><a href="${href}"${name === current ? html` aria-current="page"` : ''}>${label}</a></li>`
  return html`<nav class="project-tabs" aria-label="Group"><ul class="actions">${tab('overview', base, 'Overview')}${tab('members', `${base}/-/group_members`, 'Members')}</ul></nav>`
}

/** A group's page, or its members' (`rest` = ['-', 'group_members']); the 404 page for a group the visitor may not see. */
export async function groupPageAt(req: FastifyRequest, reply: FastifyReply, visit: Visit, fullPath: string, rest: readonly string[] = []): Promise<FastifyReply> {
  const { db } = req.ingot
  const group = await findVisibleGroup(db, req.actor, fullPath)
  if (group === null) return sendNotFound(reply, visit)
  const number = pageNumber(req.query)
  const base = `/groups/${encodePath(group.full_path)}`
  if (rest.length === 2 && rest[0] === '-' && rest[1] === 'group_members') {
    const found = await paginate(db, findAllMembers(db, { type: 'group', id: group.id }), { page: number, per_page: LIST_PER_PAGE })
    return sendPage(reply, visit, 200, page({ title: `Members · ${group.full_name}`, user: visit.session?.user ?? null, wide: true }, html`
${groupTabs(group, 'members')}
<h1>Members of ${group.full_name}</h1>
${membersTable(found.items.map((row) => ({ user: row, accessLevel: row.member_access_level, expiresAt: row.member_expires_at })))}
${pageLinks(`${base}/-/group_members`, new URLSearchParams(), number, LIST_PER_PAGE, found.total)}`))
  }
  if (rest.length > 0) return sendNotFound(reply, visit)
  const [subgroups, projects] = await Promise.all([
    groupPage(db, req.actor, { orderBy: 'name', sort: 'asc', allAvailable: true, parentId: group.id }, 1),
    projectPage(db, req.actor, { kind: 'group', groupId: group.id }, { orderBy: 'last_activity_at', sort: 'desc' }, number),
  ])
  return sendPage(reply, visit, 200, page({ title: group.full_name, user: visit.session?.user ?? null, wide: true }, html`
${groupTabs(group, 'overview')}
<h1>${group.full_name}</h1>
${group.description === '' ? '' : html`<p>${group.description}</p>`}
${subgroups.items.length === 0 ? '' : html`<section aria-labelledby="subgroups-title"><h2 id="subgroups-title">Subgroups</h2>${groupList(subgroups.items, '')}</section>`}
<section aria-labelledby="projects-title"><h2 id="projects-title">Projects</h2>
${projectList(projects.items, 'No projects you may see.')}
${pageLinks(base, new URLSearchParams(), number, LIST_PER_PAGE, projects.total)}</section>`))
}

async function userPage(req: FastifyRequest, reply: FastifyReply, visit: Visit, username: string): Promise<FastifyReply> {
  const { db } = req.ingot
  const user = await findUserByUsername(db, username)
  if (user === null || user.state === 'blocked') return sendNotFound(reply, visit)
  const readable = canReadUserProfile(req.actor, user)
  const [projects, events] = await Promise.all([
    projectPage(db, req.actor, { kind: 'personal', userId: user.id }, { orderBy: 'last_activity_at', sort: 'desc' }, pageNumber(req.query)),
    readable ? eventPage(db, await findUserEvents(db, req.actor, user, { sort: 'desc' }), 1) : null,
  ])
  return sendPage(reply, visit, 200, page({ title: `${user.name} (@${user.username})`, user: visit.session?.user ?? null, wide: true }, html`
<h1>${user.name} <small class="muted">@${user.username}</small></h1>
${readable ? html`<dl class="commit-meta">
${user.bio === '' ? '' : html`<dt>Bio</dt><dd>${user.bio}</dd>`}
${user.location === '' ? '' : html`<dt>Location</dt><dd>${user.location}</dd>`}
${user.organization === '' ? '' : html`<dt>Organization</dt><dd>${user.organization}</dd>`}
</dl>` : html`<p class="muted">This user has a private profile.</p>`}
<section aria-labelledby="projects-title"><h2 id="projects-title">Personal projects</h2>${projectList(projects.items, 'No projects you may see.')}
${pageLinks(`/${encodePath(user.username)}`, new URLSearchParams(), projects.page, LIST_PER_PAGE, projects.total)}</section>
${events === null ? '' : html`<section aria-labelledby="activity-title"><h2 id="activity-title">Activity</h2>${eventList(events.views, events.projects, 'No activity you may see.')}</section>`}`))
}

const namespacePages: FastifyPluginAsync = async (app) => {
  app.get('/groups/*', WEB, async (req, reply) => {
    const visit = await visitorOf(req, reply)
    if (visit === null) return reply
    const segments = (req.params as { '*': string })['*'].split('/').filter((segment) => segment !== '')
    const dash = segments.indexOf('-')
    return groupPageAt(req, reply, visit, (dash === -1 ? segments : segments.slice(0, dash)).join('/'), dash === -1 ? [] : segments.slice(dash))
  })

  // One segment: a user or a top-level group (static routes such as /help are matched first).
  app.get('/:name', WEB, async (req, reply) => {
    const visit = await visitorOf(req, reply)
    if (visit === null) return reply
    const { name } = req.params as { name: string }
    // A reserved name (api, oauth, …) is no namespace: it keeps the API's 404 answer.
    if (isReservedTopLevel(name)) return reply.callNotFound()
    if (await namespaceKindAt(req.ingot.db, name) === 'group') return groupPageAt(req, reply, visit, name)
    return userPage(req, reply, visit, name)
  })
}

export default namespacePages
