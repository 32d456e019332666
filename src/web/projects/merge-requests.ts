// A project's merge requests at the original's URLs: `/merge_requests` (the list with the API's
// filters: state, search, label_name[], source and target branch, author and assignee by
// username, sort), `/merge_requests/new` (new-merge-request.ts: the source and target projects
// among this one and its forks, and their branches), `/merge_requests/:iid` (its description,
// sidebar, head pipeline, merge box and discussion) with its `/commits` and `/diffs` tabs (the
// Changes tab with its line discussions: diff-discussions.ts) and its `/edit` form
// (merge-request-edit.ts). Forms: POST `/merge_requests` creates, POST `/merge_requests/:iid`
// (`_method=put`) closes and reopens, or saves the edit form, POST `/merge_requests/:iid/merge`
// merges (through the API's merge service: its permissions, merge method, pipeline rule and sha
// check, with their refusals shown), POST `/merge_requests/:iid/notes` comments or previews, POST
// `/merge_requests/:iid/discussions[/:id[/notes]]` starts, resolves or replies to a line discussion.
import type { FastifyReply } from 'fastify'
import { loadMergeRequest, type LoadedMergeRequest } from '../../api/load.js'
import { ApiError } from '../../common/errors.js'
import type { MergeRequestView } from '../../entities/merge-request.js'
import { loadMergeRequestDetails, loadMergeRequestView, listMergeRequests, type MergeRequestFilters } from '../../finders/merge-requests-finder.js'
import { parseLabelsFilter } from '../../finders/issuable-filters.js'
import { findDiffDiscussions, findNotes, loadNoteViews } from '../../finders/notes-finder.js'
import { commitIdsBetween, countCommitsBetween } from '../../git/merge.js'
import { canUpdateMergeRequest } from '../../policies/issuable-policy.js'
import { canOnProject } from '../../policies/project-policy.js'
import { canBeMergedBy, mergeMergeRequest } from '../../services/merge-requests/merge-merge-request.js'
import { updateMergeRequest } from '../../services/merge-requests/update-merge-request.js'
import { postNote } from '../../services/notes/create-note.js'
import { mergeRequestNoteable } from '../../services/notes/noteable.js'
import { canCreateNote, canResolveDiscussion } from '../../services/notes/note-rules.js'
import { diffBetween, renderDiffParts } from '../diff.js'
import { SafeHtml, csrfField, errorExplanation, html, page } from '../html.js'
import { SIGN_IN_PATH } from '../pages.js'
import { formMethod, formOf, methodField, redirect, refusalOf, pageAround, sendNotFound, sendPage, tokenOf, type PageParts } from '../visit.js'
import { commitUrl } from './commit.js'
import { discussionAnnotations, discussionFromForm, parseLineCode, startFromForm, type LineCode, type ShowDiffs } from './diff-discussions.js'
import { editPage, saveFromForm } from './merge-request-edit.js'
import { createFromForm, newPage } from './new-merge-request.js'
import { pageUrl, projectChrome, projectUrl, type ProjectPage, type ProjectPageRequest } from './context.js'
import {
  MERGE_REQUEST_STATES, commentForm, labelChips, labelsByTitle, notesList, pageLinks, projectMarkdown, queryList, queryValue, stateTabs, timeOf, userIdFilter, userLink,
} from './issuables.js'

const PER_PAGE = 20
const COMMITS_PER_PAGE = 40


function listUrl(request: ProjectPageRequest): string {
  return `${projectUrl(request.loaded)}/merge_requests`
}

function mergeRequestUrl(request: ProjectPageRequest, iid: number): string {
  return `${listUrl(request)}/${iid}`
}





async function listPage(request: ProjectPageRequest): Promise<FastifyReply> {
  const { req, reply, visit, loaded } = request
  const { db } = req.ingot
  const state = ['opened', 'merged', 'closed', 'all'].includes(queryValue(request, 'state')) ? queryValue(request, 'state') : 'opened'
  const asked = queryValue(request, 'page')
  const number = /^\d{1,6}$/.test(asked) && Number(asked) >= 1 ? Number(asked) : 1
  const labels = queryList(request, 'label_name[]').concat(queryList(request, 'label_name'))
  const [authorId, assigneeId] = await Promise.all([
    userIdFilter(request, queryValue(request, 'author_username')), userIdFilter(request, queryValue(request, 'assignee_username')),
  ])
  const search = queryValue(request, 'search').trim()
  const filters: MergeRequestFilters = {
    labels: labels.length === 0 ? undefined : parseLabelsFilter(labels.join(',')),
    authorId, assigneeId, search: search === '' ? undefined : search,
    sourceBranch: queryValue(request, 'source_branch') || undefined, targetBranch: queryValue(request, 'target_branch') || undefined,
    orderBy: queryValue(request, 'sort') === 'updated_desc' ? 'updated_at' : 'created_at', sort: 'desc',
  }
  const scope = { kind: 'project' as const, projectId: loaded.project.id }
  const countOf = async (s: string) => (await listMergeRequests(db, req.actor, scope, { ...filters, state: s }, { page: 1, per_page: 1 })).total
  const [shown, opened, merged, closed] = await Promise.all([
    listMergeRequests(db, req.actor, scope, { ...filters, state: state === 'all' ? undefined : state }, { page: number, per_page: PER_PAGE }),
    countOf('opened'), countOf('merged'), countOf('closed'),
  ])
  const chips = await labelsByTitle(db, loaded.project.id, shown.items.flatMap((view) => view.labels))
  const query = new URLSearchParams(req.query as Record<string, string>)
  const base = listUrl(request)
  const canCreate = canOnProject(req.actor, loaded, 'create_merge_request_from')
  return sendPage(reply, visit, 200, page({ title: `Merge requests · ${loaded.project.name}`, user: visit.session?.user ?? null, wide: true }, projectChrome(req.actor, loaded, 'merge_requests', html`
<div class="list-header"><h1>Merge requests</h1>${canCreate ? html`<a class="button" href="${base}/new">New merge request</a>` : ''}</div>
${stateTabs(base, query, [
    { state: 'opened', label: 'Open', count: opened }, { state: 'merged', label: 'Merged', count: merged },
    { state: 'closed', label: 'Closed', count: closed }, { state: 'all', label: 'All', count: opened + merged + closed },
  ], state)}
<form class="inline-form filters" method="get" action="${base}" role="search">
<input type="hidden" name="state" value="${state}">
<div><label for="search">Search</label><input type="text" id="search" name="search" value="${search}"></div>
<div><label for="author_username">Author</label><input type="text" id="author_username" name="author_username" value="${queryValue(request, 'author_username')}"></div>
<div><label for="assignee_username">Assignee</label><input type="text" id="assignee_username" name="assignee_username" value="${queryValue(request, 'assignee_username')}"></div>
<div><label for="label_name">Label</label><input type="text" id="label_name" name="label_name[]" value="${labels.join(',')}"></div>
<div><label for="source_branch">Source branch</label><input type="text" id="source_branch" name="source_branch" value="${queryValue(request, 'source_branch')}"></div>
<div><label for="target_branch">Target branch</label><input type="text" id="target_branch" name="target_branch" value="${queryValue(request, 'target_branch')}"></div>
<button type="submit">Filter</button>
</form>
${shown.items.length === 0 ? html`<p class="muted">No merge requests.</p>` : html`<ul class="issuable-list">${shown.items.map((view) => mergeRequestRow(request, view, chips))}</ul>`}
${pageLinks(base, query, number, PER_PAGE, shown.total)}`)))
}

function mergeRequestRow(request: ProjectPageRequest, view: MergeRequestView, chips: Parameters<typeof labelChips>[3]): SafeHtml {
  const mr = view.mergeRequest
  return html`<li><div><a class="title" href="${mergeRequestUrl(request, mr.iid)}">${mr.title}</a>${mr.state === 'opened' ? '' : html` <span class="badge state-${mr.state}">${MERGE_REQUEST_STATES[mr.state]}</span>`}
${labelChips(request.loaded, 'merge_requests', view.labels, chips)}</div>
<div class="muted">!${mr.iid} · opened ${timeOf(mr.created_at)} by ${view.author.name} · <span class="mono">${mr.source_branch}</span> → <span class="mono">${mr.target_branch}</span>${view.assignee === null ? '' : html` · assigned to ${view.assignee.name}`} · ${mr.user_notes_count} ${mr.user_notes_count === 1 ? 'comment' : 'comments'} · updated ${timeOf(mr.updated_at)}</div></li>`
}

async function loadedMergeRequest(request: ProjectPageRequest, iidSegment: string | undefined): Promise<LoadedMergeRequest | null> {
  if (iidSegment === undefined || !/^\d{1,9}$/.test(iidSegment)) return null
  try {
    return await loadMergeRequest(request.req, String(request.loaded.project.id), Number(iidSegment))
  } catch (err) {
    if (err instanceof ApiError && (err.statusCode === 404 || err.statusCode === 403)) return null
    throw err
  }
}

type Tab = 'overview' | 'commits' | 'diffs'

interface ShowExtras {
  commentText?: string
  preview?: SafeHtml | null
  errors?: readonly string[]
  mergeErrors?: readonly string[]
  status?: number
  /** On the Changes tab: the line whose comment form is open after a refused comment. */
  lineCode?: LineCode
}

/** The merge request's header, tabs and sidebar around a tab's content. */
async function showPage(request: ProjectPageRequest, target: LoadedMergeRequest, tab: Tab, extras: ShowExtras = {}): Promise<FastifyReply> {
  const { req, reply, visit, loaded } = request
  const { db } = req.ingot
  const mr = target.mergeRequest
  const [view, details] = await Promise.all([loadMergeRequestView(db, mr), loadMergeRequestDetails(req.ingot, req.actor, mr)])
  const chips = await labelsByTitle(db, loaded.project.id, view.labels)
  const here = mergeRequestUrl(request, mr.iid)
  const signedIn = visit.session !== null
  const token = signedIn ? tokenOf(visit) : undefined
  const canEdit = signedIn && canUpdateMergeRequest(req.actor, target, mr)
  const stateButton = canEdit && token !== undefined && (mr.state === 'opened' || mr.state === 'closed') ? html`<form method="post" action="${here}">${csrfField(token)}${methodField('PUT')}
<input type="hidden" name="merge_request[state_event]" value="${mr.state === 'opened' ? 'close' : 'reopen'}"><button type="submit">${mr.state === 'opened' ? 'Close merge request' : 'Reopen merge request'}</button></form>` : ''
  const tabLink = (name: Tab, path: string, label: string) => html`<li><a href="${here}${path}"${name === tab ? html` aria-current="page"` : ''}>${label}</a></li>`
  const changes = tab === 'diffs' ? await diffsTab(request, target, token, extras) : null
  const content = tab === 'overview' ? await overviewTab(request, target, details, token, extras)
    : tab === 'commits' ? await commitsTab(request, target) : html`${changes!.summary}${new SafeHtml(DIFF_SECTIONS)}`
  const pipeline = details.headPipeline
  const markup = page({ title: `${mr.title} (!${mr.iid}) · Merge requests · ${loaded.project.name}`, user: visit.session?.user ?? null, csrfToken: token, wide: true }, projectChrome(req.actor, loaded, 'merge_requests', html`
<div class="issuable-header">
<h1>${mr.title} <small class="muted">!${mr.iid}</small></h1>
<p><span class="badge state-${mr.state}">${MERGE_REQUEST_STATES[mr.state]}</span> ${userLink(view.author)} wants to merge <span class="mono">${mr.source_branch}</span> into <span class="mono">${mr.target_branch}</span> · opened ${timeOf(mr.created_at)}</p>
<div class="actions">${canEdit ? html`<a class="button" href="${here}/edit">Edit</a>` : ''}${stateButton}</div>
</div>
<nav aria-label="Merge request"><ul class="actions state-tabs">${tabLink('overview', '', 'Overview')}${tabLink('commits', '/commits', 'Commits')}${tabLink('diffs', '/diffs', `Changes${details.changesCount === null ? '' : ` (${details.changesCount})`}`)}</ul></nav>
<div class="issuable">
<div class="issuable-main">${content}</div>
<aside class="issuable-sidebar" aria-label="Merge request details"><dl>
<dt>Assignee</dt><dd>${view.assignee === null ? html`<span class="muted">None</span>` : userLink(view.assignee)}</dd>
<dt>Milestone</dt><dd>${view.milestone === null ? html`<span class="muted">None</span>` : html`<a href="${projectUrl(loaded)}/milestones/${view.milestone.milestone.iid}">${view.milestone.milestone.title}</a>`}</dd>
<dt>Labels</dt><dd>${view.labels.length === 0 ? html`<span class="muted">None</span>` : labelChips(loaded, 'merge_requests', view.labels, chips)}</dd>
<dt>Pipeline</dt><dd>${pipeline === null ? html`<span class="muted">None</span>` : html`<a href="/${pipeline.projectFullPath}/pipelines/${pipeline.pipeline.id}">#${pipeline.pipeline.id}</a> <span class="badge status-${pipeline.pipeline.status}">${pipeline.pipeline.status}</span>`}</dd>
</dl></aside>
</div>`))
  if (changes === null) return sendPage(reply, visit, extras.status ?? 200, markup)
  // The diff's files go out as their kept bytes, in place of the mark, never joined into the page.
  return sendPage(reply, visit, extras.status ?? 200, pageAround(markup, DIFF_SECTIONS, changes.sections))
}

/** Where the Changes tab's file sections go in its page; escaped text can hold no `<`, so nothing else can look like it. */
const DIFF_SECTIONS = '<!--diff-sections-->'

async function overviewTab(request: ProjectPageRequest, target: LoadedMergeRequest, details: Awaited<ReturnType<typeof loadMergeRequestDetails>>, token: string | undefined, extras: ShowExtras): Promise<SafeHtml> {
  const { req, visit, loaded } = request
  const { db } = req.ingot
  const mr = target.mergeRequest
  const noteable = mergeRequestNoteable(mr)
  const notes = await loadNoteViews(db, await findNotes(db, noteable, { orderBy: 'created_at', sort: 'asc' }).execute(), noteable)
  const canComment = token !== undefined && canCreateNote(req.actor, target, noteable)
  const here = mergeRequestUrl(request, mr.iid)
  return html`<div class="box"><div class="content markdown">${mr.description === null || mr.description.trim() === '' ? html`<p class="muted">No description.</p>` : projectMarkdown(loaded, mr.description)}</div></div>
${errorExplanation(extras.mergeErrors ?? [])}
${await mergeBox(request, target, details, token)}
<section aria-labelledby="discussion-title"><h2 id="discussion-title">Discussion</h2>
${notesList(loaded, notes)}
${errorExplanation(extras.errors ?? [])}
${canComment && token !== undefined ? commentForm({ action: `${here}/notes`, csrfToken: token, text: extras.commentText, preview: extras.preview })
    : visit.session === null ? html`<p><a href="${SIGN_IN_PATH}">Sign in</a> to comment.</p>` : ''}
</section>`
}

/** What the merge request's state allows: merged or closed in words, else the merge form for those who may merge. */
async function mergeBox(request: ProjectPageRequest, target: LoadedMergeRequest, details: Awaited<ReturnType<typeof loadMergeRequestDetails>>, token: string | undefined): Promise<SafeHtml> {
  const { req, loaded } = request
  const mr = target.mergeRequest
  if (mr.state === 'merged') {
    return html`<p class="notice">Merged${mr.merged_at === null ? '' : html` ${timeOf(mr.merged_at)}`}${mr.merge_commit_sha === null ? '' : html` in <a class="mono" href="${commitUrl(request, mr.merge_commit_sha)}">${mr.merge_commit_sha.slice(0, 8)}</a>`}.</p>`
  }
  if (mr.state === 'closed') return html`<p class="notice">Closed: this merge request will not be merged.</p>`
  if (mr.state === 'locked') return html`<p class="notice">Merging…</p>`
  const status = mr.merge_status === 'cannot_be_merged' ? html`<p class="alert">There are merge conflicts: this merge request cannot be merged as it is.</p>` : ''
  const pipeline = details.headPipeline?.pipeline ?? null
  const running = pipeline !== null && ['created', 'pending', 'running'].includes(pipeline.status)
  if (token === undefined || req.actor === null || !await canBeMergedBy(req.ingot, req.actor, target, mr)) {
    return html`<section class="box merge-box" aria-label="Merge"><div class="content">${status}<p class="muted">Ready to be merged by someone who may push to <span class="mono">${mr.target_branch}</span>.</p></div></section>`
  }
  const method = loaded.project.merge_method === 'ff' ? 'Fast-forward merge' : loaded.project.merge_method === 'rebase_merge' ? 'Merge (semi-linear history)' : 'Merge'
  return html`<section class="box merge-box" aria-label="Merge"><form class="content" method="post" action="${mergeRequestUrl(request, mr.iid)}/merge">
${csrfField(token)}${status}
<input type="hidden" name="sha" value="${mr.sha ?? ''}">
<label class="checkbox"><input type="checkbox" name="should_remove_source_branch" value="1"${mr.force_remove_source_branch === 1 ? html` checked` : ''}> Remove the source branch</label>
<label class="checkbox"><input type="checkbox" name="squash" value="1"${mr.squash === 1 ? html` checked` : ''}> Squash the commits</label>
<div class="actions">${running ? html`<button type="submit" name="merge_when_pipeline_succeeds" value="1">Merge when the pipeline succeeds</button>` : ''}<button type="submit">${method}</button></div>
</form></section>`
}

async function commitsTab(request: ProjectPageRequest, target: LoadedMergeRequest): Promise<SafeHtml> {
  const mr = target.mergeRequest
  if (mr.sha === null) return html`<p class="muted">The source branch is gone: no commits to show.</p>`
  const repo = request.req.ingot.repositories.open(mr.target_project_id)
  const asked = String((request.req.query as Record<string, unknown>).page ?? '1')
  const number = /^\d{1,4}$/.test(asked) && Number(asked) >= 1 ? Number(asked) : 1
  const exclude = mr.target_sha === null ? [] : [mr.target_sha]
  const [ids, total] = await Promise.all([
    commitIdsBetween(repo, exclude, mr.sha, { offset: (number - 1) * COMMITS_PER_PAGE, limit: COMMITS_PER_PAGE }), countCommitsBetween(repo, exclude, mr.sha),
  ])
  const commits = await repo.readCommits(ids)
  const here = `${mergeRequestUrl(request, mr.iid)}/commits`
  return html`<h2>${total} ${total === 1 ? 'commit' : 'commits'}</h2>
<ol class="commit-list">${commits.map((c) => html`<li><a class="mono" href="${commitUrl(request, c.id)}">${c.id.slice(0, 8)}</a> ${c.message.split('\n', 1)[0]} <span class="muted">· ${c.author.name}</span></li>`)}</ol>
${pageLinks(here, new URLSearchParams(), number, COMMITS_PER_PAGE, total)}`
}

/** The merge request's changes: from the merge base of its target and head to its head; null when a side is gone. */
async function mergeRequestDiff(request: ProjectPageRequest, target: LoadedMergeRequest) {
  const mr = target.mergeRequest
  if (mr.sha === null || mr.target_sha === null) return null
  const repo = request.req.ingot.repositories.open(mr.target_project_id)
  const base = await repo.mergeBase(mr.target_sha, mr.sha)
  return { base, head: mr.sha, ...await diffBetween(repo, base, mr.sha) }
}

/** The Changes tab: the summary as markup, and the files' sections as parts of the page (renderDiffParts). */
async function diffsTab(request: ProjectPageRequest, target: LoadedMergeRequest, token: string | undefined, extras: ShowExtras): Promise<{ summary: SafeHtml; sections: PageParts }> {
  const { req, loaded } = request
  const noteable = mergeRequestNoteable(target.mergeRequest)
  const [changes, discussions] = await Promise.all([mergeRequestDiff(request, target), findDiffDiscussions(req.ingot.db, noteable)])
  if (changes === null) return { summary: html`<p class="muted">No changes to show.</p>`, sections: [] }
  const canComment = token !== undefined && canCreateNote(req.actor, target, noteable)
  const annotations = discussionAnnotations(request, target, {
    discussions, commentToken: canComment ? token : undefined, mayResolve: canResolveDiscussion(req.actor, target, noteable),
    open: extras.lineCode ?? parseLineCode(queryValue(request, 'line_code')),
    openText: extras.lineCode === undefined ? undefined : extras.commentText, openErrors: extras.lineCode === undefined ? undefined : extras.errors,
  })
  const parts = renderDiffParts(changes.diffs, { from: changes.base, to: changes.head }, (path) => pageUrl(loaded, 'blob', changes.head, path), changes.overflow, annotations)
  return { summary: html`${extras.lineCode === undefined ? errorExplanation(extras.errors ?? []) : ''}
${parts.summary}`, sections: parts.sections }
}

const mergeRequestsPage: ProjectPage = async (request) => {
  const { req, reply, visit, loaded, rest } = request
  if (!canOnProject(req.actor, loaded, 'read_merge_request')) return sendNotFound(reply, visit)
  const [first, second, ...more] = rest
  if (first === undefined) return listPage(request)
  if (first === 'new' && second === undefined) return newPage(request)
  const target = await loadedMergeRequest(request, first)
  if (target === null || more.length > 0) return sendNotFound(reply, visit)
  if (second === undefined) return showPage(request, target, 'overview')
  if (second === 'commits' || second === 'diffs') return showPage(request, target, second)
  if (second === 'edit') return editPage(request, target)
  return sendNotFound(reply, visit)
}

/** POST `/merge_requests/:iid` with `_method=put`: a state event (close, reopen) alone, or the edit form's changes. */
async function updateFromForm(request: ProjectPageRequest, target: LoadedMergeRequest): Promise<FastifyReply> {
  const { req, reply, visit, loaded } = request
  if (formMethod(req) !== 'PUT' || !canUpdateMergeRequest(req.actor, target, target.mergeRequest)) return sendNotFound(reply, visit)
  const stateEvent = formOf(req, 'merge_request').state_event
  if (stateEvent === undefined) return saveFromForm(request, target)
  if (stateEvent !== 'close' && stateEvent !== 'reopen') return sendNotFound(reply, visit)
  try {
    await updateMergeRequest(req.ingot, req.actor!, target, target.mergeRequest, { stateEvent }, canOnProject(req.actor, loaded, 'admin_merge_request'))
  } catch (err) {
    return showPage(request, target, 'overview', { mergeErrors: refusalOf(err), status: 422 })
  }
  return redirect(reply, visit, mergeRequestUrl(request, target.mergeRequest.iid))
}

/** POST `…/merge`: merged (or set to merge when the pipeline succeeds), then the merge request; its refusal shown in the merge box. */
async function mergeFromForm(request: ProjectPageRequest, target: LoadedMergeRequest): Promise<FastifyReply> {
  const { req, reply, visit } = request
  const body = req.body as Record<string, unknown>
  const flag = (name: string) => body[name] === '1'
  try {
    await mergeMergeRequest(req.ingot, req.actor!, target, target.mergeRequest, {
      shouldRemoveSourceBranch: flag('should_remove_source_branch'), squash: flag('squash'), whenPipelineSucceeds: flag('merge_when_pipeline_succeeds'),
      ...(typeof body.sha === 'string' && body.sha !== '' ? { sha: body.sha } : {}),
    })
  } catch (err) {
    if (err instanceof ApiError && err.statusCode === 401) return sendNotFound(reply, visit)
    return showPage(request, target, 'overview', { mergeErrors: refusalOf(err), status: 422 })
  }
  return redirect(reply, visit, mergeRequestUrl(request, target.mergeRequest.iid))
}

async function commentFromForm(request: ProjectPageRequest, target: LoadedMergeRequest): Promise<FastifyReply> {
  const { req, reply, visit, loaded } = request
  const noteable = mergeRequestNoteable(target.mergeRequest)
  if (!canCreateNote(req.actor, target, noteable)) return sendNotFound(reply, visit)
  const text = formOf(req, 'note').note ?? ''
  if ((req.body as Record<string, unknown>).preview !== undefined) {
    return showPage(request, target, 'overview', { commentText: text, preview: text.trim() === '' ? html`<p class="muted">Nothing to preview.</p>` : projectMarkdown(loaded, text) })
  }
  try {
    const posted = await postNote(req.ingot, { noteable, authorId: req.actor!.user.id, body: text })
    return redirect(reply, visit, `${mergeRequestUrl(request, target.mergeRequest.iid)}${posted.kind === 'note' ? `#note_${posted.note.id}` : ''}`)
  } catch (err) {
    return showPage(request, target, 'overview', { commentText: text, errors: refusalOf(err), status: 422 })
  }
}

/** POST `…/discussions`, `…/discussions/:id` and `…/discussions/:id/notes`: the Changes tab's line discussions. */
async function discussionForms(request: ProjectPageRequest, target: LoadedMergeRequest, discussionId: string | undefined, notes: string | undefined): Promise<FastifyReply> {
  const showDiffs: ShowDiffs = ({ errors, lineCode, text }) => showPage(request, target, 'diffs', { errors, lineCode, commentText: text, status: 422 })
  if (discussionId === undefined) {
    const changes = await mergeRequestDiff(request, target)
    return startFromForm(request, target, changes?.diffs ?? [], showDiffs)
  }
  if (notes !== undefined && notes !== 'notes') return sendNotFound(request.reply, request.visit)
  return discussionFromForm(request, target, discussionId, notes === undefined ? 'resolve' : 'reply', showDiffs)
}

export const mergeRequestForms: ProjectPage = async (request) => {
  const { req, reply, visit, loaded, rest } = request
  if (!canOnProject(req.actor, loaded, 'read_merge_request')) return sendNotFound(reply, visit)
  const [first, second, ...more] = rest
  if (first === undefined) return createFromForm(request)
  const target = await loadedMergeRequest(request, first)
  if (target === null) return sendNotFound(reply, visit)
  if (second === 'discussions' && more.length <= 2) return discussionForms(request, target, more[0], more[1])
  if (more.length > 0) return sendNotFound(reply, visit)
  if (second === undefined) return updateFromForm(request, target)
  if (second === 'merge') return mergeFromForm(request, target)
  if (second === 'notes') return commentFromForm(request, target)
  return sendNotFound(reply, visit)
}

export default mergeRequestsPage
