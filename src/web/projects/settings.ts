// A project's general settings at the original's URL, `/edit`, for Maintainers (and admins): name,
// description, visibility, default branch, the features, merge method and merge checks, saved
// through the API's project update service (Owners alone rename and change visibility, as the
// API's checks say). Its Advanced section: export (Maintainers, while the instance allows exports:
// scheduled through the API's export service, the finished archive downloaded at
// `/download_export` as the API's download route sends it), archive and unarchive, transfer to
// another namespace the Owner may create projects in (the API's transfer service), and delete
// after typing the project's path (Owners).
// Forms: POST `/edit` with `_method=put` (save), `action=export|archive|unarchive|transfer|delete`.
// Every settings page (settings-repository.ts, settings-ci-cd.ts, settings-integrations.ts) opens
// with the same sub-navigation, settingsChrome.
import type { FastifyReply } from 'fastify'
import { sendAttachment } from '../../api/attachment.js'
import { findProjectCreationNamespaces } from '../../finders/namespaces-finder.js'
import { branchTips } from '../../git/branches.js'
import { canOnProject } from '../../policies/project-policy.js'
import { transferProject } from '../../services/groups/transfer-project.js'
import { exportStatusOf, findExport, openExportDownload, requestExport } from '../../services/import-export/export-project.js'
import { setProjectArchived } from '../../services/projects/archive-project.js'
import { findNamespace } from '../../services/projects/create-project.js'
import { deleteProject } from '../../services/projects/delete-project.js'
import { updateProject, type UpdateProjectInput } from '../../services/projects/update-project.js'
import type { Visibility } from '../../policies/access-levels.js'
import { csrfField, errorExplanation, html, page, type SafeHtml } from '../html.js'
import { formMethod, redirect, refusalOf, sendNotFound, sendPage, tokenOf } from '../visit.js'
import { projectChrome, projectUrl, type ProjectPage, type ProjectPageRequest } from './context.js'

const FEATURES = [
  ['issues_enabled', 'Issues'], ['merge_requests_enabled', 'Merge requests'], ['wiki_enabled', 'Wiki'],
  ['snippets_enabled', 'Snippets'], ['jobs_enabled', 'CI/CD pipelines'], ['public_jobs', 'Public pipelines (anyone who sees the project sees its jobs)'],
  ['only_allow_merge_if_pipeline_succeeds', 'Only allow merge requests to be merged if the pipeline succeeds'],
  ['only_allow_merge_if_all_discussions_are_resolved', 'Only allow merge requests to be merged if all discussions are resolved'],
] as const

/** The visibility choices of a settings form (a project's, a group's, a new project's). */
export const VISIBILITY_CHOICES: readonly { value: Visibility; level: number; label: string }[] = [
  { value: 'private', level: 0, label: 'Private: members only' }, { value: 'internal', level: 10, label: 'Internal: any signed-in user' },
  { value: 'public', level: 20, label: 'Public: everyone' },
]

const MERGE_METHODS = [['merge', 'Merge commit'], ['rebase_merge', 'Merge commit with semi-linear history'], ['ff', 'Fast-forward merge']] as const

/** The settings pages by name, with their labels and URLs below the project's: the sub-navigation. */
const SETTINGS_PAGES = [
  { name: 'general', label: 'General', path: '/edit' },
  { name: 'repository', label: 'Repository', path: '/-/settings/repository' },
  { name: 'ci_cd', label: 'CI/CD', path: '/-/settings/ci_cd' },
  { name: 'integrations', label: 'Integrations', path: '/-/settings/integrations' },
] as const

export type SettingsPageName = typeof SETTINGS_PAGES[number]['name']

/** A settings page: the project's header, the settings' sub-navigation, then the page's own markup. */
export function settingsChrome(request: ProjectPageRequest, current: SettingsPageName, title: string, body: SafeHtml, status = 200, notice: string | null = null): FastifyReply {
  const { req, reply, visit, loaded } = request
  const base = projectUrl(loaded)
  const nav = html`<nav aria-label="Settings"><ul class="actions">${SETTINGS_PAGES.map(({ name, label, path }) => html`<li><a href="${base}${path}"${name === current ? html` aria-current="page"` : ''}>${label}</a></li>`)}</ul></nav>
${body}`
  return sendPage(reply, visit, status, page({ title: `${title} · ${loaded.project.name}`, user: visit.session?.user ?? null, csrfToken: tokenOf(visit), notice }, projectChrome(req.actor, loaded, 'settings', nav)))
}

async function settingsPage(request: ProjectPageRequest, errors: readonly string[] = [], status = 200): Promise<FastifyReply> {
  const { req, visit, loaded } = request
  const { project } = loaded
  const branches = (await branchTips(req.ingot.repositories.open(project.id))).map((tip) => tip.name)
  const token = tokenOf(visit)
  const action = `${projectUrl(loaded)}/edit`
  const owns = canOnProject(req.actor, loaded, 'remove_project')
  const exports = visit.settings.project_export_enabled
  const exportStatus = exports ? exportStatusOf(await findExport(req.ingot, project.id)) : 'none'
  const namespaces = owns ? (await findProjectCreationNamespaces(req.ingot.db, req.actor!)).filter((n) => n.id !== project.namespace_id) : []
  const flag = (name: typeof FEATURES[number][0]) => (project as unknown as Record<string, number>)[name] === 1
  const body: SafeHtml = html`<h1>Settings</h1>
${errorExplanation(errors)}
<form class="issuable-form" method="post" action="${action}">${csrfField(token)}<input type="hidden" name="_method" value="put">
<label for="project_name">Project name${owns ? '' : ' (Owners rename)'}</label><input type="text" id="project_name" name="project[name]" value="${project.name}"${owns ? '' : html` readonly`}>
<label for="project_description">Description</label><textarea id="project_description" name="project[description]" rows="3">${project.description ?? ''}</textarea>
<fieldset><legend>Visibility${owns ? '' : ' (Owners change it)'}</legend>${VISIBILITY_CHOICES.map((v) => html`<label class="checkbox"><input type="radio" name="project[visibility]" value="${v.value}"${v.level === project.visibility_level ? html` checked` : ''}${owns ? '' : html` disabled`}> ${v.label}</label>`)}</fieldset>
<label for="project_default_branch">Default branch</label><select id="project_default_branch" name="project[default_branch]">${branches.length === 0 ? html`<option value="">No branches yet</option>` : branches.map((name) => html`<option${name === project.default_branch ? html` selected` : ''}>${name}</option>`)}</select>
<fieldset><legend>Features and merge checks</legend>${FEATURES.map(([name, label]) => html`<label class="checkbox"><input type="checkbox" name="project[${name}]" value="1"${flag(name) ? html` checked` : ''}> ${label}</label>`)}</fieldset>
<fieldset><legend>Merge method</legend>${MERGE_METHODS.map(([value, label]) => html`<label class="checkbox"><input type="radio" name="project[merge_method]" value="${value}"${project.merge_method === value ? html` checked` : ''}> ${label}</label>`)}</fieldset>
<button type="submit">Save changes</button>
</form>
${exports || owns ? html`<section aria-labelledby="advanced-title"><h2 id="advanced-title">Advanced</h2>
${exports ? html`<h3>Export project</h3>
<p>The export holds the project's repository, wiki, issues, merge requests, labels, milestones, snippets and uploads; import it into another Ingot or GitLab.</p>
${exportStatus === 'started' || exportStatus === 'after_export_action' ? html`<p class="notice">The export is being prepared; reload this page to see when it is ready.</p>` : ''}
${exportStatus === 'finished' ? html`<p><a class="button" href="${projectUrl(loaded)}/download_export">Download export</a></p>` : ''}
<form method="post" action="${action}">${csrfField(token)}<input type="hidden" name="action" value="export"><button type="submit">${exportStatus === 'finished' ? 'Generate a new export' : 'Export project'}</button></form>` : ''}
${owns ? html`<h3>Archive</h3><form method="post" action="${action}">${csrfField(token)}<input type="hidden" name="action" value="${project.archived === 1 ? 'unarchive' : 'archive'}"><button type="submit">${project.archived === 1 ? 'Unarchive the project' : 'Archive the project'}</button></form>
<h3>Transfer project</h3>
${namespaces.length === 0 ? html`<p class="muted">There is no other namespace you may move the project to.</p>` : html`<form method="post" action="${action}">${csrfField(token)}<input type="hidden" name="action" value="transfer">
<label for="new_namespace_id">Namespace to move the project to</label><select id="new_namespace_id" name="new_namespace_id">${namespaces.map((n) => html`<option value="${n.id}">${n.full_path}</option>`)}</select>
<button type="submit">Transfer the project</button></form>`}
<h3>Delete project</h3>
<form method="post" action="${action}">${csrfField(token)}<input type="hidden" name="action" value="delete">
<label for="confirm_path">Type <span class="mono">${project.path}</span> to delete the project and everything in it</label><input type="text" id="confirm_path" name="confirm_path" autocomplete="off">
<button type="submit">Delete the project</button></form>` : ''}</section>` : ''}`
  return settingsChrome(request, 'general', 'Settings', body, status)
}

export const settingsEditPage: ProjectPage = async (request) => {
  const { req, reply, visit, loaded, rest } = request
  if (rest.length > 0 || visit.session === null || !canOnProject(req.actor, loaded, 'admin_project')) return sendNotFound(reply, visit)
  return settingsPage(request)
}

function submittedSettings(request: ProjectPageRequest): UpdateProjectInput {
  const form = ((request.req.body as Record<string, unknown>).project ?? {}) as Record<string, unknown>
  const text = (name: string) => (typeof form[name] === 'string' ? form[name] : undefined)
  const input: UpdateProjectInput = { description: text('description') ?? '' }
  for (const [name] of FEATURES) input[name] = form[name] === '1'
  const method = text('merge_method')
  if (method === 'merge' || method === 'rebase_merge' || method === 'ff') input.merge_method = method
  const branch = text('default_branch')
  if (branch !== undefined && branch !== '') input.default_branch = branch
  if (canOnProject(request.req.actor, request.loaded, 'remove_project')) {
    const visibility = text('visibility')
    if (visibility === 'private' || visibility === 'internal' || visibility === 'public') input.visibility = visibility
    const name = text('name')?.trim()
    if (name !== undefined && name !== '' && name !== request.loaded.project.name) input.name = name
  }
  return input
}

/** `/download_export`: the project's finished export, sent as the API's download route sends it. */
export const downloadExportPage: ProjectPage = async (request) => {
  const { req, reply, visit, loaded, rest } = request
  if (rest.length > 0 || visit.session === null || !visit.settings.project_export_enabled || !canOnProject(req.actor, loaded, 'admin_project')) {
    return sendNotFound(reply, visit)
  }
  const download = await openExportDownload(req.ingot, loaded.project.id)
  return download === null ? sendNotFound(reply, visit) : sendAttachment(reply, download.fileName, 'application/gzip', download.size, download.stream)
}

/** The Owner's transfer to the namespace chosen; redirected to the settings at the project's new path. */
async function transferForm(request: ProjectPageRequest): Promise<FastifyReply> {
  const { req, reply, visit, loaded } = request
  const chosen = (req.body as Record<string, unknown>).new_namespace_id
  const namespace = typeof chosen === 'string' && chosen !== '' ? await findNamespace(req.ingot.db, chosen) : undefined
  if (namespace === undefined) return settingsPage(request, ['Please select a new namespace for your project.'], 422)
  try {
    await transferProject(req.ingot.db, req.actor!, loaded.project, namespace)
  } catch (err) {
    return settingsPage(request, refusalOf(err), 422)
  }
  return redirect(reply, visit, `${projectUrl({ ...loaded, namespace })}/edit`)
}

const OWNER_ACTIONS = { archive: 'archive_project', unarchive: 'archive_project', transfer: 'remove_project', delete: 'remove_project' } as const

export const settingsForm: ProjectPage = async (request) => {
  const { req, reply, visit, loaded, rest } = request
  if (rest.length > 0 || !canOnProject(req.actor, loaded, 'admin_project')) return sendNotFound(reply, visit)
  const action = (req.body as Record<string, unknown>).action
  if (action === 'export') {
    if (!visit.settings.project_export_enabled) return sendNotFound(reply, visit)
    // A request while an export runs starts nothing, as the API's.
    await requestExport(req.ingot, { projectId: loaded.project.id, userId: visit.session!.user.id, description: null, upload: null })
    return redirect(reply, visit, `${projectUrl(loaded)}/edit`)
  }
  if (typeof action === 'string' && Object.hasOwn(OWNER_ACTIONS, action)) {
    if (!canOnProject(req.actor, loaded, OWNER_ACTIONS[action as keyof typeof OWNER_ACTIONS])) return sendNotFound(reply, visit)
    if (action === 'transfer') return transferForm(request)
    if (action !== 'delete') {
      await setProjectArchived(req.ingot.db, loaded.project, action === 'archive')
      return redirect(reply, visit, `${projectUrl(loaded)}/edit`)
    }
    if ((req.body as Record<string, unknown>).confirm_path !== loaded.project.path) {
      return settingsPage(request, [`Type ${loaded.project.path} to confirm the deletion`], 422)
    }
    await deleteProject(req.ingot, loaded.project)
    return redirect(reply, visit, '/dashboard/projects')
  }
  if (formMethod(req) !== 'PUT') return sendNotFound(reply, visit)
  try {
    await updateProject(req.ingot, req.actor!, loaded, submittedSettings(request))
  } catch (err) {
    return settingsPage(request, refusalOf(err), 422)
  }
  return redirect(reply, visit, `${projectUrl(loaded)}/edit`)
}
