// A project's CI/CD settings at the original's URL, `/-/settings/ci_cd`, for Maintainers (the API's
// admin_project): the general pipeline settings (CI config path, job timeout, public pipelines,
// shared runners) saved through the project update service; the CI/CD variables (admin_build, as
// their API: while jobs are enabled), values hidden until `?reveal=1`; the runners enabled on the
// project, those of the visitor's it may enable, and the group and shared runners it may use; the
// runners registration token with its reset.
// Forms, below `/-/settings/ci_cd`: POST `` with `_method=put` (general settings); POST
// `variables` adds, `variables/<key>` with `_method=put|delete` changes or removes; POST
// `runners/<id>/enable|disable|pause|resume`; POST `reset_registration_token`. Every change goes
// through the services of the API's routes, with their rules, whose refusals the page shows.
import type { FastifyReply } from 'fastify'
import type { CiRunnerRow } from '../../db/schema.js'
import { runnerStatus } from '../../entities/runner.js'
import { findCiVariable, listCiVariables, type CiVariableOwner } from '../../finders/ci-variables-finder.js'
import { findRunner, findRunnerPage, isRunnerOfProject, type RunnerScope, type RunnerSet } from '../../finders/runners-finder.js'
import { canOnProject } from '../../policies/project-policy.js'
import { createCiVariable, deleteCiVariable, openCiVariable, updateCiVariable } from '../../services/ci/ci-variables.js'
import { authorizeRunnerOwner, disableRunnerOnProject, enableRunnerOnProject, updateRunner } from '../../services/ci/runners/manage-runners.js'
import { resetProjectRunnersToken } from '../../services/ci/runners/registration-tokens.js'
import { updateProject } from '../../services/projects/update-project.js'
import { csrfField, errorExplanation, html, type SafeHtml } from '../html.js'
import { formMethod, methodField, redirect, refusalOf, sendNotFound, tokenOf } from '../visit.js'
import { encodePath, projectUrl, type ProjectPage, type ProjectPageRequest } from './context.js'
import { settingsChrome } from './settings.js'

/** The most variables and runners each list shows; a project has a handful. */
const SHOWN = { page: 1, per_page: 100 }

function maintains(request: ProjectPageRequest): boolean {
  return request.visit.session !== null && canOnProject(request.req.actor, request.loaded, 'admin_project')
}

/** CI/CD variables are the API's admin_build: Maintainers, while the project's jobs are enabled. */
function managesVariables(request: ProjectPageRequest): boolean {
  return canOnProject(request.req.actor, request.loaded, 'admin_build')
}

function baseUrl(request: ProjectPageRequest): string {
  return `${projectUrl(request.loaded)}/-/settings/ci_cd`
}

function ownerOf(request: ProjectPageRequest): CiVariableOwner {
  return { type: 'project', id: request.loaded.project.id }
}

function postButton(request: ProjectPageRequest, action: string, text: string, label: string, method?: 'DELETE'): SafeHtml {
  return html`<form method="post" action="${action}">${csrfField(tokenOf(request.visit))}${method === undefined ? '' : methodField(method)}<button type="submit" aria-label="${label}">${text}</button></form>`
}

function generalSection(request: ProjectPageRequest): SafeHtml {
  const { project } = request.loaded
  const checkbox = (name: 'public_jobs' | 'shared_runners_enabled', label: string) =>
    html`<label class="checkbox"><input type="checkbox" name="project[${name}]" value="1"${project[name] === 1 ? html` checked` : ''}> ${label}</label>`
  return html`<section aria-labelledby="general-pipelines-title"><h2 id="general-pipelines-title">General pipelines</h2>
<form class="issuable-form" method="post" action="${baseUrl(request)}">${csrfField(tokenOf(request.visit))}${methodField('PUT')}
<label for="project_ci_config_path">Custom CI config path (empty for .gitlab-ci.yml)</label><input type="text" id="project_ci_config_path" name="project[ci_config_path]" value="${project.ci_config_path ?? ''}">
<label for="project_build_timeout">Timeout of a job, in minutes (10 minutes to a month)</label><input type="number" id="project_build_timeout" name="project[build_timeout_minutes]" min="10" value="${String(Math.round(project.build_timeout / 60))}">
${checkbox('public_jobs', 'Public pipelines: anyone who sees the project sees its pipelines and jobs')}
${checkbox('shared_runners_enabled', 'Shared runners enabled for this project')}
<button type="submit">Save changes</button></form></section>`
}

async function variablesSection(request: ProjectPageRequest): Promise<SafeHtml> {
  const { req, visit } = request
  const reveal = (req.query as Record<string, unknown>).reveal === '1'
  const variables = await listCiVariables(req.ingot.db, ownerOf(request), SHOWN)
  const base = `${baseUrl(request)}/variables`
  const token = tokenOf(visit)
  return html`<section aria-labelledby="variables-title"><h2 id="variables-title">Variables</h2>
<p class="muted">Jobs get these as environment variables; a protected one only jobs of protected branches and tags.
${reveal ? html`<a href="${baseUrl(request)}">Hide values</a>` : html`<a href="${baseUrl(request)}?reveal=1#variables-title">Reveal values</a>`}</p>
${variables.items.length === 0 ? html`<p class="muted">No variables.</p>` : html`<ul class="issuable-list">${variables.items.map((variable, i) => html`<li>
<div class="title mono">${variable.key}${variable.protected === 1 ? html` <span class="badge">protected</span>` : ''}</div>
<div class="mono">${reveal ? openCiVariable(req.ingot.secrets, variable) : '••••••'}</div>
<form class="inline-form" method="post" action="${base}/${encodePath(variable.key)}">${csrfField(token)}${methodField('PUT')}
<label for="variable_value_${String(i)}">New value of ${variable.key} (empty keeps it)</label><input type="text" id="variable_value_${String(i)}" name="value" autocomplete="off">
<label class="checkbox"><input type="checkbox" name="protected" value="1"${variable.protected === 1 ? html` checked` : ''}> Protected</label>
<button type="submit" aria-label="Save ${variable.key}">Save</button></form>
<div class="actions">${postButton(request, `${base}/${encodePath(variable.key)}`, 'Remove', `Remove ${variable.key}`, 'DELETE')}</div></li>`)}</ul>`}
<form class="issuable-form" method="post" action="${base}">${csrfField(token)}
<label for="variable_key">Key</label><input type="text" id="variable_key" name="key" required>
<label for="variable_value">Value</label><textarea id="variable_value" name="value" rows="2" autocomplete="off"></textarea>
<label class="checkbox"><input type="checkbox" name="protected" value="1"> Protected</label>
<button type="submit">Add variable</button></form></section>`
}

function runnerLine(runner: CiRunnerRow, now: number, actions: SafeHtml = html``): SafeHtml {
  return html`<li><div class="title">${runner.description ?? ''} <span class="mono muted">#${String(runner.id)}</span></div>
<div class="muted">${runnerStatus(runner, now)}${runner.locked === 1 ? ' · locked to its projects' : ''}${runner.run_untagged === 1 ? '' : ' · tagged jobs only'}</div>
<div class="actions">${actions}</div></li>`
}

async function runnersSection(request: ProjectPageRequest): Promise<SafeHtml> {
  const { req, visit, loaded } = request
  const { db } = req.ingot
  const { project } = loaded
  const ofProject = (scope: RunnerScope) => findRunnerPage(db, { kind: 'project', project }, { scopes: [scope], tags: [] }, SHOWN)
  const assignable: RunnerSet = { kind: 'assignable', userId: visit.session!.user.id, projectId: project.id }
  const [own, available, group, shared] = await Promise.all([
    ofProject('project_type'), findRunnerPage(db, assignable, { scopes: [], tags: [] }, SHOWN), ofProject('group_type'), ofProject('instance_type'),
  ])
  const now = Date.now()
  const base = `${baseUrl(request)}/runners`
  const list = (runners: readonly CiRunnerRow[], empty: string, actions: (runner: CiRunnerRow) => SafeHtml = () => html``) =>
    (runners.length === 0 ? html`<p class="muted">${empty}</p>` : html`<ul class="issuable-list">${runners.map((runner) => runnerLine(runner, now, actions(runner)))}</ul>`)
  const name = (runner: CiRunnerRow) => `runner #${runner.id}`
  return html`<section aria-labelledby="runners-title"><h2 id="runners-title">Runners</h2>
<h3>Set up a specific runner</h3>
<p>Register a runner for this project with this URL and registration token:</p>
<p class="mono">${req.ingot.config.externalUrl.replace(/\/+$/, '')}/</p>
<p><code class="mono">${project.runners_token}</code></p>
${postButton(request, `${baseUrl(request)}/reset_registration_token`, 'Reset the registration token', 'Reset the registration token of runners')}
<h3>Runners enabled on this project</h3>
${list(own.items, 'No runners are enabled on this project.', (runner) => html`${postButton(request, `${base}/${runner.id}/${runner.active === 1 ? 'pause' : 'resume'}`, runner.active === 1 ? 'Pause' : 'Resume', `${runner.active === 1 ? 'Pause' : 'Resume'} ${name(runner)}`)}
${postButton(request, `${base}/${runner.id}/disable`, 'Disable for this project', `Disable for this project: ${name(runner)}`)}`)}
<h3>Your runners you may enable</h3>
${list(available.items, 'None of your other runners can be enabled here.', (runner) => postButton(request, `${base}/${runner.id}/enable`, 'Enable for this project', `Enable for this project: ${name(runner)}`))}
<h3>Group runners</h3>
${list(group.items, "This project's groups have no runners.")}
<h3>Shared runners${project.shared_runners_enabled === 1 ? '' : ' (disabled for this project)'}</h3>
${list(shared.items, 'This instance has no shared runners.')}
</section>`
}

async function ciCdSettings(request: ProjectPageRequest, errors: readonly string[] = [], status = 200): Promise<FastifyReply> {
  const body = html`<h1>CI/CD settings</h1>
${errorExplanation(errors)}
${generalSection(request)}
${managesVariables(request) ? await variablesSection(request) : ''}
${await runnersSection(request)}`
  return settingsChrome(request, 'ci_cd', 'CI/CD settings', body, status)
}

export const ciCdSettingsPage: ProjectPage = async (request) => {
  if (request.rest.length > 0 || !maintains(request)) return sendNotFound(request.reply, request.visit)
  return ciCdSettings(request)
}

function field(request: ProjectPageRequest, name: string): string {
  const value = (request.req.body as Record<string, unknown>)[name]
  return typeof value === 'string' ? value : ''
}

/** Runs a change and goes back to the page, or shows the page again with the refusal. */
async function change(request: ProjectPageRequest, run: () => Promise<unknown>): Promise<FastifyReply> {
  try {
    await run()
  } catch (err) {
    return ciCdSettings(request, refusalOf(err), 422)
  }
  return redirect(request.reply, request.visit, baseUrl(request))
}

function generalForm(request: ProjectPageRequest): Promise<FastifyReply> {
  const { req, loaded } = request
  const form = ((req.body as Record<string, unknown>).project ?? {}) as Record<string, unknown>
  const minutes = typeof form.build_timeout_minutes === 'string' ? form.build_timeout_minutes.trim() : ''
  return change(request, () => updateProject(req.ingot, req.actor!, loaded, {
    ci_config_path: typeof form.ci_config_path === 'string' ? form.ci_config_path.trim() : '',
    public_jobs: form.public_jobs === '1',
    shared_runners_enabled: form.shared_runners_enabled === '1',
    // Not a number of minutes is NaN seconds, which the service's bounds refuse.
    ...(minutes === '' ? {} : { build_timeout: Number(minutes) * 60 }),
  }))
}

async function variableForm(request: ProjectPageRequest, key: string | null): Promise<FastifyReply> {
  const { req, reply, visit } = request
  const isProtected = field(request, 'protected') === '1'
  if (key === null) return change(request, () => createCiVariable(req.ingot, ownerOf(request), { key: field(request, 'key'), value: field(request, 'value'), protected: isProtected }))
  const variable = await findCiVariable(req.ingot.db, ownerOf(request), key)
  const method = formMethod(req)
  if (variable === null || (method !== 'PUT' && method !== 'DELETE')) return sendNotFound(reply, visit)
  if (method === 'DELETE') return change(request, () => deleteCiVariable(req.ingot.db, variable))
  const value = field(request, 'value')
  return change(request, () => updateCiVariable(req.ingot, variable, { ...(value === '' ? {} : { value }), protected: isProtected }))
}

/** The runner actions: enable and disable as the API's project runner routes, pause and resume as its runner update (the visitor's own runners). */
async function runnerForm(request: ProjectPageRequest, rest: readonly string[]): Promise<FastifyReply> {
  const { req, reply, visit, loaded } = request
  const { db } = req.ingot
  const [id = '', action = ''] = rest
  const runner = rest.length === 2 && /^\d{1,15}$/.test(id) ? await findRunner(db, Number(id)) : null
  if (runner === null) return sendNotFound(reply, visit)
  if (action === 'enable') return change(request, () => enableRunnerOnProject(db, req.actor!, runner, loaded.project.id))
  if (action === 'disable') return change(request, () => disableRunnerOnProject(db, runner.id, loaded.project.id))
  if ((action !== 'pause' && action !== 'resume') || !await isRunnerOfProject(db, runner.id, loaded.project.id)) return sendNotFound(reply, visit)
  return change(request, async () => {
    await authorizeRunnerOwner(db, req.actor!, runner)
    await updateRunner(db, runner, { active: action === 'resume' })
  })
}

export const ciCdSettingsForms: ProjectPage = async (request) => {
  const { req, reply, visit, loaded, rest } = request
  if (!maintains(request)) return sendNotFound(reply, visit)
  const [section, ...after] = rest
  if (section === undefined) return formMethod(req) === 'PUT' ? generalForm(request) : sendNotFound(reply, visit)
  if (section === 'variables' && managesVariables(request)) return variableForm(request, after.length === 0 ? null : after.join('/'))
  if (section === 'runners') return runnerForm(request, after)
  if (section === 'reset_registration_token' && after.length === 0) {
    await resetProjectRunnersToken(req.ingot.db, loaded.project.id)
    return redirect(reply, visit, baseUrl(request))
  }
  return sendNotFound(reply, visit)
}
