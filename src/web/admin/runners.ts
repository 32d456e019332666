// The admin area's runners, at the original's URLs: `/admin/runners` (every runner, searched by
// description and filtered by type and status, with the instance's registration token and its
// reset: `/admin/application_settings/reset_runners_token`), `/admin/runners/:id` (its settings
// form, `_method=patch`; the projects it is assigned to; `_method=delete` removes it) and
// `/admin/runners/:id/pause|resume`. Reads and writes go through the finder and services the API's
// /runners endpoints use, with their validation.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import type { CiRunnerRow } from '../../db/schema.js'
import { parseJsonArray } from '../../db/values.js'
import {
  RUNNER_ONLINE_WINDOW_MS, RUNNER_STATUSES, RUNNER_TYPES, findRunner, findRunnerPage, loadRunnerAssignments, type RunnerScope,
} from '../../finders/runners-finder.js'
import { deleteRunner, updateRunner, type RunnerChanges } from '../../services/ci/runners/manage-runners.js'
import { instanceRunnersToken, resetInstanceRunnersToken } from '../../services/ci/runners/registration-tokens.js'
import { normalizeTags } from '../../services/ci/runners/runner-attributes.js'
import { csrfField, errorExplanation, html } from '../html.js'
import { LIST_PER_PAGE, pageNumber } from '../listings.js'
import { encodePath } from '../projects/context.js'
import { pageLinks, timeOf } from '../projects/issuables.js'
import { WEB, formMethod, formOf, idParam, methodField, redirect, refusalOf, sendNotFound, tokenOf, type SignedInVisit } from '../visit.js'
import { adminPage, checked, forAdmin, searchOf } from './layout.js'

const TYPE_NAMES: Record<string, string> = { instance_type: 'Shared', group_type: 'Group', project_type: 'Specific' }

function queryOption<T extends string>(req: FastifyRequest, name: string, values: readonly T[]): T | null {
  const value = (req.query as Record<string, unknown>)[name]
  return values.includes(value as T) ? value as T : null
}

function isOnline(runner: CiRunnerRow, now: number): boolean {
  return runner.contacted_at !== null && runner.contacted_at > now - RUNNER_ONLINE_WINDOW_MS
}

function runnerState(runner: CiRunnerRow, now: number) {
  return html`${runner.active === 1 ? '' : html`<span class="badge">paused</span> `}<span class="badge">${isOnline(runner, now) ? 'online' : 'offline'}</span>`
}

/** The form's values, kept as typed when it is refused. */
interface RunnerValues {
  description: string
  tags: string
  runUntagged: boolean
  locked: boolean
  accessLevel: 'not_protected' | 'ref_protected'
  maximumTimeout: string
  active: boolean
}

function valuesOf(runner: CiRunnerRow): RunnerValues {
  return {
    description: runner.description ?? '', tags: parseJsonArray(runner.tag_list).join(', '), runUntagged: runner.run_untagged === 1,
    locked: runner.locked === 1, accessLevel: runner.access_level, maximumTimeout: runner.maximum_timeout === null ? '' : String(runner.maximum_timeout),
    active: runner.active === 1,
  }
}

async function runnerPage(req: FastifyRequest, reply: FastifyReply, visit: SignedInVisit, runner: CiRunnerRow, values: RunnerValues, errors: readonly string[], status = 200): Promise<FastifyReply> {
  const assignments = (await loadRunnerAssignments(req.ingot.db, [runner.id], null)).get(runner.id)!
  const token = tokenOf(visit)
  const path = `/admin/runners/${runner.id}`
  return adminPage(reply, visit, `Runner #${runner.id}`, '/admin/runners', html`<h1>Runner #${runner.id} <small class="muted">${TYPE_NAMES[runner.runner_type]}</small></h1>
<p>${runnerState(runner, Date.now())} ${runner.contacted_at === null ? 'Never contacted' : html`Last contact ${timeOf(runner.contacted_at)}`}${runner.version === null ? '' : html` · version ${runner.version}`}${runner.ip_address === null ? '' : html` · ${runner.ip_address}`}</p>
<div class="actions">
<form class="inline-form" method="post" action="${path}/${runner.active === 1 ? 'pause' : 'resume'}">${csrfField(token)}<button type="submit">${runner.active === 1 ? 'Pause' : 'Resume'}</button></form>
<form class="inline-form" method="post" action="${path}">${csrfField(token)}${methodField('DELETE')}<button type="submit">Remove runner</button></form>
</div>
${errorExplanation(errors)}
<form class="issuable-form" method="post" action="${path}">${csrfField(token)}${methodField('PATCH')}
<label class="checkbox"><input type="checkbox" name="runner[active]" value="1"${checked(values.active)}> Active (takes new jobs)</label>
<label class="checkbox"><input type="checkbox" name="runner[run_untagged]" value="1"${checked(values.runUntagged)}> Runs untagged jobs</label>
<label class="checkbox"><input type="checkbox" name="runner[locked]" value="1"${checked(values.locked)}> Locked to its current projects</label>
<label for="runner_access_level">Protected</label><select id="runner_access_level" name="runner[access_level]">${(['not_protected', 'ref_protected'] as const).map((level) => html`<option value="${level}"${level === values.accessLevel ? html` selected` : ''}>${level === 'ref_protected' ? 'Jobs of protected branches and tags only' : 'Any job'}</option>`)}</select>
<label for="runner_maximum_timeout">Maximum job timeout (seconds, 600 or more; blank for none)</label><input type="number" id="runner_maximum_timeout" name="runner[maximum_timeout]" value="${values.maximumTimeout}" min="600">
<label for="runner_description">Description</label><input type="text" id="runner_description" name="runner[description]" value="${values.description}">
<label for="runner_tag_list">Tags (comma-separated)</label><input type="text" id="runner_tag_list" name="runner[tag_list]" value="${values.tags}">
<button type="submit">Save changes</button></form>
<section aria-labelledby="projects-title"><h2 id="projects-title">Assigned projects</h2>
${assignments.projects.length === 0 ? html`<p class="muted">${runner.runner_type === 'instance_type' ? 'A shared runner takes jobs of every project with shared runners enabled.' : 'No projects.'}</p>`
    : html`<ul>${assignments.projects.map(({ project, namespace }) => html`<li><a href="/${encodePath(`${namespace.full_path}/${project.path}`)}">${namespace.full_name} / ${project.name}</a></li>`)}</ul>`}
${assignments.groups.length === 0 ? '' : html`<h2>Groups</h2><ul>${assignments.groups.map((group) => html`<li><a href="/${encodePath(group.full_path)}">${group.full_name}</a></li>`)}</ul>`}
</section>`, { status })
}

const runnerPages: FastifyPluginAsync = async (app) => {
  app.get('/admin/runners', WEB, forAdmin(async (req, reply, visit) => {
    const { db } = req.ingot
    const number = pageNumber(req.query)
    const search = searchOf(req)
    const type = queryOption(req, 'type', RUNNER_TYPES)
    const status = queryOption(req, 'status', RUNNER_STATUSES)
    const scopes: RunnerScope[] = [...(type === null ? [] : [type]), ...(status === null ? [] : [status])]
    const [found, registrationToken] = await Promise.all([
      findRunnerPage(db, { kind: 'all' }, { scopes, tags: [], search }, { page: number, per_page: LIST_PER_PAGE }),
      instanceRunnersToken(db),
    ])
    const query = new URLSearchParams({ ...(search === '' ? {} : { search }), ...(type === null ? {} : { type }), ...(status === null ? {} : { status }) })
    const now = Date.now()
    return adminPage(reply, visit, 'Runners', '/admin/runners', html`<h1>Runners</h1>
<section aria-labelledby="token-title"><h2 id="token-title">Set up a shared runner</h2>
<p>Register it with this URL and registration token: <code>${req.ingot.config.externalUrl}</code> <code id="registration_token">${registrationToken}</code></p>
<form class="inline-form" method="post" action="/admin/application_settings/reset_runners_token">${csrfField(tokenOf(visit))}${methodField('PUT')}<button type="submit">Reset runners registration token</button></form>
</section>
<form class="inline-form filters" method="get" action="/admin/runners" role="search">
<div><label for="search">Search by description</label><input type="text" id="search" name="search" value="${search}"></div>
<div><label for="type">Type</label><select id="type" name="type"><option value="">Any type</option>${RUNNER_TYPES.map((value) => html`<option value="${value}"${value === type ? html` selected` : ''}>${TYPE_NAMES[value]}</option>`)}</select></div>
<div><label for="status">Status</label><select id="status" name="status"><option value="">Any status</option>${RUNNER_STATUSES.map((value) => html`<option${value === status ? html` selected` : ''}>${value}</option>`)}</select></div>
<button type="submit">Filter</button></form>
${found.items.length === 0 ? html`<p class="muted">No runners.</p>` : html`<table><thead><tr><th scope="col">Runner</th><th scope="col">Type</th><th scope="col">Description</th><th scope="col">Tags</th><th scope="col">Status</th><th scope="col">Last contact</th></tr></thead><tbody>${found.items.map((runner) => html`<tr>
<td><a href="/admin/runners/${runner.id}">#${runner.id}</a></td><td>${TYPE_NAMES[runner.runner_type]}</td><td>${runner.description ?? ''}</td>
<td>${parseJsonArray(runner.tag_list).map((tag) => html`<span class="badge">${tag}</span> `)}</td><td>${runnerState(runner, now)}</td><td>${runner.contacted_at === null ? 'Never' : timeOf(runner.contacted_at)}</td></tr>`)}</tbody></table>`}
${pageLinks('/admin/runners', query, number, LIST_PER_PAGE, found.total)}`)
  }))

  app.post('/admin/application_settings/reset_runners_token', WEB, forAdmin(async (req, reply, visit) => {
    await resetInstanceRunnersToken(req.ingot.db)
    return redirect(reply, visit, '/admin/runners')
  }))

  app.get('/admin/runners/:id', WEB, forAdmin(async (req, reply, visit) => {
    const id = idParam(req)
    const runner = id === null ? null : await findRunner(req.ingot.db, id)
    return runner === null ? sendNotFound(reply, visit) : runnerPage(req, reply, visit, runner, valuesOf(runner), [])
  }))

  // PATCH (the settings form) and DELETE.
  app.post('/admin/runners/:id', WEB, forAdmin(async (req, reply, visit) => {
    const { db } = req.ingot
    const id = idParam(req)
    const runner = id === null ? null : await findRunner(db, id)
    const method = formMethod(req)
    if (runner === null) return sendNotFound(reply, visit)
    if (method === 'DELETE') {
      await deleteRunner(db, runner.id)
      return redirect(reply, visit, '/admin/runners')
    }
    if (method !== 'PATCH' && method !== 'PUT') return sendNotFound(reply, visit)
    const form = formOf(req, 'runner')
    const values: RunnerValues = {
      description: (form.description ?? '').trim(), tags: form.tag_list ?? '', runUntagged: form.run_untagged === '1', locked: form.locked === '1',
      accessLevel: form.access_level === 'ref_protected' ? 'ref_protected' : 'not_protected', maximumTimeout: (form.maximum_timeout ?? '').trim(),
      active: form.active === '1',
    }
    if (values.maximumTimeout !== '' && !/^\d{1,9}$/.test(values.maximumTimeout)) {
      return runnerPage(req, reply, visit, runner, values, ['Maximum timeout is not a number'], 422)
    }
    const changes: RunnerChanges = {
      description: values.description, tags: normalizeTags(values.tags), runUntagged: values.runUntagged, locked: values.locked,
      accessLevel: values.accessLevel, maximumTimeout: values.maximumTimeout === '' ? null : Number(values.maximumTimeout), active: values.active,
    }
    try {
      await updateRunner(db, runner, changes)
    } catch (err) {
      return runnerPage(req, reply, visit, runner, values, refusalOf(err), 422)
    }
    return redirect(reply, visit, `/admin/runners/${runner.id}`)
  }))

  for (const [action, active] of [['pause', false], ['resume', true]] as const) {
    app.post(`/admin/runners/:id/${action}`, WEB, forAdmin(async (req, reply, visit) => {
      const id = idParam(req)
      const runner = id === null ? null : await findRunner(req.ingot.db, id)
      if (runner === null) return sendNotFound(reply, visit)
      await updateRunner(req.ingot.db, runner, { active })
      return redirect(reply, visit, `/admin/runners/${runner.id}`)
    }))
  }
}

export default runnerPages
