// What every admin page shares: the guard (administrators alone; everyone else gets the 404 page,
// as a missing page) and the layout with the area's tabs.
import type { FastifyReply, FastifyRequest } from 'fastify'
import { findUserByUsername } from '../../finders/users-finder.js'
import type { UserRow } from '../../db/schema.js'
import { html, page, type SafeHtml } from '../html.js'
import { actorOf, forSignedIn, sendNotFound, sendPage, tokenOf, type SignedInVisit } from '../visit.js'

const ADMIN_TABS = [
  ['/admin', 'Overview'], ['/admin/users', 'Users'], ['/admin/projects', 'Projects'], ['/admin/groups', 'Groups'],
  ['/admin/runners', 'Runners'], ['/admin/background_jobs', 'Background jobs'], ['/admin/hooks', 'System hooks'],
  ['/admin/application_settings', 'Settings'], ['/admin/applications', 'Applications'],
] as const

export type AdminTab = typeof ADMIN_TABS[number][0]

export interface AdminPageOptions {
  status?: number
  alert?: string | null
  notice?: string | null
}

/** An admin page: the area's tabs with `current` marked, then the body. */
export function adminPage(reply: FastifyReply, visit: SignedInVisit, title: string, current: AdminTab, body: SafeHtml, options: AdminPageOptions = {}): FastifyReply {
  return sendPage(reply, visit, options.status ?? 200, page({
    title: `${title} · Admin`, user: visit.session.user, csrfToken: tokenOf(visit), wide: true, alert: options.alert, notice: options.notice,
  }, html`
<nav class="project-tabs" aria-label="Admin area"><ul class="actions">${ADMIN_TABS.map(([href, label]) => html`<li><a href="${href}"${href === current ? html` aria-current="page"` : ''}>${label}</a></li>`)}</ul></nav>
${body}`))
}

type AdminHandler = (req: FastifyRequest, reply: FastifyReply, visit: SignedInVisit) => Promise<FastifyReply>

/** A page of administrators only, read as the API reads a signed-in administrator. */
export function forAdmin(handler: AdminHandler) {
  return forSignedIn(async (req, reply, visit) => {
    if (visit.session.user.admin !== 1) return sendNotFound(reply, visit)
    req.actor = actorOf(visit)
    return handler(req, reply, visit)
  })
}

/** The `search` of a list's query, trimmed. */
export function searchOf(req: FastifyRequest): string {
  const value = (req.query as Record<string, unknown>).search
  return typeof value === 'string' ? value.trim() : ''
}

/** The user the `:username` of the path names (any case), or null. */
export async function userOfPath(req: FastifyRequest): Promise<UserRow | null> {
  const { username } = req.params as { username?: string }
  return username === undefined ? null : findUserByUsername(req.ingot.db, username)
}

/** ` checked` for a ticked checkbox. */
export function checked(on: boolean): SafeHtml | '' {
  return on ? html` checked` : ''
}
