// The admin area's system hooks, at the original's URLs: `/admin/hooks` (the list, its last
// deliveries, and the form that adds one), `/admin/hooks/:id/edit` and its form (`_method=patch`;
// a blank secret token keeps the one set), `_method=delete` on `/admin/hooks/:id`, and
// `/admin/hooks/:id/test` (sends the original's sample event, as the API's GET /hooks/:id does).
// Everything goes through the services of the API's /hooks endpoints, with their validation.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import type { WebHookRow } from '../../db/schema.js'
import { findSystemHook, listSystemHooks } from '../../finders/hooks-finder.js'
import { testSystemHook } from '../../services/hooks/test-hooks.js'
import { SYSTEM_HOOK_EVENTS, createSystemHook, deleteHook, updateSystemHook, type HookInput, type SystemHookEvent } from '../../services/hooks/web-hooks.js'
import { csrfField, errorExplanation, html, type SafeHtml } from '../html.js'
import { LIST_PER_PAGE, pageNumber } from '../listings.js'
import { pageLinks, timeOf } from '../projects/issuables.js'
import { WEB, formMethod, formOf, idParam, methodField, redirect, refusalOf, sendNotFound, tokenOf, type SignedInVisit } from '../visit.js'
import { adminPage, checked, forAdmin } from './layout.js'

const EVENT_LABELS: Record<SystemHookEvent, string> = {
  push_events: 'Push events (in every project)',
  tag_push_events: 'Tag push events',
  merge_requests_events: 'Merge request events',
  repository_update_events: 'Repository update events',
}

/** What the form shows: a hook's settings, or what was sent when it was refused (never the token). */
interface HookValues {
  url: string
  events: Record<SystemHookEvent, boolean>
  enableSslVerification: boolean
}

const NEW_HOOK: HookValues = {
  url: '', events: { push_events: false, tag_push_events: false, merge_requests_events: false, repository_update_events: true }, enableSslVerification: true,
}

function valuesOf(hook: WebHookRow): HookValues {
  return {
    url: hook.url, events: Object.fromEntries(SYSTEM_HOOK_EVENTS.map((event) => [event, hook[event] === 1])) as Record<SystemHookEvent, boolean>,
    enableSslVerification: hook.enable_ssl_verification === 1,
  }
}

function sentValues(req: FastifyRequest): { values: HookValues; token: string } {
  const form = formOf(req, 'hook')
  return {
    values: {
      url: (form.url ?? '').trim(),
      events: Object.fromEntries(SYSTEM_HOOK_EVENTS.map((event) => [event, form[event] === '1'])) as Record<SystemHookEvent, boolean>,
      enableSslVerification: form.enable_ssl_verification === '1',
    },
    token: form.token ?? '',
  }
}

function inputOf({ values, token }: { values: HookValues; token: string }): HookInput<SystemHookEvent> {
  return { url: values.url, events: values.events, enable_ssl_verification: values.enableSslVerification, ...(token === '' ? {} : { token }) }
}

function hookForm(visit: SignedInVisit, action: string, values: HookValues, editing: boolean): SafeHtml {
  return html`<form class="issuable-form" method="post" action="${action}">${csrfField(tokenOf(visit))}${editing ? methodField('PATCH') : ''}
<label for="hook_url">URL</label><input type="url" id="hook_url" name="hook[url]" value="${values.url}" required>
<label for="hook_token">Secret token${editing ? ' (blank keeps the one set)' : ''}</label><input type="password" id="hook_token" name="hook[token]" autocomplete="off">
<fieldset><legend>Trigger</legend><p class="muted">System hooks are sent on every user, group and project change; these add more.</p>
${SYSTEM_HOOK_EVENTS.map((event) => html`<label class="checkbox"><input type="checkbox" name="hook[${event}]" value="1"${checked(values.events[event])}> ${EVENT_LABELS[event]}</label>`)}
</fieldset>
<label class="checkbox"><input type="checkbox" name="hook[enable_ssl_verification]" value="1"${checked(values.enableSslVerification)}> Enable SSL verification</label>
<button type="submit">${editing ? 'Save changes' : 'Add system hook'}</button></form>`
}

function lastDelivery(hook: WebHookRow): SafeHtml {
  if (hook.last_delivery_at === null) return html`<span class="muted">Never sent</span>`
  const outcome = hook.last_delivery_error === null ? `HTTP ${hook.last_delivery_status ?? ''}` : hook.last_delivery_error
  return html`${timeOf(hook.last_delivery_at)}: ${outcome}${hook.failures_in_a_row > 0 ? html` <span class="badge">${hook.failures_in_a_row} failures in a row</span>` : ''}`
}

interface ListExtras {
  values?: HookValues
  errors?: readonly string[]
  notice?: string
  status?: number
}

async function hooksPage(req: FastifyRequest, reply: FastifyReply, visit: SignedInVisit, extras: ListExtras = {}): Promise<FastifyReply> {
  const number = pageNumber(req.query)
  const found = await listSystemHooks(req.ingot.db, { page: number, per_page: LIST_PER_PAGE })
  const token = tokenOf(visit)
  return adminPage(reply, visit, 'System hooks', '/admin/hooks', html`<h1>System hooks</h1>
<p class="muted">A system hook receives a POST of each event of the instance (users, groups, projects, and the triggers below) at its URL.</p>
${found.items.length === 0 ? html`<p class="muted">No system hooks.</p>` : html`<table><thead><tr><th scope="col">URL</th><th scope="col">Triggers</th><th scope="col">Last delivery</th><th scope="col">Actions</th></tr></thead><tbody>${found.items.map((hook) => html`<tr>
<td>${hook.url}${hook.enable_ssl_verification === 1 ? '' : html` <span class="badge">SSL verification off</span>`}</td>
<td>${SYSTEM_HOOK_EVENTS.filter((event) => hook[event] === 1).map((event) => html`<span class="badge">${event.replace(/_events$/, '').replace(/_/g, ' ')}</span> `)}</td>
<td>${lastDelivery(hook)}</td>
<td><a href="/admin/hooks/${hook.id}/edit">Edit</a>
<form class="inline-form" method="post" action="/admin/hooks/${hook.id}/test">${csrfField(token)}<button type="submit" aria-label="Test hook ${hook.id}">Test</button></form>
<form class="inline-form" method="post" action="/admin/hooks/${hook.id}">${csrfField(token)}${methodField('DELETE')}<button type="submit" aria-label="Delete hook ${hook.id}">Delete</button></form></td></tr>`)}</tbody></table>`}
${pageLinks('/admin/hooks', new URLSearchParams(), number, LIST_PER_PAGE, found.total)}
<section aria-labelledby="new-hook-title"><h2 id="new-hook-title">Add a system hook</h2>
${errorExplanation(extras.errors ?? [])}
${hookForm(visit, '/admin/hooks', extras.values ?? NEW_HOOK, false)}</section>`, { status: extras.status ?? 200, notice: extras.notice ?? null })
}

function editPage(reply: FastifyReply, visit: SignedInVisit, hook: WebHookRow, values: HookValues, errors: readonly string[], status: number): FastifyReply {
  return adminPage(reply, visit, 'Edit system hook', '/admin/hooks', html`<h1>Edit system hook</h1>
${errorExplanation(errors)}
${hookForm(visit, `/admin/hooks/${hook.id}`, values, true)}`, { status })
}

async function hookOf(req: FastifyRequest): Promise<WebHookRow | null> {
  const id = idParam(req)
  return id === null ? null : findSystemHook(req.ingot.db, id)
}

const hookPages: FastifyPluginAsync = async (app) => {
  app.get('/admin/hooks', WEB, forAdmin(async (req, reply, visit) => hooksPage(req, reply, visit)))

  app.post('/admin/hooks', WEB, forAdmin(async (req, reply, visit) => {
    const sent = sentValues(req)
    try {
      await createSystemHook(req.ingot, inputOf(sent))
    } catch (err) {
      return hooksPage(req, reply, visit, { values: sent.values, errors: refusalOf(err), status: 422 })
    }
    return redirect(reply, visit, '/admin/hooks')
  }))

  app.get('/admin/hooks/:id/edit', WEB, forAdmin(async (req, reply, visit) => {
    const hook = await hookOf(req)
    return hook === null ? sendNotFound(reply, visit) : editPage(reply, visit, hook, valuesOf(hook), [], 200)
  }))

  // PATCH (the edit form) and DELETE.
  app.post('/admin/hooks/:id', WEB, forAdmin(async (req, reply, visit) => {
    const hook = await hookOf(req)
    const method = formMethod(req)
    if (hook === null) return sendNotFound(reply, visit)
    if (method === 'DELETE') {
      await deleteHook(req.ingot.db, hook)
      return redirect(reply, visit, '/admin/hooks')
    }
    if (method !== 'PATCH' && method !== 'PUT') return sendNotFound(reply, visit)
    const sent = sentValues(req)
    try {
      await updateSystemHook(req.ingot, hook, inputOf(sent))
    } catch (err) {
      return editPage(reply, visit, hook, sent.values, refusalOf(err), 422)
    }
    return redirect(reply, visit, '/admin/hooks')
  }))

  app.post('/admin/hooks/:id/test', WEB, forAdmin(async (req, reply, visit) => {
    const hook = await hookOf(req)
    if (hook === null) return sendNotFound(reply, visit)
    await testSystemHook(req.ingot, hook)
    return hooksPage(req, reply, visit, { notice: `The sample event was sent to ${hook.url}; its last delivery shows how it went.` })
  }))
}

export default hookPages
