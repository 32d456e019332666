// A project's issues at the original's URLs: `/issues` (the list, with the API's filters as the
// original's page names them: state, search, label_name[], milestone_title, author_username,
// assignee_username, sort), `/issues/new`, `/issues/:iid` (description, the merge requests that
// mention it, the sidebar of labels, assignees, milestone, due date and time tracking, the
// discussion and the comment form) and
// `/issues/:iid/edit`. Forms: POST `/issues` creates, POST `/issues/:iid` (`_method=put`) edits,
// closes and reopens, POST `/issues/:iid/notes` comments or previews. Everything goes through the
// API's loaders, finders, policies and services, so what a page shows and allows is what the API
// would: a confidential issue is the same 404 page as a missing one. While an external issue
// tracker is active, the list, new and issue URLs send to its pages instead (issue 5).
import type { FastifyReply } from 'fastify'
import { loadIssue, type LoadedIssue } from '../../api/load.js'
import type { Actor } from '../../auth/actor.js'
import { ApiError } from '../../common/errors.js'
import type { IssueView } from '../../entities/issue.js'
import { presentTimeStats } from '../../entities/time-stats.js'
import { parseLabelsFilter } from '../../finders/issuable-filters.js'
import { findMergeRequestsMentioningIssue } from '../../finders/merge-requests-finder.js'
import { findIssuePage, issuesByIds, loadIssueView, loadIssueViews, type IssueFilters, type IssueOrder } from '../../finders/issues-finder.js'
import { listMilestones } from '../../finders/milestones-finder.js'
import { findNotes, loadNoteViews } from '../../finders/notes-finder.js'
import { findUserByUsername } from '../../finders/users-finder.js'
import { canUpdateIssue } from '../../policies/issuable-policy.js'
import { canOnProject } from '../../policies/project-policy.js'
import { externalIssueTracker } from '../../services/integrations/project-links.js'
import { createIssue } from '../../services/issues/create-issue.js'
import type { IssueInput } from '../../services/issues/issue-rules.js'
import { updateIssue } from '../../services/issues/update-issue.js'
import { labelTitlesOf } from '../../services/labels/issuable-labels.js'
import { postNote } from '../../services/notes/create-note.js'
import { issueNoteable } from '../../services/notes/noteable.js'
import { canCreateNote } from '../../services/notes/note-rules.js'
import { SIGN_IN_PATH } from '../pages.js'
import { csrfField, errorExplanation, html, page, type SafeHtml } from '../html.js'
import { formMethod, formOf, methodField, redirect, refusalOf, sendNotFound, sendPage, tokenOf } from '../visit.js'
import { projectChrome, projectUrl, signInFirst, type ProjectPage, type ProjectPageRequest } from './context.js'
import {
  MERGE_REQUEST_STATES, commentForm, labelChips, labelsByTitle, notesList, pageLinks, projectMarkdown, queryList, queryValue, stateTabs, timeOf, userIdFilter, userLink,
} from './issuables.js'

const PER_PAGE = 20

const SORTS: Readonly<Record<string, IssueOrder>> = {
  created_date: { orderBy: 'created_at', sort: 'desc' },
  created_asc: { orderBy: 'created_at', sort: 'asc' },
  updated_desc: { orderBy: 'updated_at', sort: 'desc' },
  updated_asc: { orderBy: 'updated_at', sort: 'asc' },
}

const SORT_LABELS: Readonly<Record<string, string>> = {
  created_date: 'Created date', created_asc: 'Oldest created', updated_desc: 'Last updated', updated_asc: 'Oldest updated',
}

function issuesUrl(request: ProjectPageRequest): string {
  return `${projectUrl(request.loaded)}/issues`
}

function issueUrl(request: ProjectPageRequest, iid: number): string {
  return `${issuesUrl(request)}/${iid}`
}




async function listPage(request: ProjectPageRequest): Promise<FastifyReply> {
  const { req, reply, visit, loaded } = request
  const { db } = req.ingot
  const state = ['opened', 'closed', 'all'].includes(queryValue(request, 'state')) ? queryValue(request, 'state') : 'opened'
  const sortName = Object.hasOwn(SORTS, queryValue(request, 'sort')) ? queryValue(request, 'sort') : 'created_date'
  const asked = queryValue(request, 'page')
  const number = /^\d{1,6}$/.test(asked) && Number(asked) >= 1 ? Number(asked) : 1
  const labels = queryList(request, 'label_name[]').concat(queryList(request, 'label_name'))
  const milestone = queryValue(request, 'milestone_title')
  const [authorId, assigneeId] = await Promise.all([
    userIdFilter(request, queryValue(request, 'author_username')), userIdFilter(request, queryValue(request, 'assignee_username')),
  ])
  const filters: IssueFilters = {
    labels: labels.length === 0 ? undefined : parseLabelsFilter(labels.join(',')),
    milestone: milestone === '' ? undefined : milestone,
    authorId,
    assigneeId,
    search: queryValue(request, 'search').trim() === '' ? undefined : queryValue(request, 'search').trim(),
  }
  const scope = { kind: 'project' as const, subject: loaded }
  const order = SORTS[sortName]!
  const [opened, closed] = await Promise.all(['opened', 'closed'].map((s) =>
    findIssuePage(db, req.actor, scope, { ...filters, state: s }, order, { page: s === state ? number : 1, per_page: s === state ? PER_PAGE : 1 })))
  const shown = state === 'opened' ? opened! : state === 'closed' ? closed!
    : await findIssuePage(db, req.actor, scope, filters, order, { page: number, per_page: PER_PAGE })
  const views = await loadIssueViews(db, await issuesByIds(db, shown.items))
  const chips = await labelsByTitle(db, loaded.project.id, views.flatMap((view) => view.labels))
  const query = new URLSearchParams(req.query as Record<string, string>)
  const base = issuesUrl(request)
  const canCreate = canOnProject(req.actor, loaded, 'create_issue')
  return sendPage(reply, visit, 200, page({ title: `Issues · ${loaded.project.name}`, user: visit.session?.user ?? null, wide: true }, projectChrome(req.actor, loaded, 'issues', html`
<div class="list-header"><h1>Issues</h1><div class="actions"><a href="${projectUrl(loaded)}/boards">Boards</a><a href="${projectUrl(loaded)}/labels">Labels</a><a href="${projectUrl(loaded)}/milestones">Milestones</a>${canCreate ? html`<a class="button" href="${base}/new">New issue</a>` : ''}</div></div>
${stateTabs(base, query, [
    { state: 'opened', label: 'Open', count: opened!.total }, { state: 'closed', label: 'Closed', count: closed!.total },
    { state: 'all', label: 'All', count: opened!.total + closed!.total },
  ], state)}
<form class="inline-form filters" method="get" action="${base}" role="search">
<input type="hidden" name="state" value="${state}">
<div><label for="search">Search</label><input type="text" id="search" name="search" value="${queryValue(request, 'search')}"></div>
<div><label for="author_username">Author</label><input type="text" id="author_username" name="author_username" value="${queryValue(request, 'author_username')}"></div>
<div><label for="assignee_username">Assignee</label><input type="text" id="assignee_username" name="assignee_username" value="${queryValue(request, 'assignee_username')}"></div>
<div><label for="label_name">Label</label><input type="text" id="label_name" name="label_name[]" value="${labels.join(',')}"></div>
<div><label for="milestone_title">Milestone</label><input type="text" id="milestone_title" name="milestone_title" value="${milestone}"></div>
<div><label for="sort">Sort</label><select id="sort" name="sort">${Object.entries(SORT_LABELS).map(([value, label]) => html`<option value="${value}"${value === sortName ? html` selected` : ''}>${label}</option>`)}</select></div>
<button type="submit">Filter</button>
</form>
${views.length === 0 ? html`<p class="muted">No issues.</p>` : html`<ul class="issuable-list">${views.map((view) => issueRow(request, view, chips))}</ul>`}
${pageLinks(base, query, number, PER_PAGE, shown.total)}`)))
}

function issueRow(request: ProjectPageRequest, view: IssueView, chips: Parameters<typeof labelChips>[3]): SafeHtml {
  const { issue } = view
  return html`<li><div><a class="title" href="${issueUrl(request, issue.iid)}">${issue.title}</a>${issue.confidential === 1 ? html` <span class="badge">Confidential</span>` : ''}
${labelChips(request.loaded, 'issues', view.labels, chips)}</div>
<div class="muted">#${issue.iid} · opened ${timeOf(issue.created_at)} by ${view.author.name}${view.milestone === null ? '' : html` · ${view.milestone.milestone.title}`}${issue.state === 'closed' ? ' · closed' : ''}
${view.assignees.length === 0 ? '' : html` · assigned to ${view.assignees.map((user, i) => html`${i > 0 ? ', ' : ''}${user.name}`)}`} · ${issue.user_notes_count} ${issue.user_notes_count === 1 ? 'comment' : 'comments'} · updated ${timeOf(issue.updated_at)}</div></li>`
}

interface IssueFormValues {
  title: string
  description: string
  confidential: boolean
  labelNames: string
  assigneeUsernames: string
  milestoneId: string
  dueDate: string
}

async function issueForm(request: ProjectPageRequest, action: string, values: IssueFormValues, errors: readonly string[], editing: boolean): Promise<SafeHtml> {
  const { req, visit, loaded } = request
  // Labels, assignees, milestone and due date are for those who may manage issues (the service drops them for others).
  const manages = canOnProject(req.actor, loaded, 'admin_issue')
  const milestones = manages ? (await listMilestones(req.ingot.db, { type: 'project', id: loaded.project.id }, { state: 'active' }, { page: 1, per_page: 100 })).items : []
  return html`${errorExplanation(errors)}
<form class="issuable-form" method="post" action="${action}">
${csrfField(tokenOf(visit))}${editing ? methodField('PUT') : ''}
<label for="issue_title">Title</label><input type="text" id="issue_title" name="issue[title]" value="${values.title}" required maxlength="255">
<label for="issue_description">Description</label><textarea id="issue_description" name="issue[description]" rows="10">${values.description}</textarea>
<label class="checkbox"><input type="checkbox" name="issue[confidential]" value="1"${values.confidential ? html` checked` : ''}> This issue is confidential and should only be visible to team members with at least Reporter access</label>
${manages ? html`<label for="issue_assignee_usernames">Assignees (usernames, comma separated)</label><input type="text" id="issue_assignee_usernames" name="issue[assignee_usernames]" value="${values.assigneeUsernames}">
<label for="issue_label_names">Labels (comma separated)</label><input type="text" id="issue_label_names" name="issue[label_names]" value="${values.labelNames}">
<label for="issue_milestone_id">Milestone</label><select id="issue_milestone_id" name="issue[milestone_id]"><option value="">No milestone</option>${milestones.map((m) => html`<option value="${m.id}"${String(m.id) === values.milestoneId ? html` selected` : ''}>${m.title}</option>`)}</select>
<label for="issue_due_date">Due date</label><input type="date" id="issue_due_date" name="issue[due_date]" value="${values.dueDate}">` : ''}
<button type="submit">${editing ? 'Save changes' : 'Create issue'}</button>
</form>`
}

function formValuesOf(request: ProjectPageRequest): IssueFormValues {
  const form = formOf(request.req, 'issue')
  return {
    title: form.title ?? '', description: form.description ?? '', confidential: form.confidential === '1', labelNames: form.label_names ?? '',
    assigneeUsernames: form.assignee_usernames ?? '', milestoneId: form.milestone_id ?? '', dueDate: form.due_date ?? '',
  }
}

const DUE_DATE = /^\d{4}-\d{2}-\d{2}$/

/** The service's input from the form's values; the problems the form itself can tell (unknown usernames, a bad date). */
async function inputOf(request: ProjectPageRequest, values: IssueFormValues): Promise<{ input: IssueInput; errors: string[] }> {
  const errors: string[] = []
  const input: IssueInput = { title: values.title, description: values.description, confidential: values.confidential }
  if (canOnProject(request.req.actor, request.loaded, 'admin_issue')) {
    const usernames = labelTitlesOf(values.assigneeUsernames.replace(/@/g, ''))
    const users = await Promise.all(usernames.map((username) => findUserByUsername(request.req.ingot.db, username)))
    users.forEach((user, i) => { if (user === null) errors.push(`Assignee @${usernames[i]} is not a user`) })
    input.assigneeIds = users.flatMap((user) => (user === null ? [] : [user.id]))
    input.labels = labelTitlesOf(values.labelNames)
    input.milestoneId = /^\d{1,18}$/.test(values.milestoneId) ? Number(values.milestoneId) : null
    if (values.dueDate !== '' && !DUE_DATE.test(values.dueDate)) errors.push('Due date is not a date (YYYY-MM-DD)')
    input.dueDate = values.dueDate === '' ? null : values.dueDate
  }
  return { input, errors }
}

function signedInActor(request: ProjectPageRequest): Actor | null {
  return request.visit.session === null ? null : request.req.actor
}


async function newPage(request: ProjectPageRequest, values?: IssueFormValues, errors: readonly string[] = [], status = 200): Promise<FastifyReply> {
  const { req, reply, visit, loaded } = request
  const signIn = signInFirst(request)
  if (signIn !== null) return signIn
  if (!canOnProject(req.actor, loaded, 'create_issue')) return sendNotFound(reply, visit)
  const form = await issueForm(request, issuesUrl(request), values ?? {
    title: '', description: '', confidential: false, labelNames: '', assigneeUsernames: '', milestoneId: '', dueDate: '',
  }, errors, false)
  return sendPage(reply, visit, status, page({ title: `New issue · ${loaded.project.name}`, user: visit.session?.user ?? null, csrfToken: tokenOf(visit) }, projectChrome(req.actor, loaded, 'issues', html`
<h1>New issue</h1>
${form}`)))
}

async function loadedIssue(request: ProjectPageRequest, iidSegment: string | undefined): Promise<LoadedIssue | null> {
  if (iidSegment === undefined || !/^\d{1,9}$/.test(iidSegment)) return null
  try {
    return await loadIssue(request.req, String(request.loaded.project.id), Number(iidSegment))
  } catch (err) {
    if (err instanceof ApiError && (err.statusCode === 404 || err.statusCode === 403)) return null
    throw err
  }
}

interface IssuePageExtras {
  commentText?: string
  preview?: SafeHtml | null
  errors?: readonly string[]
  status?: number
}

async function showPage(request: ProjectPageRequest, target: LoadedIssue, extras: IssuePageExtras = {}): Promise<FastifyReply> {
  const { req, reply, visit, loaded } = request
  const { db } = req.ingot
  const { issue } = target
  const noteable = issueNoteable(issue)
  const readsMergeRequests = canOnProject(req.actor, loaded, 'read_merge_request')
  const [view, noteRows, related] = await Promise.all([
    loadIssueView(db, issue), findNotes(db, noteable, { orderBy: 'created_at', sort: 'asc' }).execute(),
    readsMergeRequests ? findMergeRequestsMentioningIssue(db, req.actor, { id: loaded.project.id, fullPath: `${loaded.namespace.full_path}/${loaded.project.path}` }, issue.iid) : [],
  ])
  const [notes, chips] = await Promise.all([loadNoteViews(db, noteRows, noteable), labelsByTitle(db, loaded.project.id, view.labels)])
  const actor = signedInActor(request)
  const canEdit = actor !== null && canUpdateIssue(actor, target, issue, target.assigneeIds)
  const canComment = actor !== null && canCreateNote(actor, target, noteable)
  const here = issueUrl(request, issue.iid)
  const time = presentTimeStats(issue)
  const token = visit.session === null ? undefined : tokenOf(visit)
  const stateButton = canEdit && token !== undefined ? html`<form method="post" action="${here}">${csrfField(token)}${methodField('PUT')}
<input type="hidden" name="issue[state_event]" value="${issue.state === 'opened' ? 'close' : 'reopen'}"><button type="submit">${issue.state === 'opened' ? 'Close issue' : 'Reopen issue'}</button></form>` : ''
  return sendPage(reply, visit, extras.status ?? 200, page({ title: `${issue.title} (#${issue.iid}) · Issues · ${loaded.project.name}`, user: visit.session?.user ?? null, csrfToken: token, wide: true }, projectChrome(req.actor, loaded, 'issues', html`
<div class="issuable-header">
<h1>${issue.title} <small class="muted">#${issue.iid}</small></h1>
<p><span class="badge state-${issue.state}">${issue.state === 'opened' ? 'Open' : 'Closed'}</span>${issue.confidential === 1 ? html` <span class="badge">Confidential</span>` : ''}
Opened ${timeOf(issue.created_at)} by ${userLink(view.author)}${view.closedBy === null || issue.closed_at === null ? '' : html` · closed ${timeOf(issue.closed_at)} by ${userLink(view.closedBy)}`}</p>
<div class="actions">${canEdit ? html`<a class="button" href="${here}/edit">Edit</a>` : ''}${stateButton}</div>
</div>
<div class="issuable">
<div class="issuable-main">
<div class="box"><div class="content markdown">${issue.description === null || issue.description.trim() === '' ? html`<p class="muted">No description.</p>` : projectMarkdown(loaded, issue.description)}</div></div>
${related.length === 0 ? '' : html`<section aria-labelledby="related-title"><h2 id="related-title">Related merge requests <span class="count">${related.length}</span></h2>
<ul class="issuable-list">${related.map(({ mergeRequest: mr }) => html`<li><a class="title" href="${projectUrl(loaded)}/merge_requests/${mr.iid}">${mr.title}</a> <span class="badge state-${mr.state}">${MERGE_REQUEST_STATES[mr.state]}</span> <span class="muted">!${mr.iid}</span></li>`)}</ul></section>`}
<section aria-labelledby="discussion-title"><h2 id="discussion-title">Discussion</h2>
${notesList(loaded, notes)}
${errorExplanation(extras.errors ?? [])}
${canComment && token !== undefined ? commentForm({ action: `${here}/notes`, csrfToken: token, text: extras.commentText, preview: extras.preview })
    : visit.session === null ? html`<p><a href="${SIGN_IN_PATH}">Sign in</a> to comment.</p>` : ''}
</section>
</div>
<aside class="issuable-sidebar" aria-label="Issue details"><dl>
<dt>Assignees</dt><dd>${view.assignees.length === 0 ? html`<span class="muted">None</span>` : view.assignees.map((user, i) => html`${i > 0 ? ', ' : ''}${userLink(user)}`)}</dd>
<dt>Milestone</dt><dd>${view.milestone === null ? html`<span class="muted">None</span>` : html`<a href="${projectUrl(loaded)}/milestones/${view.milestone.milestone.iid}">${view.milestone.milestone.title}</a>`}</dd>
<dt>Labels</dt><dd>${view.labels.length === 0 ? html`<span class="muted">None</span>` : labelChips(loaded, 'issues', view.labels, chips)}</dd>
<dt>Due date</dt><dd>${issue.due_date ?? html`<span class="muted">None</span>`}</dd>
<dt>Time tracking</dt><dd>${time.human_time_estimate === null && time.human_total_time_spent === null ? html`<span class="muted">No estimate or time spent</span>`
    : html`Spent ${time.human_total_time_spent ?? '0h'} of ${time.human_time_estimate ?? 'no estimate'}`}</dd>
${issue.discussion_locked === 1 ? html`<dt>Discussion</dt><dd>Locked</dd>` : ''}
</dl></aside>
</div>`)))
}

async function editPage(request: ProjectPageRequest, target: LoadedIssue, values?: IssueFormValues, errors: readonly string[] = [], status = 200): Promise<FastifyReply> {
  const { req, reply, visit, loaded } = request
  const signIn = signInFirst(request)
  if (signIn !== null) return signIn
  const { issue } = target
  if (!canUpdateIssue(req.actor, target, issue, target.assigneeIds)) return sendNotFound(reply, visit)
  const view = await loadIssueView(req.ingot.db, issue)
  const form = await issueForm(request, issueUrl(request, issue.iid), values ?? {
    title: issue.title, description: issue.description ?? '', confidential: issue.confidential === 1, labelNames: view.labels.join(', '),
    assigneeUsernames: view.assignees.map((user) => user.username).join(', '), milestoneId: issue.milestone_id === null ? '' : String(issue.milestone_id),
    dueDate: issue.due_date ?? '',
  }, errors, true)
  return sendPage(reply, visit, status, page({ title: `Edit #${issue.iid} · ${loaded.project.name}`, user: visit.session?.user ?? null, csrfToken: tokenOf(visit) }, projectChrome(req.actor, loaded, 'issues', html`
<h1>Edit issue #${issue.iid}</h1>
${form}`)))
}

/** Where an active external issue tracker has the page this URL names, as the original sends its issue links; null for none. */
async function externalTrackerPage(request: ProjectPageRequest): Promise<string | null> {
  const tracker = await externalIssueTracker(request.req.ingot, request.loaded.project.id)
  if (tracker === null) return null
  const [first, ...more] = request.rest
  if (first === undefined) return tracker.projectUrl
  if (more.length > 0) return null
  if (first === 'new') return tracker.newIssueUrl
  return /^\d{1,9}$/.test(first) ? tracker.issueUrl(Number(first)) : null
}

const issuesPage: ProjectPage = async (request) => {
  const { req, reply, visit, loaded, rest } = request
  const external = await externalTrackerPage(request)
  if (external !== null) return reply.redirect(external, 302)
  if (!canOnProject(req.actor, loaded, 'read_issue')) return sendNotFound(reply, visit)
  const [first, second, ...more] = rest
  if (first === undefined) return listPage(request)
  if (first === 'new' && second === undefined) return newPage(request)
  const target = await loadedIssue(request, first)
  if (target === null || more.length > 0) return sendNotFound(reply, visit)
  if (second === undefined) return showPage(request, target)
  if (second === 'edit') return editPage(request, target)
  return sendNotFound(reply, visit)
}

/** POST `/issues`: a new issue, then its page; the form again with the service's messages when refused. */
async function createFromForm(request: ProjectPageRequest): Promise<FastifyReply> {
  const { req, reply, visit, loaded } = request
  if (!canOnProject(req.actor, loaded, 'create_issue')) return sendNotFound(reply, visit)
  const values = formValuesOf(request)
  const { input, errors } = await inputOf(request, values)
  if (errors.length > 0) return newPage(request, values, errors, 422)
  try {
    const created = await createIssue(req.ingot, req.actor!, loaded, { ...input, title: values.title })
    return redirect(reply, visit, issueUrl(request, created.issue.iid))
  } catch (err) {
    return newPage(request, values, refusalOf(err), 422)
  }
}

/** POST `/issues/:iid` with `_method=put`: the edit form's changes, or a state event (close, reopen) alone. */
async function updateFromForm(request: ProjectPageRequest, target: LoadedIssue): Promise<FastifyReply> {
  const { req, reply, visit } = request
  if (formMethod(req) !== 'PUT' || !canUpdateIssue(req.actor, target, target.issue, target.assigneeIds)) return sendNotFound(reply, visit)
  const stateEvent = formOf(req, 'issue').state_event
  if (stateEvent === 'close' || stateEvent === 'reopen') {
    await updateIssue(req.ingot, req.actor!, target, { stateEvent })
    return redirect(reply, visit, issueUrl(request, target.issue.iid))
  }
  const values = formValuesOf(request)
  const { input, errors } = await inputOf(request, values)
  if (errors.length > 0) return editPage(request, target, values, errors, 422)
  try {
    await updateIssue(req.ingot, req.actor!, target, input)
    return redirect(reply, visit, issueUrl(request, target.issue.iid))
  } catch (err) {
    return editPage(request, target, values, refusalOf(err), 422)
  }
}

/** POST `/issues/:iid/notes`: the comment posted (then shown at its anchor), or with `preview` the page with the text rendered. */
async function commentFromForm(request: ProjectPageRequest, target: LoadedIssue): Promise<FastifyReply> {
  const { req, reply, visit, loaded } = request
  const noteable = issueNoteable(target.issue)
  if (!canCreateNote(req.actor, target, noteable)) return sendNotFound(reply, visit)
  const text = formOf(req, 'note').note ?? ''
  if ((req.body as Record<string, unknown>).preview !== undefined) {
    return showPage(request, target, { commentText: text, preview: text.trim() === '' ? html`<p class="muted">Nothing to preview.</p>` : projectMarkdown(loaded, text) })
  }
  try {
    const posted = await postNote(req.ingot, { noteable, authorId: req.actor!.user.id, body: text })
    const anchor = posted.kind === 'note' ? `#note_${posted.note.id}` : ''
    return redirect(reply, visit, `${issueUrl(request, target.issue.iid)}${anchor}`)
  } catch (err) {
    return showPage(request, target, { commentText: text, errors: refusalOf(err), status: 422 })
  }
}

export const issueForms: ProjectPage = async (request) => {
  const { req, reply, visit, loaded, rest } = request
  if (!canOnProject(req.actor, loaded, 'read_issue')) return sendNotFound(reply, visit)
  const [first, second, ...more] = rest
  if (first === undefined) return createFromForm(request)
  const target = await loadedIssue(request, first)
  if (target === null || more.length > 0) return sendNotFound(reply, visit)
  if (second === undefined) return updateFromForm(request, target)
  if (second === 'notes') return commentFromForm(request, target)
  return sendNotFound(reply, visit)
}

export default issuesPage
