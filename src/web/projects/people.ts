// Who works on a project and what they did, at the original's URLs: `/activity` (the project's
// events the visitor may read, as the API's project events) and `/project_members` (its members,
// those its groups give it included, with their access levels).
import { paginate } from '../../common/pages.js'
import { findProjectEvents } from '../../finders/events-finder.js'
import { findAllMembers } from '../../finders/members-finder.js'
import { html, page } from '../html.js'
import { LIST_PER_PAGE, eventList, eventPage, pageNumber } from '../listings.js'
import { membersTable } from '../namespaces.js'
import { sendNotFound, sendPage } from '../visit.js'
import { projectChrome, projectUrl, type ProjectPage } from './context.js'
import { pageLinks } from './issuables.js'

export const activityPage: ProjectPage = async ({ req, reply, visit, loaded, rest }) => {
  if (rest.length > 0) return sendNotFound(reply, visit)
  const { db } = req.ingot
  const number = pageNumber(req.query)
  const found = await eventPage(db, await findProjectEvents(db, req.actor, loaded.project.id, { sort: 'desc' }), number)
  return sendPage(reply, visit, 200, page({ title: `Activity · ${loaded.project.name}`, user: visit.session?.user ?? null, wide: true }, projectChrome(req.actor, loaded, 'overview', html`
<h1>Activity</h1>
${eventList(found.views, found.projects, 'Nothing has happened here yet.')}
${pageLinks(`${projectUrl(loaded)}/activity`, new URLSearchParams(), number, LIST_PER_PAGE, found.total)}`)))
}

export const membersPage: ProjectPage = async ({ req, reply, visit, loaded, rest }) => {
  if (rest.length > 0) return sendNotFound(reply, visit)
  const { db } = req.ingot
  const number = pageNumber(req.query)
  const found = await paginate(db, findAllMembers(db, { type: 'project', id: loaded.project.id }), { page: number, per_page: LIST_PER_PAGE })
  return sendPage(reply, visit, 200, page({ title: `Members · ${loaded.project.name}`, user: visit.session?.user ?? null, wide: true }, projectChrome(req.actor, loaded, 'members', html`
<h1>Members</h1>
${membersTable(found.items.map((row) => ({ user: row, accessLevel: row.member_access_level, expiresAt: row.member_expires_at })))}
${pageLinks(`${projectUrl(loaded)}/project_members`, new URLSearchParams(), number, LIST_PER_PAGE, found.total)}`)))
}
