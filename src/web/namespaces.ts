// The pages of users and groups at the original's URLs: `/:username` (a user's profile, their
// personal projects and their activity, each as the visitor may see them), `/groups/:path` (a
// group's subgroups and projects; subgroups as `/groups/a/b`), `/:group` (a top-level group: users
// and groups share one path space), `/groups/:path/-/group_members` (members.ts), `/groups/:path/-/edit`
// and `/groups/new` (groups/settings.ts), with the forms they post. A group the visitor may not
// see is the same 404 page as a missing one. `/a/b` names a project or, failing that, a subgroup:
// the project router hands such a URL to groupPageAt when no project has that path.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { mustAcceptTerms } from '../auth/sessions.js'
import { findUserEvents } from '../finders/events-finder.js'
import { namespaceKindAt } from '../finders/namespaces-finder.js'
import { findUserByUsername } from '../finders/users-finder.js'
import { canCreateGroup } from '../policies/group-policy.js'
import { canReadUserProfile } from '../policies/user-policy.js'
import { isReservedTopLevel } from '../services/namespaces/path-rules.js'
import { html, page } from './html.js'
import { LIST_PER_PAGE, eventList, eventPage, groupList, groupPage, pageNumber, projectList, projectPage } from './listings.js'
import { TERMS_PATH } from './pages.js'
import { encodePath } from './projects/context.js'
import { pageLinks } from './projects/issuables.js'
import { WEB, actorOf, forSignedIn, redirect, sendNotFound, sendPage, visitOf, type SignedInHandler, type SignedInVisit, type Visit } from './visit.js'
import { groupChrome, groupUrl, visibleGroupAt } from './groups/context.js'
import { createGroupForm, groupSettingsForm, groupSettingsPage, newGroupForm } from './groups/settings.js'
import { groupMemberForms, groupMembersPage } from './members.js'

/** The visitor, read as the API reads them; null (and the answer sent) when they must accept the terms first. */
async function visitorOf(req: FastifyRequest, reply: FastifyReply): Promise<Visit | null> {
  const visit = await visitOf(req)
  if (visit.session !== null && mustAcceptTerms(visit.session.user, visit.settings)) {
    redirect(reply, visit, TERMS_PATH)
    return null
  }
  if (visit.session !== null) req.actor = actorOf(visit as SignedInVisit)
  return visit
}

/** A page or form of signed-in visitors (visit.ts forSignedIn: sign-in, terms, CSRF), read as the API reads them. */
function forSignedInActor(handler: SignedInHandler) {
  return forSignedIn((req, reply, visit) => {
    req.actor = actorOf(visit)
    return handler(req, reply, visit)
  })
}

/**
 * A group's page, its members' (`rest` = ['-', 'group_members']) or its settings' (['-', 'edit']);
 * the 404 page for a group the visitor may not see.
 */
export async function groupPageAt(req: FastifyRequest, reply: FastifyReply, visit: Visit, fullPath: string, rest: readonly string[] = []): Promise<FastifyReply> {
  const { db } = req.ingot
  const loaded = await visibleGroupAt(req, fullPath)
  if (loaded === null) return sendNotFound(reply, visit)
  const { group } = loaded
  if (rest.length === 2 && rest[0] === '-' && rest[1] === 'group_members') return groupMembersPage(req, reply, visit, loaded)
  if (rest.length === 2 && rest[0] === '-' && rest[1] === 'edit') return groupSettingsPage(req, reply, visit, loaded)
  if (rest.length > 0) return sendNotFound(reply, visit)
  const number = pageNumber(req.query)
  const base = groupUrl(group)
  const [subgroups, projects] = await Promise.all([
    groupPage(db, req.actor, { orderBy: 'name', sort: 'asc', allAvailable: true, parentId: group.id }, 1),
    projectPage(db, req.actor, { kind: 'group', groupId: group.id }, { orderBy: 'last_activity_at', sort: 'desc' }, number),
  ])
  return sendPage(reply, visit, 200, page({ title: group.full_name, user: visit.session?.user ?? null, wide: true }, groupChrome(req.actor, loaded, 'overview', html`
<div class="list-header"><h1>${group.full_name}</h1>${canCreateGroup(req.actor, loaded.accessLevel) ? html`<a class="button" href="/groups/new?parent_id=${group.id}">New subgroup</a>` : ''}</div>
${group.description === '' ? '' : html`<p>${group.description}</p>`}
${subgroups.items.length === 0 ? '' : html`<section aria-labelledby="subgroups-title"><h2 id="subgroups-title">Subgroups</h2>${groupList(subgroups.items, '')}</section>`}
<section aria-labelledby="projects-title"><h2 id="projects-title">Projects</h2>
${projectList(projects.items, 'No projects you may see.')}
${pageLinks(base, new URLSearchParams(), number, LIST_PER_PAGE, projects.total)}</section>`)))
}

/** The forms posted under `/groups/<path>/-/`: members (`group_members[/<id>]`) and settings (`edit`). */
async function groupForms(req: FastifyRequest, reply: FastifyReply, visit: SignedInVisit): Promise<FastifyReply> {
  const segments = (req.params as { '*': string })['*'].split('/').filter((segment) => segment !== '')
  const dash = segments.indexOf('-')
  const loaded = dash === -1 ? null : await visibleGroupAt(req, segments.slice(0, dash).join('/'))
  if (loaded === null) return sendNotFound(reply, visit)
  const [name, ...rest] = segments.slice(dash + 1)
  if (name === 'group_members') return groupMemberForms(req, reply, visit, loaded, rest)
  if (name === 'edit' && rest.length === 0) return groupSettingsForm(req, reply, visit, loaded)
  return sendNotFound(reply, visit)
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

  app.get('/groups/new', WEB, forSignedInActor(newGroupForm))
  app.post('/groups', WEB, forSignedInActor(createGroupForm))
  app.post('/groups/*', WEB, forSignedInActor(groupForms))

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
