// What a group's pages share (namespaces.ts, members.ts, groups/settings.ts): the group loaded as
// the API loads it (the 404 page unless the visitor may see it), its URL, and its tabs: Overview,
// Members, and Settings for those who may change it.
import type { FastifyRequest } from 'fastify'
import { loadGroup, type LoadedGroup } from '../../api/load.js'
import type { Actor } from '../../auth/actor.js'
import { ApiError } from '../../common/errors.js'
import type { NamespaceRow } from '../../db/schema.js'
import { canOnGroup } from '../../policies/group-policy.js'
import { html, type SafeHtml } from '../html.js'
import { encodePath } from '../projects/context.js'

export type GroupTab = 'overview' | 'members' | 'settings'

/** The group at `fullPath` with the visitor's access level there, or null when they may not see it (or it is missing). */
export async function visibleGroupAt(req: FastifyRequest, fullPath: string): Promise<LoadedGroup | null> {
  try {
    return await loadGroup(req, fullPath)
  } catch (err) {
    if (err instanceof ApiError && err.statusCode === 404) return null
    throw err
  }
}

export function groupUrl(group: NamespaceRow): string {
  return `/groups/${encodePath(group.full_path)}`
}

/** The group's tabs above a page's own markup. */
export function groupChrome(actor: Actor | null, loaded: LoadedGroup, current: GroupTab, body: SafeHtml): SafeHtml {
  const base = groupUrl(loaded.group)
  const tab = (name: GroupTab, href: string, label: string) => html`<li><a href="${href}"${name === current ? html` aria-current="page"` : ''}>${label}</a></li>`
  return html`<nav class="project-tabs" aria-label="Group"><ul class="actions">${tab('overview', base, 'Overview')}${tab('members', `${base}/-/group_members`, 'Members')}${
    canOnGroup(actor, loaded.accessLevel, 'admin_group') ? tab('settings', `${base}/-/edit`, 'Settings') : ''}</ul></nav>
${body}`
}
