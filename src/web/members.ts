// The members of a project or a group at the original's URLs: `/<project>/project_members` (also
// under `/-/`) and `/groups/<path>/-/group_members`, those the source's groups give included, with
// access levels and expiry dates. To those who may manage them (the API's admin_project_member:
// Maintainers; admin_group_member: Owners; administrators) the page adds forms: POST `…_members`
// adds a user by username, POST `…_members/:id` (a direct membership's id) with `_method=put`
// changes its access level and expiry date, with `_method=delete` removes it. Every change goes
// through the API's member services, whose refusals (a member already, the last Owner of a group,
// the owner of a personal project) the page shows with 422.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { LoadedGroup } from '../api/load.js'
import { paginate } from '../common/pages.js'
import { findAllMembers, findDirectMemberById } from '../finders/members-finder.js'
import { findUserByUsername } from '../finders/users-finder.js'
import { GROUP_ACCESS_LEVELS, PROJECT_ACCESS_LEVELS } from '../policies/access-levels.js'
import { canOnGroup } from '../policies/group-policy.js'
import { canOnProject } from '../policies/project-policy.js'
import { addMember } from '../services/members/add-member.js'
import type { MemberSourceRef } from '../services/members/member-rules.js'
import { removeMember } from '../services/members/remove-member.js'
import { updateMember } from '../services/members/update-member.js'
import { csrfField, errorExplanation, html, page, type SafeHtml } from './html.js'
import { LIST_PER_PAGE, pageNumber } from './listings.js'
import { groupChrome, groupUrl } from './groups/context.js'
import { projectChrome, projectUrl, type ProjectPage, type ProjectPageRequest } from './projects/context.js'
import { pageLinks, userLink } from './projects/issuables.js'
import { formMethod, formOf, methodField, redirect, refusalOf, sendNotFound, sendPage, tokenOf, type Visit } from './visit.js'

const ACCESS_LEVEL_NAMES: Readonly<Record<number, string>> = { 10: 'Guest', 20: 'Reporter', 30: 'Developer', 40: 'Maintainer', 50: 'Owner' }

const DATE = /^\d{4}-\d{2}-\d{2}$/

/** A project or group as its members page sees it. */
interface MembersSource {
  ref: MemberSourceRef
  /** The page's URL; forms post to it and to `<url>/<membership id>`. */
  url: string
  name: string
  /** Whether the visitor may add, change and remove members (the API's rule). */
  canManage: boolean
  /** The page around the members' markup: the project's header or the group's tabs. */
  chrome(body: SafeHtml): SafeHtml
}

interface ListedMember {
  user: { username: string; name: string }
  accessLevel: number
  expiresAt: string | null
  /** The id of a direct membership the visitor may change; null for one a group gives, or a visitor who may not. */
  editableId: number | null
}

/** The values of the form that adds a member, as sent. */
interface NewMember {
  username: string
  accessLevel: string
  expiresAt: string
}

const NO_NEW_MEMBER: NewMember = { username: '', accessLevel: '30', expiresAt: '' }

function accessLevelOptions(source: MembersSource, selected: number): SafeHtml {
  const levels: readonly number[] = source.ref.type === 'project' ? PROJECT_ACCESS_LEVELS : GROUP_ACCESS_LEVELS
  // A level the list lacks (the Owner of a personal project) stays shown as it is.
  const shown = levels.includes(selected) ? levels : [...levels, selected]
  return html`${shown.map((level) => html`<option value="${level}"${level === selected ? html` selected` : ''}>${ACCESS_LEVEL_NAMES[level] ?? level}</option>`)}`
}

function membersTable(source: MembersSource, token: string | null, members: readonly ListedMember[]): SafeHtml {
  if (members.length === 0) return html`<p class="muted">No members.</p>`
  const manages = source.canManage && token !== null
  const row = (m: ListedMember) => {
    const who = html`<td>${userLink(m.user)} <span class="muted">@${m.user.username}</span></td>`
    const shown = html`<td>${ACCESS_LEVEL_NAMES[m.accessLevel] ?? m.accessLevel}</td><td>${m.expiresAt ?? html`<span class="muted">Never</span>`}</td>`
    if (!manages) return html`<tr>${who}${shown}</tr>`
    if (m.editableId === null) return html`<tr>${who}${shown}<td class="muted">Through a group</td></tr>`
    const form = `member_${m.editableId}`
    const action = `${source.url}/${m.editableId}`
    return html`<tr>${who}
<td><label class="visually-hidden" for="${form}_access_level">Access level of @${m.user.username}</label><select id="${form}_access_level" name="member[access_level]" form="${form}">${accessLevelOptions(source, m.accessLevel)}</select></td>
<td><label class="visually-hidden" for="${form}_expires_at">Expiry date of @${m.user.username}</label><input type="date" id="${form}_expires_at" name="member[expires_at]" value="${m.expiresAt ?? ''}" form="${form}"></td>
<td><form id="${form}" method="post" action="${action}">${csrfField(token)}${methodField('PUT')}<button type="submit" aria-label="Save the membership of @${m.user.username}">Save</button></form>
<form method="post" action="${action}">${csrfField(token)}${methodField('DELETE')}<button type="submit" aria-label="Remove @${m.user.username}">Remove</button></form></td></tr>`
  }
  return html`<table><thead><tr><th scope="col">Member</th><th scope="col">Access</th><th scope="col">Expires</th>${manages ? html`<th scope="col">Actions</th>` : ''}</tr></thead>
<tbody>${members.map(row)}</tbody></table>`
}

function addMemberForm(source: MembersSource, token: string, values: NewMember): SafeHtml {
  return html`<section aria-labelledby="add-member-title"><h2 id="add-member-title">Add a member</h2>
<form class="inline-form" method="post" action="${source.url}">${csrfField(token)}
<div><label for="member_username">Username</label><input type="text" id="member_username" name="member[username]" value="${values.username}" required></div>
<div><label for="member_access_level">Access level</label><select id="member_access_level" name="member[access_level]">${accessLevelOptions(source, Number(values.accessLevel))}</select></div>
<div><label for="member_expires_at">Expires on (optional)</label><input type="date" id="member_expires_at" name="member[expires_at]" value="${values.expiresAt}"></div>
<button type="submit">Add member</button></form></section>`
}

async function membersPage(
  req: FastifyRequest, reply: FastifyReply, visit: Visit, source: MembersSource,
  values: NewMember = NO_NEW_MEMBER, errors: readonly string[] = [], status = 200,
): Promise<FastifyReply> {
  const { db } = req.ingot
  const number = pageNumber(req.query)
  const found = await paginate(db, findAllMembers(db, source.ref), { page: number, per_page: LIST_PER_PAGE })
  const token = source.canManage ? tokenOf(visit) : null
  const members = found.items.map((row) => ({
    user: row,
    accessLevel: row.member_access_level,
    expiresAt: row.member_expires_at,
    editableId: row.member_source_type === source.ref.type && row.member_source_id === source.ref.id ? row.member_id : null,
  }))
  return sendPage(reply, visit, status, page({ title: `Members · ${source.name}`, user: visit.session?.user ?? null, csrfToken: token ?? undefined, wide: true }, source.chrome(html`
<h1>Members of ${source.name}</h1>
${errorExplanation(errors)}
${token === null ? '' : addMemberForm(source, token, values)}
${membersTable(source, token, members)}
${pageLinks(source.url, new URLSearchParams(), number, LIST_PER_PAGE, found.total)}`)))
}

/** An expiry date as sent: '' for none, null when it is no date at all. */
function expiryOf(value: string | undefined): string | null | undefined {
  const date = (value ?? '').trim()
  if (date === '') return ''
  return DATE.test(date) ? date : null
}

async function memberForms(req: FastifyRequest, reply: FastifyReply, visit: Visit, source: MembersSource, rest: readonly string[]): Promise<FastifyReply> {
  if (!source.canManage || req.actor === null) return sendNotFound(reply, visit)
  const { db } = req.ingot
  const form = formOf(req, 'member')
  const expiresAt = expiryOf(form.expires_at)
  const badDate = 'Expires at is not a date (YYYY-MM-DD)'
  if (rest.length === 0 && formMethod(req) === 'POST') {
    const values: NewMember = { username: (form.username ?? '').trim().replace(/^@/, ''), accessLevel: form.access_level ?? '', expiresAt: form.expires_at ?? '' }
    const user = values.username === '' ? null : await findUserByUsername(db, values.username)
    if (user === null) return membersPage(req, reply, visit, source, values, [`There is no user with the username ${values.username}`], 422)
    if (expiresAt === null) return membersPage(req, reply, visit, source, values, [badDate], 422)
    try {
      await addMember(db, req.actor, {
        sourceType: source.ref.type, sourceId: source.ref.id, userId: user.id, accessLevel: Number(values.accessLevel), expiresAt: expiresAt === '' ? null : expiresAt,
      }, { rejectPastExpiry: true })
    } catch (err) {
      return membersPage(req, reply, visit, source, values, refusalOf(err), 422)
    }
    return redirect(reply, visit, source.url)
  }
  const method = formMethod(req)
  const member = rest.length === 1 && /^\d{1,19}$/.test(rest[0]!) && (method === 'PUT' || method === 'DELETE')
    ? await findDirectMemberById(db, source.ref, Number(rest[0])) : undefined
  if (member === undefined) return sendNotFound(reply, visit)
  if (method === 'PUT' && expiresAt === null) return membersPage(req, reply, visit, source, NO_NEW_MEMBER, [badDate], 422)
  try {
    if (method === 'PUT') await updateMember(db, source.ref, member, { accessLevel: Number(form.access_level), expiresAt: expiresAt === '' ? null : expiresAt })
    else await removeMember(db, source.ref, member)
  } catch (err) {
    return membersPage(req, reply, visit, source, NO_NEW_MEMBER, refusalOf(err), 422)
  }
  return redirect(reply, visit, source.url)
}

function projectSource({ req, visit, loaded }: ProjectPageRequest): MembersSource {
  return {
    ref: { type: 'project', id: loaded.project.id },
    url: `${projectUrl(loaded)}/project_members`,
    name: loaded.project.name,
    canManage: visit.session !== null && canOnProject(req.actor, loaded, 'admin_project_member'),
    chrome: (body) => projectChrome(req.actor, loaded, 'members', body),
  }
}

function groupSource(req: FastifyRequest, visit: Visit, loaded: LoadedGroup): MembersSource {
  return {
    ref: { type: 'group', id: loaded.group.id },
    url: `${groupUrl(loaded.group)}/-/group_members`,
    name: loaded.group.full_name,
    canManage: visit.session !== null && canOnGroup(req.actor, loaded.accessLevel, 'admin_group_member'),
    chrome: (body) => groupChrome(req.actor, loaded, 'members', body),
  }
}

export const projectMembersPage: ProjectPage = async (request) => {
  if (request.rest.length > 0) return sendNotFound(request.reply, request.visit)
  return membersPage(request.req, request.reply, request.visit, projectSource(request))
}

export const projectMemberForms: ProjectPage = (request) => memberForms(request.req, request.reply, request.visit, projectSource(request), request.rest)

export function groupMembersPage(req: FastifyRequest, reply: FastifyReply, visit: Visit, loaded: LoadedGroup): Promise<FastifyReply> {
  return membersPage(req, reply, visit, groupSource(req, visit, loaded))
}

/** The forms posted to `/groups/<path>/-/group_members[/<id>]`; `rest` is what follows `group_members`. */
export function groupMemberForms(req: FastifyRequest, reply: FastifyReply, visit: Visit, loaded: LoadedGroup, rest: readonly string[]): Promise<FastifyReply> {
  return memberForms(req, reply, visit, groupSource(req, visit, loaded), rest)
}
