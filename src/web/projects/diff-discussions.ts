// Discussions on a merge request's diff lines, on its Changes tab (`/merge_requests/:iid/diffs`):
// the discussions (loaded in one query, indexed by file, side and line) drawn under their lines
// with their replies, a reply form and, for those who may, Resolve / Unresolve; and a comment form
// under the line a number links to (`?line_code=<line's anchor>`), with no script. Forms: POST
// `/merge_requests/:iid/discussions` starts one on the line (its position rebuilt from the diff
// on the server), POST `…/discussions/:id/notes` replies, POST `…/discussions/:id`
// (`_method=put`, `resolved`) resolves or unresolves, through the API's note services and rules.
import type { FastifyReply } from 'fastify'
import type { LoadedMergeRequest } from '../../api/load.js'
import type { DiscussionView } from '../../entities/discussion.js'
import { findDiscussionNotes } from '../../finders/notes-finder.js'
import type { DiffEntry } from '../../git/diff.js'
import { diffPositionOf, replyToDiscussion, startDiscussion } from '../../services/notes/create-note.js'
import { mergeRequestNoteable } from '../../services/notes/noteable.js'
import { canCreateNote, canResolveDiscussion } from '../../services/notes/note-rules.js'
import { setDiscussionResolved } from '../../services/notes/resolve-notes.js'
import { csrfField, errorExplanation, html, type SafeHtml } from '../html.js'
import type { LineAnnotations } from '../diff.js'
import { formMethod, formOf, methodField, redirect, refusalOf, sendNotFound } from '../visit.js'
import { projectUrl, type ProjectPageRequest } from './context.js'
import { notesList, userLink } from './issuables.js'

/** A line's anchor as the Changes tab draws it: `diff-<file index>_<old line>_<new line>`. */
const LINE_CODE = /^diff-(\d{1,5})_(\d{0,9})_(\d{0,9})$/

export interface LineCode {
  id: string
  fileIndex: number
  oldLine: number | null
  newLine: number | null
}

export function parseLineCode(value: unknown): LineCode | null {
  const match = typeof value === 'string' ? LINE_CODE.exec(value) : null
  if (match === null) return null
  const number = (text: string) => (text === '' ? null : Number(text))
  const code = { id: match[0], fileIndex: Number(match[1]), oldLine: number(match[2]!), newLine: number(match[3]!) }
  return code.oldLine === null && code.newLine === null ? null : code
}

/** What the Changes tab shows under lines, besides the diff. */
export interface DiffDiscussionsView {
  discussions: readonly DiscussionView[]
  /** The visitor's CSRF token when signed in and allowed to comment (forms are drawn only then). */
  commentToken: string | undefined
  mayResolve: boolean
  /** The line whose comment form is open, with the text and messages of a refused comment. */
  open: LineCode | null
  openText?: string
  openErrors?: readonly string[]
}

function mergeRequestUrl(request: ProjectPageRequest, target: LoadedMergeRequest): string {
  return `${projectUrl(request.loaded)}/merge_requests/${target.mergeRequest.iid}`
}

const keyOf = (path: string, side: 'new' | 'old', line: number) => `${side}:${line}:${path}`

/** The discussions by the line their first diff note sits on, and the paths of the files that have any. */
function byLine(discussions: readonly DiscussionView[]): { index: Map<string, DiscussionView[]>; paths: Set<string> } {
  const index = new Map<string, DiscussionView[]>()
  const paths = new Set<string>()
  for (const discussion of discussions) {
    const placed = discussion.notes.find(({ note }) => note.type === 'DiffNote' && note.path !== null && note.line !== null && note.line_type !== null)?.note
    if (placed === undefined) continue
    const key = keyOf(placed.path!, placed.line_type!, placed.line!)
    paths.add(placed.path!)
    const list = index.get(key)
    if (list === undefined) index.set(key, [discussion])
    else list.push(discussion)
  }
  return { index, paths }
}

function discussionMarkup(request: ProjectPageRequest, target: LoadedMergeRequest, view: DiffDiscussionsView, discussion: DiscussionView): SafeHtml {
  const here = mergeRequestUrl(request, target)
  const resolvable = discussion.notes.filter(({ note }) => note.resolvable === 1)
  const resolved = resolvable.length > 0 && resolvable.every(({ note }) => note.resolved_at !== null)
  const resolver = resolvable.find(({ resolvedBy }) => resolvedBy !== null)?.resolvedBy ?? null
  const token = view.commentToken
  return html`<section class="diff-discussion" id="discussion_${discussion.id}" aria-label="Discussion">
${notesList(request.loaded, discussion.notes)}
${resolved ? html`<p class="muted">Resolved${resolver === null ? '' : html` by ${userLink(resolver)}`}</p>` : ''}
${token === undefined ? '' : html`<form class="comment-form" method="post" action="${here}/discussions/${discussion.id}/notes">
${csrfField(token)}<label for="reply_${discussion.id}">Reply</label><textarea id="reply_${discussion.id}" name="note[note]" rows="2"></textarea>
<div class="actions"><button type="submit">Reply</button></div></form>`}
${token !== undefined && view.mayResolve && resolvable.length > 0 ? html`<form method="post" action="${here}/discussions/${discussion.id}">
${csrfField(token)}${methodField('PUT')}<input type="hidden" name="resolved" value="${resolved ? 'false' : 'true'}">
<button type="submit">${resolved ? 'Unresolve discussion' : 'Resolve discussion'}</button></form>` : ''}
</section>`
}

function newDiscussionForm(request: ProjectPageRequest, target: LoadedMergeRequest, view: DiffDiscussionsView, token: string, entry: DiffEntry, id: string): SafeHtml {
  return html`${errorExplanation(view.openErrors ?? [])}<form class="comment-form" method="post" action="${mergeRequestUrl(request, target)}/discussions">
${csrfField(token)}<input type="hidden" name="line_code" value="${id}"><input type="hidden" name="new_path" value="${entry.new_path}">
<label for="diff_note">Comment on this line</label><textarea id="diff_note" name="note[note]" rows="4" placeholder="Write a comment in Markdown">${view.openText ?? ''}</textarea>
<div class="actions"><button type="submit">Start a discussion</button><a href="?#${id}">Cancel</a></div></form>`
}

/** The annotations the Changes tab passes to renderDiffs: discussions under their lines, the open comment form. */
export function discussionAnnotations(request: ProjectPageRequest, target: LoadedMergeRequest, view: DiffDiscussionsView): LineAnnotations {
  const { index, paths } = byLine(view.discussions)
  const token = view.commentToken
  return {
    commentLinks: token !== undefined,
    touches: (entry, i) => paths.has(entry.new_path) || paths.has(entry.old_path) || view.open?.fileIndex === i,
    below: (entry, line) => {
      const here = [
        ...(line.newNumber === null ? [] : index.get(keyOf(entry.new_path, 'new', line.newNumber)) ?? []),
        ...(line.oldNumber === null ? [] : index.get(keyOf(entry.old_path, 'old', line.oldNumber)) ?? []),
      ]
      const form = token !== undefined && view.open?.id === line.id ? newDiscussionForm(request, target, view, token, entry, line.id) : null
      if (here.length === 0 && form === null) return null
      return html`${here.map((discussion) => discussionMarkup(request, target, view, discussion))}${form ?? ''}`
    },
  }
}

/** Renders the Changes tab again with 422: a refused comment's messages, by its line's form (with its text) when it has one, else above the changes. */
export type ShowDiffs = (refused: { errors: readonly string[]; lineCode?: LineCode; text?: string }) => Promise<FastifyReply>

/**
 * POST `…/discussions`: a discussion on the line the form names. The position is built from the
 * diff the tab shows (`diffs`), so a form from a diff that has since changed is refused.
 */
export async function startFromForm(request: ProjectPageRequest, target: LoadedMergeRequest, diffs: readonly DiffEntry[], showDiffs: ShowDiffs): Promise<FastifyReply> {
  const { req, reply, visit } = request
  const noteable = mergeRequestNoteable(target.mergeRequest)
  if (!canCreateNote(req.actor, target, noteable)) return sendNotFound(reply, visit)
  const body = req.body as Record<string, unknown>
  const lineCode = parseLineCode(body.line_code)
  if (lineCode === null) return sendNotFound(reply, visit)
  const text = formOf(req, 'note').note ?? ''
  const entry = diffs[lineCode.fileIndex]
  if (entry === undefined || entry.new_path !== body.new_path) {
    return showDiffs({ lineCode, text, errors: ['The changes are not the ones this comment was written on: comment again on the line'] })
  }
  try {
    const note = await startDiscussion(req.ingot, { noteable, authorId: req.actor!.user.id, body: text }, diffPositionOf({
      new_path: entry.new_path, old_path: entry.old_path, new_line: lineCode.newLine, old_line: lineCode.oldLine,
    }))
    return redirect(reply, visit, `${mergeRequestUrl(request, target)}/diffs#note_${note.id}`)
  } catch (err) {
    return showDiffs({ lineCode, text, errors: refusalOf(err) })
  }
}

/** POST `…/discussions/:id/notes` (a reply) and `…/discussions/:id` with `_method=put` (resolve or unresolve). */
export async function discussionFromForm(
  request: ProjectPageRequest, target: LoadedMergeRequest, discussionId: string, action: 'reply' | 'resolve', showDiffs: ShowDiffs,
): Promise<FastifyReply> {
  const { req, reply, visit } = request
  const noteable = mergeRequestNoteable(target.mergeRequest)
  const notes = /^[0-9a-f]{40}$/.test(discussionId) ? await findDiscussionNotes(req.ingot.db, noteable, discussionId) : []
  if (notes.length === 0) return sendNotFound(reply, visit)
  const back = `${mergeRequestUrl(request, target)}/diffs#discussion_${discussionId}`
  if (action === 'resolve') {
    const resolved = (req.body as Record<string, unknown>).resolved
    if (formMethod(req) !== 'PUT' || (resolved !== 'true' && resolved !== 'false') || !notes.some((note) => note.resolvable === 1)
      || !canResolveDiscussion(req.actor, target, noteable)) return sendNotFound(reply, visit)
    await setDiscussionResolved(req.ingot.db, noteable.id, discussionId, req.actor!.user.id, resolved === 'true')
    return redirect(reply, visit, back)
  }
  if (!canCreateNote(req.actor, target, noteable)) return sendNotFound(reply, visit)
  try {
    const note = await replyToDiscussion(req.ingot, { noteable, authorId: req.actor!.user.id, body: formOf(req, 'note').note ?? '' }, notes)
    return redirect(reply, visit, `${mergeRequestUrl(request, target)}/diffs#note_${note.id}`)
  } catch (err) {
    return showDiffs({ errors: refusalOf(err) })
  }
}
