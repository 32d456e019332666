// The pages of OAuth applications, as markup from data: a user's own (/profile/applications, with
// the applications they authorized) and the administrator's instance-wide ones
// (/admin/applications). Both areas share one form and one application page.
import type { OauthApplicationRow, UserRow } from '../db/schema.js'
import type { AuthorizedApplication } from '../services/oauth/applications.js'
import { redirectUrisOf, scopesOf } from '../services/oauth/applications.js'
import { csrfField, errorExplanation, html, page, type SafeHtml } from './html.js'
import { actionButton, dateOf, scopeCheckboxes, type SignedInPage } from './profile-pages.js'
import { methodField } from './visit.js'

/** Where an area's pages are. */
export interface ApplicationArea {
  /** The application pages: `/oauth/applications` (a user's own) or `/admin/applications`. */
  path: string
  /** The list: `/profile/applications` or `/admin/applications`. */
  listPath: string
  /** The administrator's area: instance-wide applications, which may be trusted. */
  admin: boolean
}

/** What the application form shows: a new one's blanks, an application's values, or what a refused form sent. */
export interface ApplicationValues {
  name: string
  /** One URI per line. */
  redirectUri: string
  scopes: readonly string[]
  trusted: boolean
}

export const BLANK_APPLICATION: ApplicationValues = { name: '', redirectUri: '', scopes: [], trusted: false }

export function valuesOf(application: OauthApplicationRow): ApplicationValues {
  return {
    name: application.name,
    redirectUri: redirectUrisOf(application).join('\n'),
    scopes: scopesOf(application.scopes),
    trusted: application.trusted === 1,
  }
}

export interface ApplicationFormInput {
  area: ApplicationArea
  csrfToken: string
  /** The scopes the form offers (sudo to administrators only). */
  scopes: readonly string[]
  values: ApplicationValues
  errors?: readonly string[]
  /** The application being edited; none for a new one. */
  application?: OauthApplicationRow
}

/** The one form of both areas: new (POST to the area) or edit (PUT to the application). */
function applicationForm(input: ApplicationFormInput): SafeHtml {
  const { area, values, application } = input
  const [action, id] = application === undefined
    ? [area.path, 'new_doorkeeper_application']
    : [`${area.path}/${application.id}`, 'edit_doorkeeper_application']
  return html`${errorExplanation(input.errors ?? [])}
<form method="post" action="${action}" id="${id}">
${csrfField(input.csrfToken)}${application === undefined ? '' : methodField('PUT')}
<label for="doorkeeper_application_name">Name</label>
<input type="text" name="doorkeeper_application[name]" id="doorkeeper_application_name" value="${values.name}" required>
<label for="doorkeeper_application_redirect_uri">Redirect URI</label>
<textarea name="doorkeeper_application[redirect_uri]" id="doorkeeper_application_redirect_uri" rows="3" required>${values.redirectUri}</textarea>
<small>Use one line per URI</small>
${area.admin ? html`<label><input type="checkbox" name="doorkeeper_application[trusted]" value="1" id="doorkeeper_application_trusted"${values.trusted ? html` checked` : ''}> Trusted</label>
<small>Trusted applications are automatically authorized on OAuth flows: users are not asked for consent.</small>` : ''}
${scopeCheckboxes('doorkeeper_application', input.scopes, values.scopes)}
<button type="submit">${application === undefined ? 'Save application' : 'Save changes'}</button>
</form>`
}

export interface ProfileApplicationsPageInput extends SignedInPage {
  area: ApplicationArea
  /** The user's own applications and the form for a new one; null while user_oauth_applications is off. */
  own: { applications: readonly OauthApplicationRow[]; form: Omit<ApplicationFormInput, 'area' | 'csrfToken'> } | null
  authorized: readonly AuthorizedApplication[]
}

/** /profile/applications: the user's own applications (while users may register them), and the ones they authorized. */
export function profileApplicationsPage(input: ProfileApplicationsPageInput): string {
  const { own, area } = input
  return page({ title: 'Applications', csrfToken: input.csrfToken, notice: input.notice, user: input.user }, html`
<h1>Applications</h1>
${own === null ? '' : html`<h2>Add new application</h2>
${applicationForm({ area, csrfToken: input.csrfToken, ...own.form })}
<section>
<h2>Your applications (${own.applications.length})</h2>
${applicationsTable(area, own.applications, input.csrfToken)}
</section>`}
<section>
<h2>Authorized applications (${input.authorized.length})</h2>
${input.authorized.length === 0 ? html`<p>You don't have any authorized applications.</p>` : html`<table class="authorized-applications">
<thead><tr><th>Name</th><th>Authorized At</th><th>Scope</th><th></th></tr></thead>
<tbody>${input.authorized.map(({ application, authorizedAt, scopes }) => html`
<tr id="authorized-application-${application.id}"><td>${application.name}</td><td>${dateOf(authorizedAt)}</td><td>${scopes.join(', ')}</td>
<td>${actionButton(`/oauth/authorized_applications/${application.id}`, 'DELETE', 'Revoke', input.csrfToken)}</td></tr>`)}
</tbody></table>`}
</section>`)
}

export interface AdminApplicationsPageInput extends SignedInPage {
  area: ApplicationArea
  applications: readonly OauthApplicationRow[]
}

export function adminApplicationsPage(input: AdminApplicationsPageInput): string {
  return page({ title: 'System OAuth applications', csrfToken: input.csrfToken, notice: input.notice, user: input.user }, html`
<h1>System OAuth applications</h1>
<p>System OAuth applications don't belong to any user and can only be managed by admins.</p>
<p><a href="${input.area.path}/new" id="new-application">New application</a></p>
${applicationsTable(input.area, input.applications, input.csrfToken)}`)
}

function applicationsTable(area: ApplicationArea, applications: readonly OauthApplicationRow[], csrfToken: string): SafeHtml {
  if (applications.length === 0) return html`<p>No applications yet.</p>`
  return html`<table class="oauth-applications">
<thead><tr><th>Name</th><th>Callback URL</th>${area.admin ? html`<th>Trusted</th>` : ''}<th></th><th></th></tr></thead>
<tbody>${applications.map((application) => html`
<tr id="application_${application.id}"><td><a href="${area.path}/${application.id}">${application.name}</a></td>
<td>${redirectUrisOf(application).map((uri, i) => html`${i > 0 ? html`<br>` : ''}${uri}`)}</td>${area.admin ? html`<td>${application.trusted === 1 ? 'Y' : 'N'}</td>` : ''}
<td><a href="${area.path}/${application.id}/edit">Edit</a></td>
<td>${actionButton(`${area.path}/${application.id}`, 'DELETE', 'Destroy', csrfToken)}</td></tr>`)}
</tbody></table>`
}

export interface ApplicationFormPageInput extends ApplicationFormInput {
  user: UserRow
}

/** New and edit, in either area. */
export function applicationFormPage(input: ApplicationFormPageInput): string {
  const title = input.application === undefined ? 'New application' : 'Edit application'
  return page({ title, csrfToken: input.csrfToken, user: input.user }, html`
<h1>${title}</h1>
${applicationForm(input)}
<p><a href="${input.area.listPath}">Back to the applications</a></p>`)
}

export interface ApplicationPageInput extends SignedInPage {
  area: ApplicationArea
  application: OauthApplicationRow
  /** The secret, right after the application was made or its secret regenerated; never again. */
  secret?: string
}

export function applicationPage(input: ApplicationPageInput): string {
  const { area, application, csrfToken } = input
  const path = `${area.path}/${application.id}`
  return page({ title: `Application: ${application.name}`, csrfToken, notice: input.notice, user: input.user }, html`
<h1>Application: ${application.name}</h1>
<table class="application">
<tr><th>Application ID</th><td><input type="text" id="application_id" value="${application.uid}" readonly></td></tr>
<tr><th>Secret</th><td>${input.secret === undefined
    ? html`<p id="secret-hidden">The secret is shown only once, when the application is made or its secret renewed. Renew it to get a new one; the current one then stops working.</p>`
    : html`<input type="text" id="secret" value="${input.secret}" readonly><p>Copy it now: it will not be shown again.</p>`}</td></tr>
<tr><th>Callback URL</th><td>${redirectUrisOf(application).map((uri) => html`<div><code>${uri}</code></div>`)}</td></tr>
${area.admin ? html`<tr><th>Trusted</th><td>${application.trusted === 1 ? 'Y' : 'N'}</td></tr>` : ''}
<tr><th>Scopes</th><td><ul class="scopes-list">${scopesOf(application.scopes).map((scope) => html`<li>${scope}</li>`)}</ul></td></tr>
</table>
<form method="post" action="${path}/renew" id="renew-secret">${csrfField(csrfToken)}<button type="submit">Renew secret</button></form>
<p><a href="${path}/edit">Edit</a></p>
${actionButton(path, 'DELETE', 'Destroy', csrfToken)}
<p><a href="${area.listPath}">Back to the applications</a></p>`)
}
