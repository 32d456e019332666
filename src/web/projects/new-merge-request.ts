// A new merge request at `/merge_requests/new` and its POST to `/merge_requests`: from a branch
// of this project or of one of its forks the visitor may push to, into a branch of this project
// or, when it is a fork, of the project it was forked from (the default, as in the original).
// Choosing the projects is a GET form that reloads the page with their branches, so no script is
// needed; the merge request is opened through the API's create service with `target_project_id`,
// which checks the fork network and the visitor's rights again.
import type { FastifyReply } from 'fastify'
import type { Actor } from '../../auth/actor.js'
import { findProjects } from '../../finders/projects-finder.js'
import { branchTips } from '../../git/branches.js'
import { canOnProject, type ProjectSubject } from '../../policies/project-policy.js'
import { DEVELOPER } from '../../policies/access-levels.js'
import { createMergeRequest, projectSubjectFor } from '../../services/merge-requests/create-merge-request.js'
import { csrfField, errorExplanation, html, page, type SafeHtml } from '../html.js'
import { formOf, redirect, refusalOf, sendNotFound, sendPage, tokenOf } from '../visit.js'
import { projectChrome, projectUrl, signInFirst, type ProjectPageRequest } from './context.js'

/** How many forks the source choice lists. */
const MAX_FORKS = 50

interface NewFormValues {
  sourceProjectId: string
  targetProjectId: string
  sourceBranch: string
  targetBranch: string
  title: string
  description: string
}

interface ProjectChoices {
  /** This project (when the visitor may open merge requests from it) and the forks of it they may. */
  sources: ProjectSubject[]
  /** The project this one was forked from (first: the default) and this one, where the visitor may open merge requests. */
  targets: ProjectSubject[]
}

async function projectChoices(request: ProjectPageRequest, actor: Actor): Promise<ProjectChoices> {
  const { db } = request.req.ingot
  const { loaded } = request
  const forkRows = await (await findProjects(db, actor, { kind: 'forks', projectId: loaded.project.id }, { minAccessLevel: DEVELOPER, orderBy: 'id', sort: 'asc' }))
    .limit(MAX_FORKS).execute()
  const parentId = loaded.project.forked_from_project_id
  const [forks, parent] = await Promise.all([
    Promise.all(forkRows.map((fork) => projectSubjectFor(db, actor, fork.id))),
    parentId === null ? null : projectSubjectFor(db, actor, parentId),
  ])
  const sources = [loaded, ...forks.flatMap((fork) => (fork === null ? [] : [fork]))].filter((subject) => canOnProject(actor, subject, 'create_merge_request_from'))
  const targets = [...(parent === null ? [] : [parent]), loaded].filter((subject) => canOnProject(actor, subject, 'create_merge_request_in'))
  return { sources, targets }
}

const fullPathOf = (subject: ProjectSubject) => `${subject.namespace.full_path}/${subject.project.path}`

/** The chosen project among the choices, by id; the first (the default) when none or another is asked. */
function chosen(choices: readonly ProjectSubject[], id: string): ProjectSubject | undefined {
  return choices.find((subject) => String(subject.project.id) === id) ?? choices[0]
}

/** `merge_request[source_branch]=…` in the query, as the original's links to the new page name the branches and projects. */
function formOfQuery(request: ProjectPageRequest): Record<string, string> {
  const query = request.req.query as Record<string, unknown>
  const fields: Record<string, string> = {}
  for (const name of ['source_branch', 'target_branch', 'source_project_id', 'target_project_id']) {
    const value = query[`merge_request[${name}]`] ?? (query.merge_request as Record<string, unknown> | undefined)?.[name]
    if (typeof value === 'string') fields[name] = value
  }
  return fields
}

/** "fix-login-form" → "Fix login form", as the original titles a merge request from its branch. */
function titleFromBranch(branch: string): string {
  const words = branch.replace(/[-_/]+/g, ' ').trim()
  return words.charAt(0).toUpperCase() + words.slice(1)
}

function projectOptions(choices: readonly ProjectSubject[], selected: ProjectSubject): SafeHtml {
  return html`${choices.map((subject) => html`<option value="${subject.project.id}"${subject === selected ? html` selected` : ''}>${fullPathOf(subject)}</option>`)}`
}

/** GET `/merge_requests/new`: the projects, then their branches, title and description. */
export async function newPage(request: ProjectPageRequest, values?: NewFormValues, errors: readonly string[] = [], status = 200): Promise<FastifyReply> {
  const { req, reply, visit, loaded } = request
  const signIn = signInFirst(request)
  if (signIn !== null) return signIn
  const choices = await projectChoices(request, req.actor!)
  const asked = formOfQuery(request)
  const source = chosen(choices.sources, values?.sourceProjectId ?? asked.source_project_id ?? '')
  const target = chosen(choices.targets, values?.targetProjectId ?? asked.target_project_id ?? '')
  if (source === undefined || target === undefined) return sendNotFound(reply, visit)
  const [sourceBranches, targetBranches] = await Promise.all([source, target].map(async (subject) =>
    (await branchTips(req.ingot.repositories.open(subject.project.id))).map((tip) => tip.name)))
  const shown = values ?? {
    sourceProjectId: String(source.project.id), targetProjectId: String(target.project.id),
    sourceBranch: asked.source_branch ?? '', targetBranch: asked.target_branch ?? target.project.default_branch ?? '',
    title: asked.source_branch === undefined ? '' : titleFromBranch(asked.source_branch), description: '',
  }
  const options = (branches: readonly string[], selected: string) => branches.map((name) => html`<option${name === selected ? html` selected` : ''}>${name}</option>`)
  const base = `${projectUrl(loaded)}/merge_requests`
  const manyProjects = choices.sources.length > 1 || choices.targets.length > 1
  return sendPage(reply, visit, status, page({ title: `New merge request · ${loaded.project.name}`, user: visit.session?.user ?? null, csrfToken: tokenOf(visit) }, projectChrome(req.actor, loaded, 'merge_requests', html`
<h1>New merge request</h1>
${errorExplanation(errors)}
${manyProjects ? html`<form class="inline-form" method="get" action="${base}/new" aria-label="Projects">
<div><label for="source_project_id">Source project</label><select id="source_project_id" name="merge_request[source_project_id]">${projectOptions(choices.sources, source)}</select></div>
<div><label for="target_project_id">Target project</label><select id="target_project_id" name="merge_request[target_project_id]">${projectOptions(choices.targets, target)}</select></div>
<button type="submit">Choose their branches</button>
</form>` : ''}
<form class="issuable-form" method="post" action="${base}">
${csrfField(tokenOf(visit))}
<input type="hidden" name="merge_request[source_project_id]" value="${source.project.id}"><input type="hidden" name="merge_request[target_project_id]" value="${target.project.id}">
<label for="merge_request_source_branch">Source branch${manyProjects ? ` of ${fullPathOf(source)}` : ''}</label><select id="merge_request_source_branch" name="merge_request[source_branch]" required><option value="">Choose a branch</option>${options(sourceBranches ?? [], shown.sourceBranch)}</select>
<label for="merge_request_target_branch">Target branch${manyProjects ? ` of ${fullPathOf(target)}` : ''}</label><select id="merge_request_target_branch" name="merge_request[target_branch]" required>${options(targetBranches ?? [], shown.targetBranch)}</select>
<label for="merge_request_title">Title</label><input type="text" id="merge_request_title" name="merge_request[title]" value="${shown.title}" required maxlength="255">
<label for="merge_request_description">Description</label><textarea id="merge_request_description" name="merge_request[description]" rows="8">${shown.description}</textarea>
<button type="submit">Create merge request</button>
</form>`)))
}

/** POST `/merge_requests`: opened from the chosen source into the chosen target, then its page (in the target project). */
export async function createFromForm(request: ProjectPageRequest): Promise<FastifyReply> {
  const { req, reply, visit } = request
  if (req.actor === null) return sendNotFound(reply, visit)
  const form = formOf(req, 'merge_request')
  const values: NewFormValues = {
    sourceProjectId: form.source_project_id ?? String(request.loaded.project.id), targetProjectId: form.target_project_id ?? String(request.loaded.project.id),
    sourceBranch: form.source_branch ?? '', targetBranch: form.target_branch ?? '', title: (form.title ?? '').trim(), description: form.description ?? '',
  }
  const choices = await projectChoices(request, req.actor)
  const source = choices.sources.find((subject) => String(subject.project.id) === values.sourceProjectId)
  const target = choices.targets.find((subject) => String(subject.project.id) === values.targetProjectId)
  if (source === undefined || target === undefined) return sendNotFound(reply, visit)
  if (values.title === '' || values.sourceBranch === '' || values.targetBranch === '') {
    return newPage(request, values, ['Title, source branch and target branch are all needed'], 422)
  }
  try {
    const row = await createMergeRequest(req.ingot, req.actor, source, {
      title: values.title, sourceBranch: values.sourceBranch, targetBranch: values.targetBranch, description: values.description,
      targetProjectId: target.project.id,
    })
    return redirect(reply, visit, `${projectUrl(target)}/merge_requests/${row.iid}`)
  } catch (err) {
    return newPage(request, values, refusalOf(err), 422)
  }
}
