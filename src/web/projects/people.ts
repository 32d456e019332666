// What happened in a project, at the original's URL `/activity`: the project's events the visitor
// may read, as the API's project events (its members are web/members.ts).
import { findProjectEvents } from '../../finders/events-finder.js'
import { html, page } from '../html.js'
import { LIST_PER_PAGE, eventList, eventPage, pageNumber } from '../listings.js'
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
