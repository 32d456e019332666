// A project's webhooks and integrations at the original's URLs, for Maintainers (and admins), as the
// API's /projects/:id/hooks and /projects/:id/services routes allow them:
// `/-/settings/integrations` lists the webhooks (with the form to add one) and every integration
// with its active state; `/hooks/:id/edit` edits a webhook; `/-/services/:slug/edit` edits an
// integration's settings (secret ones never shown: left blank, they keep their saved value).
// Forms: POST `/hooks` adds, POST `/hooks/:id` with `_method=put|delete` saves or deletes, POST
// `/hooks/:id/test` sends the push sample as the API's hook test does and shows its result; POST
// `/-/services/:slug` with `_method=put` saves (and activates), `_method=delete` deactivates and
// clears; all through the API's services.
import type { FastifyReply } from 'fastify'
import type { IntegrationRow, WebHookRow } from '../../db/schema.js'
import { findProjectHook, listProjectHooks } from '../../finders/hooks-finder.js'
import { listProjectIntegrations } from '../../finders/integrations-finder.js'
import { canOnProject } from '../../policies/project-policy.js'
import { INTEGRATION_KINDS, integrationSlug, type EventFlag, type IntegrationField, type IntegrationKind } from '../../services/integrations/catalog.js'
import {
  clearIntegration, findIntegration, initialSettings, integrationUnavailable, parseSettings, saveIntegration, type IntegrationSettings,
} from '../../services/integrations/integrations.js'
import { testProjectHook } from '../../services/hooks/test-hooks.js'
import {
  PROJECT_HOOK_EVENTS, createProjectHook, deleteHook, updateProjectHook, type ProjectHookEvent, type ProjectHookInput,
} from '../../services/hooks/web-hooks.js'
import { csrfField, errorExplanation, html, type SafeHtml } from '../html.js'
import { pageNumber } from '../listings.js'
import { formMethod, formOf, methodField, redirect, refusalOf, sendNotFound, tokenOf } from '../visit.js'
import { settingsChrome } from './settings.js'
import { projectUrl, type ProjectPage, type ProjectPageRequest } from './context.js'
import { pageLinks, timeOf } from './issuables.js'

const HOOKS_PER_PAGE = 20

const HOOK_EVENT_LABELS: Readonly<Record<ProjectHookEvent, string>> = {
  push_events: 'Push events', tag_push_events: 'Tag push events', issues_events: 'Issues events',
  confidential_issues_events: 'Confidential issues events', merge_requests_events: 'Merge request events',
  note_events: 'Comments', job_events: 'Job events', pipeline_events: 'Pipeline events', wiki_page_events: 'Wiki page events',
}

const EVENT_LABELS: Readonly<Record<EventFlag, string>> = { ...HOOK_EVENT_LABELS, confidential_note_events: 'Confidential comments' }

/** The values a webhook form shows: a saved hook's, or what was sent. */
interface HookValues {
  url: string
  enableSslVerification: boolean
  branchFilter: string
  events: ReadonlySet<ProjectHookEvent>
}

/** A new hook's form, with the original's defaults: push events, SSL verification. */
const NEW_HOOK: HookValues = { url: '', enableSslVerification: true, branchFilter: '', events: new Set(['push_events']) }

function valuesOf(hook: WebHookRow): HookValues {
  return {
    url: hook.url, enableSslVerification: hook.enable_ssl_verification === 1, branchFilter: hook.push_events_branch_filter ?? '',
    events: new Set(PROJECT_HOOK_EVENTS.filter((event) => hook[event] === 1)),
  }
}

function mayAdminister(request: ProjectPageRequest): boolean {
  return request.visit.session !== null && canOnProject(request.req.actor, request.loaded, 'admin_project')
}

function integrationsUrl(request: ProjectPageRequest): string {
  return `${projectUrl(request.loaded)}/-/settings/integrations`
}

function integrationUrl(request: ProjectPageRequest, kind: IntegrationKind): string {
  return `${projectUrl(request.loaded)}/-/services/${kind.slug}`
}

interface Notices {
  errors?: readonly string[]
  notice?: string
}

/** A page of the integrations' settings, under the settings' sub-navigation, with the refusals or the notice of a form. */
function chrome(request: ProjectPageRequest, title: string, body: SafeHtml, status = 200, notices: Notices = {}): FastifyReply {
  return settingsChrome(request, 'integrations', title, html`${errorExplanation(notices.errors ?? [])}${body}`, status, notices.notice ?? null)
}

/** The fields of a webhook form; `saved` is the hook being edited (whose token is never shown). */
function hookFields(request: ProjectPageRequest, values: HookValues, saved: WebHookRow | null): SafeHtml {
  return html`${csrfField(tokenOf(request.visit))}
<label for="hook_url">URL</label><input type="url" id="hook_url" name="hook[url]" value="${values.url}" required placeholder="http://example.com/trigger-ci.json">
<label for="hook_token">Secret token${saved?.encrypted_token != null ? ' (saved; leave blank to keep it)' : ''}</label><input type="password" id="hook_token" name="hook[token]" autocomplete="off">
${saved?.encrypted_token != null ? html`<label class="checkbox"><input type="checkbox" name="hook[remove_token]" value="1"> Remove the secret token</label>` : ''}
<fieldset><legend>Trigger</legend>${PROJECT_HOOK_EVENTS.map((event) => html`<label class="checkbox"><input type="checkbox" name="hook[${event}]" value="1"${values.events.has(event) ? html` checked` : ''}> ${HOOK_EVENT_LABELS[event]}</label>`)}
<label for="hook_branch_filter">Push events of these branches only (a name or wildcard; blank for every branch)</label><input type="text" id="hook_branch_filter" name="hook[push_events_branch_filter]" value="${values.branchFilter}"></fieldset>
<label class="checkbox"><input type="checkbox" name="hook[enable_ssl_verification]" value="1"${values.enableSslVerification ? html` checked` : ''}> Enable SSL verification</label>`
}

function hookRow(request: ProjectPageRequest, hook: WebHookRow): SafeHtml {
  const base = `${projectUrl(request.loaded)}/hooks/${hook.id}`
  const token = tokenOf(request.visit)
  const events = PROJECT_HOOK_EVENTS.filter((event) => hook[event] === 1).map((event) => HOOK_EVENT_LABELS[event])
  const last = hook.last_delivery_at === null ? html`never delivered`
    : html`last delivery ${timeOf(hook.last_delivery_at)}: ${hook.last_delivery_error ?? `HTTP ${hook.last_delivery_status ?? '?'}`}`
  return html`<li><div class="title mono">${hook.url}</div>
<div class="muted">${events.length === 0 ? 'No events' : events.join(', ')} · SSL verification: ${hook.enable_ssl_verification === 1 ? 'enabled' : 'disabled'} · ${last}</div>
<div class="actions"><a href="${base}/edit" aria-label="Edit webhook ${hook.url}">Edit</a>
<form method="post" action="${base}/test">${csrfField(token)}<input type="hidden" name="trigger" value="push_events"><button type="submit" aria-label="Test webhook ${hook.url} with push events">Test</button></form>
<form method="post" action="${base}">${csrfField(token)}${methodField('DELETE')}<button type="submit" aria-label="Delete webhook ${hook.url}">Delete</button></form></div></li>`
}

async function integrationsPage(request: ProjectPageRequest, values: HookValues = NEW_HOOK, status = 200, notices: Notices = {}): Promise<FastifyReply> {
  const { req, loaded } = request
  const number = pageNumber(req.query)
  const [hooks, rows] = await Promise.all([
    listProjectHooks(req.ingot.db, loaded.project.id, { page: number, per_page: HOOKS_PER_PAGE }),
    listProjectIntegrations(req.ingot.db, loaded.project.id),
  ])
  const rowOf = new Map(rows.map((row) => [row.kind, row]))
  const kinds = INTEGRATION_KINDS.filter((kind) => !integrationUnavailable(kind, rowOf.get(kind.slug) ?? null))
  return chrome(request, 'Integrations', html`<h1>Integrations</h1>
<section aria-labelledby="webhooks-title"><h2 id="webhooks-title">Webhooks</h2>
<p class="muted">Webhooks send a POST request with the event's data to a URL when something happens in the project.</p>
<form class="issuable-form" method="post" action="${projectUrl(loaded)}/hooks">${hookFields(request, values, null)}
<button type="submit">Add webhook</button></form>
<h3>Webhooks (${hooks.total})</h3>
${hooks.items.length === 0 ? html`<p class="muted">No webhooks.</p>` : html`<ul class="issuable-list">${hooks.items.map((hook) => hookRow(request, hook))}</ul>`}
${pageLinks(integrationsUrl(request), new URLSearchParams(), number, HOOKS_PER_PAGE, hooks.total)}</section>
<section aria-labelledby="services-title"><h2 id="services-title">Project services</h2>
<table><thead><tr><th scope="col">Service</th><th scope="col">State</th></tr></thead><tbody>${kinds.map((kind) => html`<tr>
<td><a href="${integrationUrl(request, kind)}/edit">${kind.title}</a></td><td>${rowOf.get(kind.slug)?.active === 1 ? 'Active' : 'Inactive'}</td></tr>`)}</tbody></table></section>`, status, notices)
}

function hookEditPage(request: ProjectPageRequest, hook: WebHookRow, values: HookValues = valuesOf(hook), errors: readonly string[] = [], status = 200): FastifyReply {
  const action = `${projectUrl(request.loaded)}/hooks/${hook.id}`
  return chrome(request, 'Edit webhook', html`<h1>Edit webhook</h1>
<form class="issuable-form" method="post" action="${action}">${methodField('PUT')}${hookFields(request, values, hook)}
<button type="submit">Save changes</button></form>
<p><a href="${integrationsUrl(request)}">Back to the integrations</a></p>`, status, { errors })
}

/** `/-/settings/integrations`. */
export const integrationsSettingsPage: ProjectPage = async (request) => {
  if (request.rest.length > 0 || !mayAdminister(request)) return sendNotFound(request.reply, request.visit)
  return integrationsPage(request)
}

async function hookOf(request: ProjectPageRequest, id: string | undefined): Promise<WebHookRow | null> {
  return id === undefined || !/^\d{1,19}$/.test(id) ? null : findProjectHook(request.req.ingot.db, request.loaded.project.id, Number(id))
}

/** `/hooks/:id/edit`. */
export const hookPages: ProjectPage = async (request) => {
  const { reply, visit, rest } = request
  if (!mayAdminister(request) || rest.length !== 2 || rest[1] !== 'edit') return sendNotFound(reply, visit)
  const hook = await hookOf(request, rest[0])
  return hook === null ? sendNotFound(reply, visit) : hookEditPage(request, hook)
}

function submittedHook(request: ProjectPageRequest): { values: HookValues; input: ProjectHookInput } {
  const form = formOf(request.req, 'hook')
  const values: HookValues = {
    url: (form.url ?? '').trim(), enableSslVerification: form.enable_ssl_verification === '1', branchFilter: (form.push_events_branch_filter ?? '').trim(),
    events: new Set(PROJECT_HOOK_EVENTS.filter((event) => form[event] === '1')),
  }
  const token = form.remove_token === '1' ? '' : form.token ?? ''
  const input: ProjectHookInput = {
    url: values.url, enable_ssl_verification: values.enableSslVerification, push_events_branch_filter: values.branchFilter,
    events: Object.fromEntries(PROJECT_HOOK_EVENTS.map((event) => [event, values.events.has(event)])),
    // A blank token field keeps the saved token; "Remove" clears it.
    ...(token === '' && form.remove_token !== '1' ? {} : { token }),
  }
  return { values, input }
}

/** POST `/hooks`, `/hooks/:id` (`_method=put|delete`) and `/hooks/:id/test`. */
export const hookForms: ProjectPage = async (request) => {
  const { req, reply, visit, loaded, rest } = request
  if (!mayAdminister(request)) return sendNotFound(reply, visit)
  if (rest.length === 0) {
    const { values, input } = submittedHook(request)
    try {
      await createProjectHook(req.ingot, loaded.project.id, input)
    } catch (err) {
      return integrationsPage(request, values, 422, { errors: refusalOf(err) })
    }
    return redirect(reply, visit, integrationsUrl(request))
  }
  const hook = await hookOf(request, rest[0])
  if (hook === null || rest.length > 2) return sendNotFound(reply, visit)
  if (rest[1] === 'test') {
    try {
      await testProjectHook(req.ingot, hook, loaded, visit.session!.user, 'push_events')
    } catch (err) {
      return integrationsPage(request, NEW_HOOK, 422, { errors: refusalOf(err) })
    }
    return integrationsPage(request, NEW_HOOK, 200, { notice: 'Hook executed successfully: the receiver answered with a 2xx status.' })
  }
  if (rest.length !== 1) return sendNotFound(reply, visit)
  const method = formMethod(req)
  if (method === 'DELETE') {
    await deleteHook(req.ingot.db, hook)
    return redirect(reply, visit, integrationsUrl(request))
  }
  if (method !== 'PUT') return sendNotFound(reply, visit)
  const { values, input } = submittedHook(request)
  try {
    await updateProjectHook(req.ingot, hook, input)
  } catch (err) {
    return hookEditPage(request, hook, values, refusalOf(err), 422)
  }
  return redirect(reply, visit, integrationsUrl(request))
}

/** The kind a `/-/services/:slug` URL names (its own slug or the original's) and the project's row of it; null when there is none to edit. */
async function integrationOf(request: ProjectPageRequest): Promise<{ kind: IntegrationKind; row: IntegrationRow | null } | null> {
  const named = integrationSlug(request.rest[0] ?? '')
  if (named === undefined) return null
  const row = await findIntegration(request.req.ingot.db, request.loaded.project.id, named.kind)
  return integrationUnavailable(named.kind, row) ? null : { kind: named.kind, row }
}

function fieldLabel(field: IntegrationField): string {
  const words = field.name.replace(/_/g, ' ')
  return `${words.charAt(0).toUpperCase()}${words.slice(1)}${field.required === true ? ' (required)' : ''}`
}

function settingInput(field: IntegrationField, value: IntegrationSettings[string] | undefined, hasSecret: boolean): SafeHtml {
  const id = `service_${field.name}`
  const name = `service[${field.name}]`
  if (field.type === 'boolean') {
    return html`<label class="checkbox"><input type="checkbox" id="${id}" name="${name}" value="1"${value === true ? html` checked` : ''}> ${fieldLabel(field)}</label>`
  }
  if (field.secret === true) {
    return html`<label for="${id}">${fieldLabel(field)}${hasSecret ? ' (saved; leave blank to keep it)' : ''}</label><input type="password" id="${id}" name="${name}" autocomplete="off">`
  }
  const shown = value === undefined || value === null ? '' : String(value)
  const type = field.type === 'url' ? 'url' : field.type === 'integer' ? 'number' : 'text'
  return html`<label for="${id}">${fieldLabel(field)}</label><input type="${type}" id="${id}" name="${name}" value="${shown}">`
}

interface ServiceFormValues {
  settings: IntegrationSettings
  events: Partial<Record<EventFlag, boolean>>
}

function serviceEditPage(request: ProjectPageRequest, kind: IntegrationKind, row: IntegrationRow | null, values?: ServiceFormValues, errors: readonly string[] = [], status = 200): FastifyReply {
  const saved = row === null ? initialSettings(kind) : parseSettings(request.req.ingot.secrets, row)
  const settings = values?.settings ?? saved
  const eventOn = (event: EventFlag) => values?.events[event] ?? (row === null ? true : row[event] === 1)
  const action = integrationUrl(request, kind)
  const token = tokenOf(request.visit)
  return chrome(request, kind.title, html`<h1>${kind.title}</h1>
<p>${row?.active === 1 ? 'Active.' : 'Inactive: saving the settings activates it.'}</p>
<form class="issuable-form" method="post" action="${action}">${csrfField(token)}${methodField('PUT')}
${kind.fields.map((field) => settingInput(field, settings[field.name], field.secret === true && typeof saved[field.name] === 'string' && saved[field.name] !== ''))}
${kind.events.length === 0 ? '' : html`<fieldset><legend>Trigger</legend>${kind.events.map((event) => html`<label class="checkbox"><input type="checkbox" name="service[${event}]" value="1"${eventOn(event) ? html` checked` : ''}> ${EVENT_LABELS[event]}</label>`)}</fieldset>`}
<button type="submit">Save changes</button></form>
${row?.active === 1 ? html`<form method="post" action="${action}">${csrfField(token)}${methodField('DELETE')}<button type="submit">Deactivate and clear the settings</button></form>` : ''}
<p><a href="${integrationsUrl(request)}">Back to the integrations</a></p>`, status, { errors })
}

/** `/-/services/:slug/edit`. */
export const servicePages: ProjectPage = async (request) => {
  const { reply, visit, rest } = request
  if (!mayAdminister(request) || rest.length !== 2 || rest[1] !== 'edit') return sendNotFound(reply, visit)
  const found = await integrationOf(request)
  return found === null ? sendNotFound(reply, visit) : serviceEditPage(request, found.kind, found.row)
}

/** The form's settings as the service takes them: a blank secret keeps the saved one, an unticked box is false. */
function submittedService(request: ProjectPageRequest, kind: IntegrationKind): { values: ServiceFormValues; errors: string[] } {
  const form = formOf(request.req, 'service')
  const settings: IntegrationSettings = {}
  const errors: string[] = []
  for (const field of kind.fields) {
    const sent = (form[field.name] ?? '').trim()
    if (field.type === 'boolean') settings[field.name] = sent === '1'
    else if (field.secret === true) {
      if (sent !== '') settings[field.name] = sent
    } else if (field.type === 'integer') {
      if (sent !== '' && !/^-?\d{1,9}$/.test(sent)) errors.push(`${fieldLabel(field)} is not a number`)
      settings[field.name] = sent === '' ? null : Number(sent)
    } else settings[field.name] = sent
  }
  const events = Object.fromEntries(kind.events.map((event) => [event, form[event] === '1']))
  return { values: { settings, events }, errors }
}

/** The service refuses settings with the original's bare 400; the form says what to look at. */
function settingsRefusal(err: unknown): string[] {
  return refusalOf(err).map((message) => (message === '400 Bad Request'
    ? 'The settings were refused: fill in every required setting, with web addresses (http or https) that Ingot may reach where a URL is asked for.'
    : message))
}

/** POST `/-/services/:slug` with `_method=put` (save, activate) or `_method=delete` (deactivate, clear). */
export const serviceForms: ProjectPage = async (request) => {
  const { req, reply, visit, loaded, rest } = request
  if (!mayAdminister(request) || rest.length !== 1) return sendNotFound(reply, visit)
  const found = await integrationOf(request)
  if (found === null) return sendNotFound(reply, visit)
  const { kind, row } = found
  const method = formMethod(req)
  if (method === 'DELETE') {
    await clearIntegration(req.ingot.db, loaded.project.id, kind)
    return redirect(reply, visit, integrationsUrl(request))
  }
  if (method !== 'PUT') return sendNotFound(reply, visit)
  const { values, errors } = submittedService(request, kind)
  if (errors.length > 0) return serviceEditPage(request, kind, row, values, errors, 422)
  try {
    await saveIntegration(req.ingot, loaded.project.id, kind, values)
  } catch (err) {
    return serviceEditPage(request, kind, row, values, settingsRefusal(err), 422)
  }
  return redirect(reply, visit, integrationsUrl(request))
}
