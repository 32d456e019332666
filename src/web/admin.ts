// The admin area at the original's URLs, for administrators alone (everyone else gets the 404
// page, as a missing page): `/admin` (the instance's counts), `/admin/users` (search, block and
// unblock; `/admin/users/new` creates one), `/admin/projects` and `/admin/groups` (everything, as
// the API lists it to an administrator), and `/admin/application_settings` (sign-up, default
// visibility and project limit, the home page and the sign-in and sign-up texts). Every change goes
// through the service the API's admin endpoints use, with its validation. OAuth applications are
// applications.ts (`/admin/applications`).
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { paginate } from '../common/pages.js'
import { findUserById, findUsers } from '../finders/users-finder.js'
import { instanceCounts } from '../finders/counters.js'
import type { Visibility } from '../policies/access-levels.js'
import { getApplicationSettings, updateApplicationSettings, type ApplicationSettings } from '../services/settings.js'
import { blockUser, unblockUser } from '../services/users/block-user.js'
import { createUser } from '../services/users/create-user.js'
import { csrfField, errorExplanation, html, page, type SafeHtml } from './html.js'
import { LIST_PER_PAGE, groupList, groupPage, pageNumber, projectList, projectPage } from './listings.js'
import { encodePath } from './projects/context.js'
import { pageLinks, timeOf } from './projects/issuables.js'
import { WEB, actorOf, forSignedIn, formOf, redirect, refusalOf, sendNotFound, sendPage, tokenOf, type SignedInVisit } from './visit.js'

const ADMIN_TABS = [
  ['/admin', 'Overview'], ['/admin/users', 'Users'], ['/admin/projects', 'Projects'], ['/admin/groups', 'Groups'],
  ['/admin/application_settings', 'Settings'], ['/admin/applications', 'Applications'],
] as const

function adminPage(reply: FastifyReply, visit: SignedInVisit, title: string, current: string, body: SafeHtml, status = 200): FastifyReply {
  return sendPage(reply, visit, status, page({ title: `${title} · Admin`, user: visit.session.user, csrfToken: tokenOf(visit), wide: true }, html`
<nav class="project-tabs" aria-label="Admin area"><ul class="actions">${ADMIN_TABS.map(([href, label]) => html`<li><a href="${href}"${href === current ? html` aria-current="page"` : ''}>${label}</a></li>`)}</ul></nav>
${body}`))
}

type AdminHandler = (req: FastifyRequest, reply: FastifyReply, visit: SignedInVisit) => Promise<FastifyReply>

/** A page of administrators only, read as the API reads a signed-in administrator. */
function forAdmin(handler: AdminHandler) {
  return forSignedIn(async (req, reply, visit) => {
    if (visit.session.user.admin !== 1) return sendNotFound(reply, visit)
    req.actor = actorOf(visit)
    return handler(req, reply, visit)
  })
}

function searchOf(req: FastifyRequest): string {
  const value = (req.query as Record<string, unknown>).search
  return typeof value === 'string' ? value.trim() : ''
}

interface NewUserValues {
  name: string
  username: string
  email: string
  admin: boolean
}

function newUserPage(reply: FastifyReply, visit: SignedInVisit, values: NewUserValues, errors: readonly string[], status: number): FastifyReply {
  return adminPage(reply, visit, 'New user', '/admin/users', html`<h1>New user</h1>
${errorExplanation(errors)}
<form class="issuable-form" method="post" action="/admin/users">${csrfField(tokenOf(visit))}
<label for="user_name">Name</label><input type="text" id="user_name" name="user[name]" value="${values.name}" required>
<label for="user_username">Username</label><input type="text" id="user_username" name="user[username]" value="${values.username}" required>
<label for="user_email">Email</label><input type="email" id="user_email" name="user[email]" value="${values.email}" required>
<label class="checkbox"><input type="checkbox" name="user[admin]" value="1"${values.admin ? html` checked` : ''}> Administrator</label>
<p class="muted">The user sets their password through the reset link Ingot sends.</p>
<button type="submit">Create user</button></form>`, status)
}

const SETTINGS_TEXTS = [['home_page_url', 'Home page URL (where anonymous visitors of / go)'], ['sign_in_text', 'Sign-in text'], ['after_sign_up_text', 'After sign-up text']] as const

function settingsPage(reply: FastifyReply, visit: SignedInVisit, settings: ApplicationSettings, errors: readonly string[], status: number): FastifyReply {
  return adminPage(reply, visit, 'Settings', '/admin/application_settings', html`<h1>Settings</h1>
${errorExplanation(errors)}
<form class="issuable-form" method="post" action="/admin/application_settings">${csrfField(tokenOf(visit))}
<label class="checkbox"><input type="checkbox" name="application_setting[signup_enabled]" value="1"${settings.signup_enabled ? html` checked` : ''}> Sign-up enabled</label>
<label for="default_project_visibility">Default project visibility</label><select id="default_project_visibility" name="application_setting[default_project_visibility]">${(['private', 'internal', 'public'] as const).map((v) => html`<option${v === settings.default_project_visibility ? html` selected` : ''}>${v}</option>`)}</select>
<label for="default_projects_limit">Default projects limit</label><input type="number" id="default_projects_limit" name="application_setting[default_projects_limit]" value="${settings.default_projects_limit}" min="0">
${SETTINGS_TEXTS.map(([name, label]) => html`<label for="${name}">${label}</label><textarea id="${name}" name="application_setting[${name}]" rows="${name === 'home_page_url' ? 1 : 3}">${settings[name] ?? ''}</textarea>`)}
<button type="submit">Save changes</button></form>`, status)
}

const adminPages: FastifyPluginAsync = async (app) => {
  app.get('/admin', WEB, forAdmin(async (req, reply, visit) => {
    const { users, projects, groups } = await instanceCounts(req.ingot.db)
    return adminPage(reply, visit, 'Overview', '/admin', html`<h1>Admin area</h1>
<ul class="stats"><li><a href="/admin/users">${users} users</a></li><li><a href="/admin/projects">${projects} projects</a></li><li><a href="/admin/groups">${groups} groups</a></li></ul>`)
  }))

  app.get('/admin/users', WEB, forAdmin(async (req, reply, visit) => {
    const { db } = req.ingot
    const number = pageNumber(req.query)
    const search = searchOf(req)
    const found = await paginate(db, findUsers(db, req.actor, { ...(search === '' ? {} : { search }), orderBy: 'id', sort: 'desc' }), { page: number, per_page: LIST_PER_PAGE })
    const token = tokenOf(visit)
    return adminPage(reply, visit, 'Users', '/admin/users', html`<div class="list-header"><h1>Users</h1><a class="button" href="/admin/users/new">New user</a></div>
<form class="inline-form filters" method="get" action="/admin/users" role="search"><div><label for="search">Search by name, username or email</label><input type="text" id="search" name="search" value="${search}"></div><button type="submit">Search</button></form>
<table><thead><tr><th scope="col">User</th><th scope="col">Email</th><th scope="col">Since</th><th scope="col">State</th></tr></thead><tbody>${found.items.map((user) => html`<tr>
<td><a href="/${encodePath(user.username)}">${user.name}</a> <span class="muted">@${user.username}</span>${user.admin === 1 ? html` <span class="badge">Admin</span>` : ''}</td><td>${user.email}</td><td>${timeOf(user.created_at)}</td>
<td>${user.id === visit.session.user.id ? html`<span class="muted">you</span>` : html`<form method="post" action="/admin/users/${user.id}/${user.state === 'blocked' ? 'unblock' : 'block'}">${csrfField(token)}<button type="submit" aria-label="${user.state === 'blocked' ? 'Unblock' : 'Block'} ${user.username}">${user.state === 'blocked' ? 'Unblock' : 'Block'}</button></form>`}</td></tr>`)}</tbody></table>
${pageLinks('/admin/users', new URLSearchParams(search === '' ? {} : { search }), number, LIST_PER_PAGE, found.total)}`)
  }))

  app.get('/admin/users/new', WEB, forAdmin(async (_req, reply, visit) => newUserPage(reply, visit, { name: '', username: '', email: '', admin: false }, [], 200)))

  app.post('/admin/users', WEB, forAdmin(async (req, reply, visit) => {
    const form = formOf(req, 'user')
    const values = { name: (form.name ?? '').trim(), username: (form.username ?? '').trim(), email: (form.email ?? '').trim(), admin: form.admin === '1' }
    try {
      await createUser(req.ingot, { ...values, reset_password: true, skip_confirmation: true })
    } catch (err) {
      return newUserPage(reply, visit, values, refusalOf(err), 422)
    }
    return redirect(reply, visit, `/admin/users?${new URLSearchParams({ search: values.username }).toString()}`)
  }))

  app.post('/admin/users/:id/:action', WEB, forAdmin(async (req, reply, visit) => {
    const { id, action } = req.params as { id: string; action: string }
    const user = /^\d{1,18}$/.test(id) ? await findUserById(req.ingot.db, Number(id)) : null
    if (user === null || user.id === visit.session.user.id || (action !== 'block' && action !== 'unblock')) return sendNotFound(reply, visit)
    await (action === 'block' ? blockUser : unblockUser)(req.ingot.db, user)
    return redirect(reply, visit, '/admin/users')
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

  app.get('/admin/application_settings', WEB, forAdmin(async (req, reply, visit) => settingsPage(reply, visit, await getApplicationSettings(req.ingot.db), [], 200)))

  app.post('/admin/application_settings', WEB, forAdmin(async (req, reply, visit) => {
    const form = formOf(req, 'application_setting')
    const text = (name: string) => (form[name] ?? '').trim()
    const limit = Number(text('default_projects_limit'))
    const changes: Partial<ApplicationSettings> = {
      signup_enabled: form.signup_enabled === '1',
      default_project_visibility: (['private', 'internal', 'public'].includes(text('default_project_visibility')) ? text('default_project_visibility') : 'private') as Visibility,
      home_page_url: text('home_page_url') === '' ? null : text('home_page_url'),
      sign_in_text: text('sign_in_text') === '' ? null : text('sign_in_text'),
      after_sign_up_text: text('after_sign_up_text') === '' ? null : text('after_sign_up_text'),
    }
    const current = await getApplicationSettings(req.ingot.db)
    if (!Number.isInteger(limit) || limit < 0) return settingsPage(reply, visit, { ...current, ...changes }, ['Default projects limit must be a whole number, 0 or more'], 422)
    try {
      await updateApplicationSettings(req.ingot.db, { ...changes, default_projects_limit: limit })
    } catch (err) {
      return settingsPage(reply, visit, { ...current, ...changes, default_projects_limit: limit }, refusalOf(err), 422)
    }
    return redirect(reply, visit, '/admin/application_settings')
  }))
}

export default adminPages
