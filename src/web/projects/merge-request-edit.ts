// A merge request's edit form at `/merge_requests/:iid/edit` (title, description, target branch,
// assignee, milestone, labels, "remove source branch", "squash" and the WIP prefix) and its POST to
// `/merge_requests/:iid` (`_method=put`), through the API's update service with its rules: the
// assignee, milestone and labels are for those who may administer merge requests (the fields are
// shown only to them), a refused change is the form again with the service's messages.
import type { FastifyReply } from 'fastify'
import type { LoadedMergeRequest } from '../../api/load.js'
import { isWorkInProgress } from '../../entities/merge-request.js'
import { loadMergeRequestView } from '../../finders/merge-requests-finder.js'
import { listMilestones } from '../../finders/milestones-finder.js'
import { findUserByUsername } from '../../finders/users-finder.js'
import { branchTips } from '../../git/branches.js'
import { canUpdateMergeRequest } from '../../policies/issuable-policy.js'
import { canOnProject } from '../../policies/project-policy.js'
import { labelTitlesOf } from '../../services/labels/issuable-labels.js'
import { updateMergeRequest, type MergeRequestChanges } from '../../services/merge-requests/update-merge-request.js'
import { csrfField, errorExplanation, html, page } from '../html.js'
import { formOf, methodField, redirect, refusalOf, sendNotFound, sendPage, tokenOf } from '../visit.js'
import { projectChrome, projectUrl, signInFirst, type ProjectPageRequest } from './context.js'

interface EditValues {
  title: string
  description: string
  targetBranch: string
  assigneeUsername: string
  milestoneId: string
  labelNames: string
  removeSourceBranch: boolean
  squash: boolean
  workInProgress: boolean
}

/** The title's WIP prefix, as the original's "Start the title with WIP:" reads and writes it. */
const WIP_PREFIX = /^\s*(\[wip\]\s*|wip:\s*)/i

function titleWithWip(title: string, workInProgress: boolean): string {
  const bare = title.replace(WIP_PREFIX, '')
  return workInProgress ? `WIP: ${bare}` : bare
}

function mergeRequestUrl(request: ProjectPageRequest, iid: number): string {
  return `${projectUrl(request.loaded)}/merge_requests/${iid}`
}

/** GET `/merge_requests/:iid/edit`: the form, filled with the merge request's values or the refused ones. */
export async function editPage(request: ProjectPageRequest, target: LoadedMergeRequest, values?: EditValues, errors: readonly string[] = [], status = 200): Promise<FastifyReply> {
  const { req, reply, visit, loaded } = request
  const signIn = signInFirst(request)
  if (signIn !== null) return signIn
  const mr = target.mergeRequest
  if (!canUpdateMergeRequest(req.actor, target, mr)) return sendNotFound(reply, visit)
  const administers = canOnProject(req.actor, loaded, 'admin_merge_request')
  const [view, tips, milestones] = await Promise.all([
    loadMergeRequestView(req.ingot.db, mr),
    branchTips(req.ingot.repositories.open(mr.target_project_id)),
    administers ? listMilestones(req.ingot.db, { type: 'project', id: loaded.project.id }, { state: 'active' }, { page: 1, per_page: 100 }) : null,
  ])
  const shown = values ?? {
    title: titleWithWip(mr.title, false), description: mr.description ?? '', targetBranch: mr.target_branch,
    assigneeUsername: view.assignee?.username ?? '', milestoneId: mr.milestone_id === null ? '' : String(mr.milestone_id),
    labelNames: view.labels.join(', '), removeSourceBranch: mr.force_remove_source_branch === 1, squash: mr.squash === 1,
    workInProgress: isWorkInProgress(mr.title),
  }
  const merged = mr.state === 'merged'
  const checkbox = (name: string, checked: boolean, label: string) =>
    html`<label class="checkbox"><input type="checkbox" name="merge_request[${name}]" value="1"${checked ? html` checked` : ''}> ${label}</label>`
  return sendPage(reply, visit, status, page({ title: `Edit !${mr.iid} · ${loaded.project.name}`, user: visit.session?.user ?? null, csrfToken: tokenOf(visit) }, projectChrome(req.actor, loaded, 'merge_requests', html`
<h1>Edit merge request !${mr.iid}</h1>
${errorExplanation(errors)}
<form class="issuable-form" method="post" action="${mergeRequestUrl(request, mr.iid)}">
${csrfField(tokenOf(visit))}${methodField('PUT')}
<label for="merge_request_title">Title</label><input type="text" id="merge_request_title" name="merge_request[title]" value="${shown.title}" required maxlength="255">
${checkbox('wip', shown.workInProgress, 'Start the title with WIP: (a work in progress cannot be merged)')}
<label for="merge_request_description">Description</label><textarea id="merge_request_description" name="merge_request[description]" rows="10">${shown.description}</textarea>
${merged ? '' : html`<label for="merge_request_target_branch">Target branch</label><select id="merge_request_target_branch" name="merge_request[target_branch]" required>${tips.map((tip) => html`<option${tip.name === shown.targetBranch ? html` selected` : ''}>${tip.name}</option>`)}</select>`}
${milestones === null ? '' : html`<label for="merge_request_assignee_username">Assignee (username)</label><input type="text" id="merge_request_assignee_username" name="merge_request[assignee_username]" value="${shown.assigneeUsername}">
<label for="merge_request_milestone_id">Milestone</label><select id="merge_request_milestone_id" name="merge_request[milestone_id]"><option value="">No milestone</option>${milestones.items.map((m) => html`<option value="${m.id}"${String(m.id) === shown.milestoneId ? html` selected` : ''}>${m.title}</option>`)}</select>
<label for="merge_request_label_names">Labels (comma separated)</label><input type="text" id="merge_request_label_names" name="merge_request[label_names]" value="${shown.labelNames}">`}
${checkbox('force_remove_source_branch', shown.removeSourceBranch, 'Remove the source branch when the merge request is accepted')}
${checkbox('squash', shown.squash, 'Squash the commits when the merge request is accepted')}
<div class="actions"><button type="submit">Save changes</button><a href="${mergeRequestUrl(request, mr.iid)}">Cancel</a></div>
</form>`)))
}

function editValuesOf(request: ProjectPageRequest): EditValues {
  const form = formOf(request.req, 'merge_request')
  return {
    title: (form.title ?? '').trim(), description: form.description ?? '', targetBranch: form.target_branch ?? '',
    assigneeUsername: (form.assignee_username ?? '').trim().replace(/^@/, ''), milestoneId: form.milestone_id ?? '', labelNames: form.label_names ?? '',
    removeSourceBranch: form.force_remove_source_branch === '1', squash: form.squash === '1', workInProgress: form.wip === '1',
  }
}

/** The service's changes from the form's values; the problems the form itself can tell (an empty title, an unknown assignee). */
async function changesOf(request: ProjectPageRequest, target: LoadedMergeRequest, values: EditValues): Promise<{ changes: MergeRequestChanges; errors: string[] }> {
  const errors: string[] = []
  if (values.title.replace(WIP_PREFIX, '') === '') errors.push('Title can\'t be blank')
  const changes: MergeRequestChanges = {
    title: titleWithWip(values.title, values.workInProgress), description: values.description,
    forceRemoveSourceBranch: values.removeSourceBranch, squash: values.squash,
  }
  if (target.mergeRequest.state !== 'merged' && values.targetBranch !== '') changes.targetBranch = values.targetBranch
  if (canOnProject(request.req.actor, request.loaded, 'admin_merge_request')) {
    const assignee = values.assigneeUsername === '' ? null : await findUserByUsername(request.req.ingot.db, values.assigneeUsername)
    if (values.assigneeUsername !== '' && assignee === null) errors.push(`Assignee @${values.assigneeUsername} is not a user`)
    changes.assigneeId = assignee?.id ?? null
    changes.milestoneId = /^\d{1,18}$/.test(values.milestoneId) ? Number(values.milestoneId) : null
    changes.labels = labelTitlesOf(values.labelNames)
  }
  return { changes, errors }
}

/** POST `/merge_requests/:iid` (`_method=put`) from the edit form: saved, then the merge request; refused, the form with 422. */
export async function saveFromForm(request: ProjectPageRequest, target: LoadedMergeRequest): Promise<FastifyReply> {
  const { req, reply, visit, loaded } = request
  const values = editValuesOf(request)
  const { changes, errors } = await changesOf(request, target, values)
  if (errors.length > 0) return editPage(request, target, values, errors, 422)
  try {
    await updateMergeRequest(req.ingot, req.actor!, target, target.mergeRequest, changes, canOnProject(req.actor, loaded, 'admin_merge_request'))
  } catch (err) {
    return editPage(request, target, values, refusalOf(err), 422)
  }
  return redirect(reply, visit, mergeRequestUrl(request, target.mergeRequest.iid))
}
