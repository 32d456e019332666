// The admin area's overview and instance-wide lists: `/admin` (the instance's counts),
// `/admin/projects` and `/admin/groups` (everything, as the API lists it to an administrator).
import type { FastifyPluginAsync } from 'fastify'
import { instanceCounts } from '../../finders/counters.js'
import { html } from '../html.js'
import { LIST_PER_PAGE, groupList, groupPage, pageNumber, projectList, projectPage } from '../listings.js'
import { pageLinks } from '../projects/issuables.js'
import { WEB } from '../visit.js'
import { adminPage, forAdmin, searchOf } from './layout.js'

const overviewPages: FastifyPluginAsync = async (app) => {
  app.get('/admin', WEB, forAdmin(async (req, reply, visit) => {
    const { users, projects, groups } = await instanceCounts(req.ingot.db)
    return adminPage(reply, visit, 'Overview', '/admin', html`<h1>Admin area</h1>
<ul class="stats"><li><a href="/admin/users">${users} users</a></li><li><a href="/admin/projects">${projects} projects</a></li><li><a href="/admin/groups">${groups} groups</a></li></ul>`)
  }))

  app.get('/admin/projects', WEB, forAdmin(async (req, reply, visit) => {
    const number = pageNumber(req.query)
    const search = searchOf(req)
    const found = await projectPage(req.ingot.db, req.actor, { kind: 'all' }, { orderBy: 'id', sort: 'desc', ...(search === '' ? {} : { search }) }, number)
    return adminPage(reply, visit, 'Projects', '/admin/projects', html`<h1>Projects</h1>
<form class="inline-form filters" method="get" action="/admin/projects" role="search"><div><label for="search">Search</label><input type="text" id="search" name="search" value="${search}"></div><button type="submit">Search</button></form>
${projectList(found.items, 'No projects.')}${pageLinks('/admin/projects', new URLSearchParams(search === '' ? {} : { search }), number, LIST_PER_PAGE, found.total)}`)
  }))

  app.get('/admin/groups', WEB, forAdmin(async (req, reply, visit) => {
    const number = pageNumber(req.query)
    const found = await groupPage(req.ingot.db, req.actor, { orderBy: 'name', sort: 'asc', allAvailable: true }, number)
    return adminPage(reply, visit, 'Groups', '/admin/groups', html`<h1>Groups</h1>${groupList(found.items, 'No groups.')}${pageLinks('/admin/groups', new URLSearchParams(), number, LIST_PER_PAGE, found.total)}`)
  }))
}

export default overviewPages
