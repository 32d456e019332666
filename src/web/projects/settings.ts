// A project's general settings at the original's URL, `/edit`, for Maintainers (and admins): name,
// description, visibility, default branch, the features, merge method and merge checks, saved
// through the API's project update service (Owners alone rename and change visibility, as the
// API's checks say); archive and unarchive, and delete after typing the project's path (Owners).
// Forms: POST `/edit` with `_method=put` (save), `action=archive|unarchive|delete`. Every settings
// page (settings-repository.ts, settings-ci-cd.ts) opens with the same sub-navigation, settingsChrome.
import type { FastifyReply } from 'fastify'
import { branchTips } from '../../git/branches.js'
import { canOnProject } from '../../policies/project-policy.js'
import { setProjectArchived } from '../../services/projects/archive-project.js'
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

/** The visibility choices of a settings form (a project's, a group's). */
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
] as const

export type SettingsPageName = typeof SETTINGS_PAGES[number]['name']

/** A settings page: the project's header, the settings' sub-navigation, then the page's own markup. */
export function settingsChrome(request: ProjectPageRequest, current: SettingsPageName, title: string, body: SafeHtml, status = 200): FastifyReply {
  const { req, reply, visit, loaded } = request
  const base = projectUrl(loaded)
  const nav = html`<nav aria-label="Settings"><ul class="actions">${SETTINGS_PAGES.map(({ name, label, path }) => html`<li><a href="${base}${path}"${name === current ? html` aria-current="page"` : ''}>${label}</a></li>`)}</ul></nav>
${body}`
  return sendPage(reply, visit, status, page({ title: `${title} · ${loaded.project.name}`, user: visit.session?.user ?? null, csrfToken: tokenOf(visit) }, projectChrome(req.actor, loaded, 'settings', nav)))
}

async function settingsPage(request: ProjectPageRequest, errors: readonly string[] = [], status = 200): Promise<FastifyReply> {
  const { req, visit, loaded } = request
  const { project } = loaded
  const branches = (await branchTips(req.ingot.repositories.open(project.id))).map((tip) => tip.name)
  const token = tokenOf(visit)
  const action = `${projectUrl(loaded)}/edit`
  const owns = canOnProject(req.actor, loaded, 'remove_project')
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
${owns ? html`<section aria-labelledby="advanced-title"><h2 id="advanced-title">Advanced</h2>
<form method="post" action="${action}">${csrfField(token)}<input type="hidden" name="action" value="${project.archived === 1 ? 'unarchive' : 'archive'}"><button type="submit">${project.archived === 1 ? 'Unarchive the project' : 'Archive the project'}</button></form>
<form method="post" action="${action}">${csrfField(token)}<input type="hidden" name="action" value="delete">
<label for="confirm_path">Type <span class="mono">${project.path}</span> to delete the project and everything in it</label><input type="text" id="confirm_path" name="confirm_path" autocomplete="off">
<button type="submit">Delete the project</button></form></section>` : ''}`
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

export const settingsForm: ProjectPage = async (request) => {
  const { req, reply, visit, loaded, rest } = request
  if (rest.length > 0 || !canOnProject(req.actor, loaded, 'admin_project')) return sendNotFound(reply, visit)
  const action = (req.body as Record<string, unknown>).action
  if (action === 'archive' || action === 'unarchive' || action === 'delete') {
    if (!canOnProject(req.actor, loaded, action === 'delete' ? 'remove_project' : 'archive_project')) return sendNotFound(reply, visit)
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
