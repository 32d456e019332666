// The admin area's users, at the original's URLs: `/admin/users` (search), `/admin/users/new` and
// its form, `/admin/users/:username` (details, personal projects, block, unblock, impersonate,
// delete: `_method=delete`, with `hard_delete` to delete the contributions too) and
// `/admin/users/:username/edit` (name, email, administrator, projects limit, group creation,
// external; `_method=patch`). Every change goes through the service the API's /users endpoints use,
// with its validation; an administrator blocks and deletes others, never themselves.
// Impersonation is impersonation.ts.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { paginate } from '../../common/pages.js'
import type { UserRow } from '../../db/schema.js'
import { findUsers } from '../../finders/users-finder.js'
import { blockUser, unblockUser } from '../../services/users/block-user.js'
import { createUser } from '../../services/users/create-user.js'
import { deleteUser } from '../../services/users/delete-user.js'
import { updateUser, type UpdateUserInput } from '../../services/users/update-user.js'
import { csrfField, errorExplanation, html, type SafeHtml } from '../html.js'
import { LIST_PER_PAGE, pageNumber, projectList, projectPage } from '../listings.js'
import { encodePath } from '../projects/context.js'
import { pageLinks, timeOf } from '../projects/issuables.js'
import { WEB, formMethod, formOf, methodField, redirect, refusalOf, sendNotFound, tokenOf, type SignedInVisit } from '../visit.js'
import { adminPage, checked, forAdmin, searchOf, userOfPath } from './layout.js'

export function adminUserPath(user: Pick<UserRow, 'username'>): string {
  return `/admin/users/${encodePath(user.username)}`
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
<label class="checkbox"><input type="checkbox" name="user[admin]" value="1"${checked(values.admin)}> Administrator</label>
<p class="muted">The user sets their password through the reset link Ingot sends.</p>
<button type="submit">Create user</button></form>`, { status })
}

/** A button-only form posting to `action` (block, unblock, impersonate, delete). */
function actionForm(visit: SignedInVisit, action: string, label: string, extra: SafeHtml | '' = ''): SafeHtml {
  return html`<form class="inline-form" method="post" action="${action}">${csrfField(tokenOf(visit))}${extra}<button type="submit">${label}</button></form>`
}

/** The user's page; `alert` says why an action on the user was refused (impersonation.ts too). */
export async function adminUserPage(req: FastifyRequest, reply: FastifyReply, visit: SignedInVisit, user: UserRow, alert: string | null = null): Promise<FastifyReply> {
  const number = pageNumber(req.query)
  const projects = await projectPage(req.ingot.db, req.actor, { kind: 'personal', userId: user.id }, { orderBy: 'last_activity_at', sort: 'desc' }, number)
  const path = adminUserPath(user)
  const yourself = user.id === visit.session.user.id
  const blocked = user.state === 'blocked'
  return adminPage(reply, visit, user.name, '/admin/users', html`<div class="list-header"><h1>${user.name} <small class="muted">@${user.username}</small></h1><a class="button" href="${path}/edit">Edit</a></div>
<dl class="commit-meta">
<dt>Profile</dt><dd><a href="/${encodePath(user.username)}">/${user.username}</a></dd>
<dt>Email</dt><dd>${user.email}</dd>
<dt>State</dt><dd>${user.state}</dd>
<dt>Administrator</dt><dd>${user.admin === 1 ? 'Yes' : 'No'}</dd>
<dt>External</dt><dd>${user.external === 1 ? 'Yes' : 'No'}</dd>
<dt>Can create groups</dt><dd>${user.can_create_group === 1 ? 'Yes' : 'No'}</dd>
<dt>Projects limit</dt><dd>${user.projects_limit}</dd>
<dt>Member since</dt><dd>${timeOf(user.created_at)}</dd>
<dt>Last sign-in</dt><dd>${user.current_sign_in_at === null ? 'Never' : timeOf(user.current_sign_in_at)}</dd>
</dl>
${yourself ? html`<p class="muted">This is you.</p>` : html`<section aria-labelledby="actions-title"><h2 id="actions-title">Actions</h2>
<div class="actions">
${blocked ? '' : actionForm(visit, `${path}/impersonate`, 'Impersonate')}
${actionForm(visit, `${path}/${blocked ? 'unblock' : 'block'}`, blocked ? 'Unblock user' : 'Block user')}
${actionForm(visit, path, 'Delete user', methodField('DELETE'))}
${actionForm(visit, path, 'Delete user and contributions', html`${methodField('DELETE')}<input type="hidden" name="hard_delete" value="1">`)}
</div>
<p class="muted">Deleting moves the user's issues, merge requests, comments and snippets to the ghost user; deleting with contributions removes them, and the groups only this user owns.</p></section>`}
<section aria-labelledby="projects-title"><h2 id="projects-title">Personal projects</h2>${projectList(projects.items, 'No personal projects.')}
${pageLinks(path, new URLSearchParams(), number, LIST_PER_PAGE, projects.total)}</section>`, { status: alert === null ? 200 : 422, alert })
}

interface EditUserValues {
  name: string
  email: string
  projectsLimit: string
  admin: boolean
  canCreateGroup: boolean
  external: boolean
}

function editValuesOf(user: UserRow): EditUserValues {
  return {
    name: user.name, email: user.email, projectsLimit: String(user.projects_limit),
    admin: user.admin === 1, canCreateGroup: user.can_create_group === 1, external: user.external === 1,
  }
}

function editUserPage(reply: FastifyReply, visit: SignedInVisit, user: UserRow, values: EditUserValues, errors: readonly string[], status: number): FastifyReply {
  const path = adminUserPath(user)
  return adminPage(reply, visit, `Edit ${user.name}`, '/admin/users', html`<h1>Edit <a href="${path}">${user.name}</a> <small class="muted">@${user.username}</small></h1>
${errorExplanation(errors)}
<form class="issuable-form" method="post" action="${path}">${csrfField(tokenOf(visit))}${methodField('PATCH')}
<label for="user_name">Name</label><input type="text" id="user_name" name="user[name]" value="${values.name}" required>
<label for="user_email">Email</label><input type="email" id="user_email" name="user[email]" value="${values.email}" required>
<label for="user_projects_limit">Projects limit</label><input type="number" id="user_projects_limit" name="user[projects_limit]" value="${values.projectsLimit}" min="0" required>
<label class="checkbox"><input type="checkbox" name="user[can_create_group]" value="1"${checked(values.canCreateGroup)}> Can create groups</label>
<label class="checkbox"><input type="checkbox" name="user[admin]" value="1"${checked(values.admin)}> Administrator</label>
<label class="checkbox"><input type="checkbox" name="user[external]" value="1"${checked(values.external)}> External (sees only the internal and private projects they are a member of, creates no projects or groups)</label>
<button type="submit">Save changes</button></form>`, { status })
}

const userPages: FastifyPluginAsync = async (app) => {
  app.get('/admin/users', WEB, forAdmin(async (req, reply, visit) => {
    const { db } = req.ingot
    const number = pageNumber(req.query)
    const search = searchOf(req)
    const found = await paginate(db, findUsers(db, req.actor, { ...(search === '' ? {} : { search }), orderBy: 'id', sort: 'desc' }), { page: number, per_page: LIST_PER_PAGE })
    return adminPage(reply, visit, 'Users', '/admin/users', html`<div class="list-header"><h1>Users</h1><a class="button" href="/admin/users/new">New user</a></div>
<form class="inline-form filters" method="get" action="/admin/users" role="search"><div><label for="search">Search by name, username or email</label><input type="text" id="search" name="search" value="${search}"></div><button type="submit">Search</button></form>
<table><thead><tr><th scope="col">User</th><th scope="col">Email</th><th scope="col">Since</th><th scope="col">State</th></tr></thead><tbody>${found.items.map((user) => html`<tr>
<td><a href="${adminUserPath(user)}">${user.name}</a> <span class="muted">@${user.username}</span>${user.admin === 1 ? html` <span class="badge">Admin</span>` : ''}${user.external === 1 ? html` <span class="badge">External</span>` : ''}</td><td>${user.email}</td><td>${timeOf(user.created_at)}</td>
<td>${user.id === visit.session.user.id ? html`<span class="muted">you</span>` : user.state}</td></tr>`)}</tbody></table>
${pageLinks('/admin/users', new URLSearchParams(search === '' ? {} : { search }), number, LIST_PER_PAGE, found.total)}`)
  }))

  app.get('/admin/users/new', WEB, forAdmin(async (_req, reply, visit) => newUserPage(reply, visit, { name: '', username: '', email: '', admin: false }, [], 200)))

  app.post('/admin/users', WEB, forAdmin(async (req, reply, visit) => {
    const form = formOf(req, 'user')
    const values = { name: (form.name ?? '').trim(), username: (form.username ?? '').trim(), email: (form.email ?? '').trim(), admin: form.admin === '1' }
    let user: UserRow
    try {
      user = await createUser(req.ingot, { ...values, reset_password: true, skip_confirmation: true })
    } catch (err) {
      return newUserPage(reply, visit, values, refusalOf(err), 422)
    }
    return redirect(reply, visit, adminUserPath(user))
  }))

  app.get('/admin/users/:username', WEB, forAdmin(async (req, reply, visit) => {
    const user = await userOfPath(req)
    return user === null ? sendNotFound(reply, visit) : adminUserPage(req, reply, visit, user)
  }))

  app.get('/admin/users/:username/edit', WEB, forAdmin(async (req, reply, visit) => {
    const user = await userOfPath(req)
    return user === null ? sendNotFound(reply, visit) : editUserPage(reply, visit, user, editValuesOf(user), [], 200)
  }))

  // PATCH (the edit form) and DELETE (the user's page).
  app.post('/admin/users/:username', WEB, forAdmin(async (req, reply, visit) => {
    const user = await userOfPath(req)
    const method = formMethod(req)
    if (user === null) return sendNotFound(reply, visit)
    if (method === 'DELETE') {
      if (user.id === visit.session.user.id) return sendNotFound(reply, visit)
      await deleteUser(req.ingot, user, { hardDelete: (req.body as Record<string, unknown>).hard_delete === '1' })
      return redirect(reply, visit, '/admin/users')
    }
    if (method !== 'PATCH' && method !== 'PUT') return sendNotFound(reply, visit)
    const form = formOf(req, 'user')
    const values: EditUserValues = {
      name: (form.name ?? '').trim(), email: (form.email ?? '').trim(), projectsLimit: (form.projects_limit ?? '').trim(),
      admin: form.admin === '1', canCreateGroup: form.can_create_group === '1', external: form.external === '1',
    }
    if (!/^-?\d{1,16}$/.test(values.projectsLimit)) return editUserPage(reply, visit, user, values, ['Projects limit is not a number'], 422)
    const input: UpdateUserInput = {
      name: values.name, email: values.email, projects_limit: Number(values.projectsLimit),
      admin: values.admin, can_create_group: values.canCreateGroup, external: values.external,
    }
    try {
      await updateUser(req.ingot.db, user, input, { by: req.actor })
    } catch (err) {
      return editUserPage(reply, visit, user, values, refusalOf(err), 422)
    }
    return redirect(reply, visit, adminUserPath(user))
  }))

  app.post('/admin/users/:username/:action', WEB, forAdmin(async (req, reply, visit) => {
    const { action } = req.params as { action: string }
    const user = await userOfPath(req)
    if (user === null || user.id === visit.session.user.id || (action !== 'block' && action !== 'unblock')) return sendNotFound(reply, visit)
    await (action === 'block' ? blockUser : unblockUser)(req.ingot.db, user)
    return redirect(reply, visit, adminUserPath(user))
  }))
}

export default userPages
