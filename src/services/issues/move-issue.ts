// Moves an issue to another project (POST /projects/:id/issues/:issue_iid/move), as the original's
// MoveService: the new issue gets the next number of the target, the same author, text, flags, due
// date and time estimate, the target's labels and milestone of the same titles (none where the
// target has no such one), the assignee if they can read the target's issues, and a copy of every
// note; the original is closed and points to the new one (moved_to_id); a system note on each
// says where it went ("moved to …", "moved from …"). Both need admin_issue (Reporter): a caller
// without it gets the original's 400, not 403.
import type { Actor } from '../../auth/actor.js'
import type { AppContext } from '../../context.js'
import type { Db } from '../../db/index.js'
import { lockRow } from '../../db/locks.js'
import type { IssueRow } from '../../db/schema.js'
import { apiError } from '../../common/errors.js'
import { canOnProject, type ProjectSubject } from '../../policies/project-policy.js'
import { recordEvent } from '../events/record-event.js'
import { nextInternalId } from '../issuables/internal-ids.js'
import { availableLabelsTitled, labelTitlesByTarget, replaceLabels } from '../labels/issuable-labels.js'
import { addSystemNote, newDiscussionId } from '../notes/system-notes.js'
import { assignableUsers, availableMilestoneTitled, issueReference } from './issue-rules.js'
import type { LoadedIssueSubject } from './update-issue.js'

const NOTES_PER_INSERT = 200

function fullPathOf(subject: ProjectSubject): string {
  return `${subject.namespace.full_path}/${subject.project.path}`
}

export async function moveIssue(ctx: AppContext, actor: Actor, source: LoadedIssueSubject, target: ProjectSubject): Promise<IssueRow> {
  const { db } = ctx
  const { issue } = source
  if (target.project.id === source.project.id) throw apiError(400, 'Cannot move issue to project it originates from!')
  const allowed = issue.moved_to_id === null && canOnProject(actor, source, 'admin_issue') && canOnProject(actor, target, 'admin_issue') &&
    target.project.issues_enabled === 1
  if (!allowed) throw apiError(400, 'Cannot move issue due to insufficient permissions!')
  const titles = (await labelTitlesByTarget(db, 'Issue', [issue.id])).get(issue.id) ?? []
  const milestoneTitle = issue.milestone_id === null ? null
    : (await db.selectFrom('milestones').select('title').where('id', '=', issue.milestone_id).executeTakeFirst())?.title ?? null
  const milestone = milestoneTitle === null ? null : await availableMilestoneTitled(db, target.project.id, milestoneTitle)
  const assigneeIds = (await assignableUsers(db, target, null, source.assigneeIds) ?? []).map((user) => user.id)

  const { moved, closed } = await db.transaction().execute(async (trx) => {
    // Two moves of one issue at once: the second finds it moved under the lock and is refused.
    await lockRow(trx, 'issues', issue.id)
    const current = await trx.selectFrom('issues').select('moved_to_id').where('id', '=', issue.id).executeTakeFirst()
    if (current === undefined || current.moved_to_id !== null) throw apiError(400, 'Cannot move issue due to insufficient permissions!')
    const labels = await availableLabelsTitled(trx, target.project.id, titles)
    const firstPerTitle = labels.filter((label, index) => labels.findIndex((other) => other.title === label.title) === index)
    const iid = await nextInternalId(trx, { type: 'project', id: target.project.id }, 'issues')
    const now = Date.now()
    const moved = await trx.insertInto('issues').values({
      project_id: target.project.id,
      iid,
      author_id: issue.author_id,
      title: issue.title,
      description: issue.description,
      confidential: issue.confidential,
      discussion_locked: issue.discussion_locked,
      milestone_id: milestone?.id ?? null,
      due_date: issue.due_date,
      closed_at: null,
      closed_by_id: null,
      moved_to_id: null,
      time_estimate: issue.time_estimate,
      user_notes_count: issue.user_notes_count,
      created_at: now,
      updated_at: now,
    }).returningAll().executeTakeFirstOrThrow()
    if (assigneeIds.length > 0) {
      await trx.insertInto('issue_assignees').values(assigneeIds.map((userId) => ({ issue_id: moved.id, user_id: userId }))).execute()
    }
    if (firstPerTitle.length > 0) await replaceLabels(trx, { type: 'Issue', id: moved.id }, firstPerTitle)
    await copyNotes(trx, issue.id, moved.id, target.project.id)
    await addSystemNote(trx, {
      projectId: target.project.id, noteable: { type: 'Issue', id: moved.id }, authorId: actor.user.id, createdAt: now,
      body: `moved from ${issueReference(fullPathOf(source), issue.iid)}`,
    })

    const closed = issue.state === 'opened'
    await trx.updateTable('issues').set({
      moved_to_id: moved.id, updated_at: now,
      ...(closed ? { state: 'closed' as const, closed_at: now, closed_by_id: actor.user.id } : {}),
    }).where('id', '=', issue.id).execute()
    await addSystemNote(trx, {
      projectId: source.project.id, noteable: { type: 'Issue', id: issue.id }, authorId: actor.user.id, createdAt: now,
      body: `moved to ${issueReference(fullPathOf(target), iid)}`,
    })
    await recordEvent(trx, {
      action: 'created', authorId: actor.user.id, projectId: target.project.id, target: { type: 'Issue', id: moved.id, iid, title: moved.title }, createdAt: now,
    })
    if (closed) {
      await recordEvent(trx, {
        action: 'closed', authorId: actor.user.id, projectId: source.project.id,
        target: { type: 'Issue', id: issue.id, iid: issue.iid, title: issue.title }, createdAt: now,
      })
    }
    return { moved, closed }
  })
  // As the original: the new issue is opened in the target project and the old one closed.
  await ctx.activity.publish({ kind: 'issue', action: 'open', projectId: target.project.id, issueId: moved.id, userId: actor.user.id, changes: {} }, ctx)
  if (closed) {
    await ctx.activity.publish({
      kind: 'issue', action: 'close', projectId: source.project.id, issueId: issue.id, userId: actor.user.id,
      changes: { state: { previous: 'opened', current: 'closed' } },
    }, ctx)
  }
  return moved
}

/** Copies every note of the issue onto the moved one, each discussion under a new id. */
async function copyNotes(trx: Db, fromIssueId: number, toIssueId: number, projectId: number): Promise<void> {
  const notes = await trx.selectFrom('notes').selectAll()
    .where('noteable_type', '=', 'Issue').where('noteable_id', '=', fromIssueId).orderBy('id').execute()
  const discussionIds = new Map<string, string>()
  const copies = notes.map(({ id: _id, ...note }) => {
    const discussionId = note.discussion_id === null ? newDiscussionId() : discussionIds.get(note.discussion_id) ?? newDiscussionId()
    if (note.discussion_id !== null) discussionIds.set(note.discussion_id, discussionId)
    return { ...note, project_id: projectId, noteable_id: toIssueId, discussion_id: discussionId }
  })
  for (let start = 0; start < copies.length; start += NOTES_PER_INSERT) {
    await trx.insertInto('notes').values(copies.slice(start, start + NOTES_PER_INSERT)).execute()
  }
}
