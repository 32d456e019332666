// A group's settings and new groups, at the original's URLs: `/groups/<path>/-/edit` for the
// group's Owners (and administrators: the API's admin_group): name, path, description, visibility,
// Git LFS and access requests, saved through the API's group update service; delete the group
// after typing its path. `/groups/new` (`?parent_id=` for a subgroup) creates a group for those
// the API lets create one there, through its group creation service. Forms: POST `/groups/<path>/-/edit`
// with `_method=put` (save) or `action=delete`; POST `/groups` (create).
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { LoadedGroup } from '../../api/load.js'
import type { NamespaceRow } from '../../db/schema.js'
import { VISIBILITIES, visibilityLevel, visibilityName, type Visibility } from '../../policies/access-levels.js'
import { canCreateGroup, canOnGroup } from '../../policies/group-policy.js'
import { createGroup } from '../../services/groups/create-group.js'
import { deleteGroup } from '../../services/groups/delete-group.js'
import { updateGroup } from '../../services/groups/update-group.js'
import { csrfField, errorExplanation, html, page, type SafeHtml } from '../html.js'
import { VISIBILITY_CHOICES } from '../projects/settings.js'
import { formMethod, formOf, methodField, redirect, refusalOf, sendNotFound, sendPage, tokenOf, type SignedInVisit, type Visit } from '../visit.js'
import { groupChrome, groupUrl, visibleGroupAt } from './context.js'

/** A group's fields as a form shows them (the group's, or those just sent). */
interface GroupValues {
  name: string
  path: string
  description: string
  visibility: Visibility
  lfsEnabled: boolean
  requestAccessEnabled: boolean
}

function valuesOf(group: NamespaceRow): GroupValues {
  return {
    name: group.name, path: group.path, description: group.description, visibility: visibilityName(group.visibility_level),
    lfsEnabled: group.lfs_enabled === 1, requestAccessEnabled: group.request_access_enabled === 1,
  }
}

/** The `group[…]` fields sent; a field left out keeps `fallback`'s value (checkboxes: unticked is off). */
function submittedValues(req: FastifyRequest, fallback: GroupValues): GroupValues {
  const form = formOf(req, 'group')
  const visibility = VISIBILITIES.find((v) => v === form.visibility)
  return {
    name: form.name?.trim() ?? fallback.name,
    path: form.path?.trim() ?? fallback.path,
    description: form.description ?? fallback.description,
    visibility: visibility ?? fallback.visibility,
    lfsEnabled: form.lfs_enabled === '1',
    requestAccessEnabled: form.request_access_enabled === '1',
  }
}

function groupFields(values: GroupValues, pathPrefix: string): SafeHtml {
  const checkbox = (name: string, checked: boolean, label: string) =>
    html`<label class="checkbox"><input type="checkbox" name="group[${name}]" value="1"${checked ? html` checked` : ''}> ${label}</label>`
  return html`<label for="group_name">Group name</label><input type="text" id="group_name" name="group[name]" value="${values.name}" required>
<label for="group_path">Group URL: <span class="mono">${pathPrefix}</span></label><input type="text" id="group_path" name="group[path]" value="${values.path}" required>
<label for="group_description">Description</label><textarea id="group_description" name="group[description]" rows="3">${values.description}</textarea>
<fieldset><legend>Visibility</legend>${VISIBILITY_CHOICES.map((v) => html`<label class="checkbox"><input type="radio" name="group[visibility]" value="${v.value}"${v.value === values.visibility ? html` checked` : ''}> ${v.label}</label>`)}</fieldset>
<fieldset><legend>Permissions</legend>${checkbox('lfs_enabled', values.lfsEnabled, 'Git Large File Storage for the group\'s projects')}${checkbox('request_access_enabled', values.requestAccessEnabled, 'Allow users to request access')}</fieldset>`
}

/** The URL before a group's path: `/` at the top level, `/<parent's full path>/` in a parent. */
function pathPrefixOf(parentFullPath: string | null): string {
  return parentFullPath === null ? '/' : `/${parentFullPath}/`
}

function settingsPage(req: FastifyRequest, reply: FastifyReply, visit: Visit, loaded: LoadedGroup, values = valuesOf(loaded.group), errors: readonly string[] = [], status = 200): FastifyReply {
  const { group } = loaded
  const token = tokenOf(visit)
  const action = `${groupUrl(group)}/-/edit`
  return sendPage(reply, visit, status, page({ title: `Settings · ${group.full_name}`, user: visit.session?.user ?? null, csrfToken: token }, groupChrome(req.actor, loaded, 'settings', html`
<h1>Group settings</h1>
${errorExplanation(errors)}
<form class="issuable-form" method="post" action="${action}">${csrfField(token)}${methodField('PUT')}
${groupFields(values, pathPrefixOf(group.parent_id === null ? null : group.full_path.slice(0, -group.path.length - 1)))}
<button type="submit">Save changes</button></form>
<section aria-labelledby="advanced-title"><h2 id="advanced-title">Advanced</h2>
<form method="post" action="${action}">${csrfField(token)}<input type="hidden" name="action" value="delete">
<label for="confirm_path">Type <span class="mono">${group.path}</span> to delete the group with its subgroups and projects</label><input type="text" id="confirm_path" name="confirm_path" autocomplete="off">
<button type="submit">Delete the group</button></form></section>`)))
}

function mayAdmin(req: FastifyRequest, visit: Visit, loaded: LoadedGroup): boolean {
  return visit.session !== null && canOnGroup(req.actor, loaded.accessLevel, 'admin_group')
}

/** GET `/groups/<path>/-/edit`. */
export function groupSettingsPage(req: FastifyRequest, reply: FastifyReply, visit: Visit, loaded: LoadedGroup): FastifyReply {
  if (!mayAdmin(req, visit, loaded)) return sendNotFound(reply, visit)
  return settingsPage(req, reply, visit, loaded)
}

/** POST `/groups/<path>/-/edit`: save (`_method=put`) or delete (`action=delete` with the path typed). */
export async function groupSettingsForm(req: FastifyRequest, reply: FastifyReply, visit: SignedInVisit, loaded: LoadedGroup): Promise<FastifyReply> {
  if (!mayAdmin(req, visit, loaded) || req.actor === null) return sendNotFound(reply, visit)
  const { group } = loaded
  const body = req.body as Record<string, unknown>
  if (body.action === 'delete') {
    if (body.confirm_path !== group.path) return settingsPage(req, reply, visit, loaded, valuesOf(group), [`Type ${group.path} to confirm the deletion`], 422)
    await deleteGroup(req.ingot, group)
    return redirect(reply, visit, '/dashboard/groups')
  }
  if (formMethod(req) !== 'PUT') return sendNotFound(reply, visit)
  const values = submittedValues(req, valuesOf(group))
  let updated: NamespaceRow
  try {
    updated = await updateGroup(req.ingot.db, req.actor, group, {
      name: values.name, path: values.path, description: values.description, visibility: values.visibility,
      lfs_enabled: values.lfsEnabled, request_access_enabled: values.requestAccessEnabled,
    })
  } catch (err) {
    return settingsPage(req, reply, visit, loaded, values, refusalOf(err), 422)
  }
  return redirect(reply, visit, `${groupUrl(updated)}/-/edit`)
}

/** The parent a new group goes in (`parent_id` of the query or the form), null for a top-level one; undefined when the visitor may not create the group there. */
async function newGroupParent(req: FastifyRequest, parentId: unknown): Promise<NamespaceRow | null | undefined> {
  if (parentId === undefined || parentId === '') return canCreateGroup(req.actor, null) ? null : undefined
  if (typeof parentId !== 'string' || !/^\d{1,19}$/.test(parentId)) return undefined
  const parent = await visibleGroupAt(req, parentId)
  return parent !== null && canCreateGroup(req.actor, parent.accessLevel) ? parent.group : undefined
}

function newGroupPage(reply: FastifyReply, visit: SignedInVisit, parent: NamespaceRow | null, values: GroupValues, errors: readonly string[] = [], status = 200): FastifyReply {
  const token = tokenOf(visit)
  const title = parent === null ? 'New group' : `New subgroup of ${parent.full_name}`
  return sendPage(reply, visit, status, page({ title, user: visit.session.user, csrfToken: token }, html`<h1>${title}</h1>
${errorExplanation(errors)}
<form class="issuable-form" method="post" action="/groups">${csrfField(token)}${parent === null ? '' : html`<input type="hidden" name="group[parent_id]" value="${parent.id}">`}
${groupFields(values, pathPrefixOf(parent?.full_path ?? null))}
<button type="submit">Create group</button></form>`))
}

/** GET `/groups/new[?parent_id=]`. */
export async function newGroupForm(req: FastifyRequest, reply: FastifyReply, visit: SignedInVisit): Promise<FastifyReply> {
  const parent = await newGroupParent(req, (req.query as Record<string, unknown>).parent_id)
  if (parent === undefined) return sendNotFound(reply, visit)
  // A subgroup may not be more visible than its parent: the default is lowered to the parent's.
  const visibility = visibilityLevel(visit.settings.default_group_visibility)
  return newGroupPage(reply, visit, parent, {
    name: '', path: '', description: '', visibility: visibilityName(parent === null ? visibility : Math.min(visibility, parent.visibility_level)),
    lfsEnabled: true, requestAccessEnabled: false,
  })
}

/** POST `/groups`: creates the group (in `group[parent_id]` if given) and goes to it. */
export async function createGroupForm(req: FastifyRequest, reply: FastifyReply, visit: SignedInVisit): Promise<FastifyReply> {
  const parent = await newGroupParent(req, formOf(req, 'group').parent_id)
  if (parent === undefined || req.actor === null) return sendNotFound(reply, visit)
  const values = submittedValues(req, { name: '', path: '', description: '', visibility: visit.settings.default_group_visibility, lfsEnabled: true, requestAccessEnabled: false })
  let created: NamespaceRow
  try {
    created = await createGroup(req.ingot, req.actor, {
      name: values.name, path: values.path, description: values.description, visibility: values.visibility,
      lfs_enabled: values.lfsEnabled, request_access_enabled: values.requestAccessEnabled, parent,
    })
  } catch (err) {
    return newGroupPage(reply, visit, parent, values, refusalOf(err), 422)
  }
  return redirect(reply, visit, groupUrl(created))
}
