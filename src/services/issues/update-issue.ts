// Changes an issue (PUT /projects/:id/issues/:issue_iid): its fields, labels, assignee, milestone
// and state (close, reopen), as the caller may set them (issue-rules.ts), in one transaction with
// the system note of each change and its events: `closed`, `reopened`, and `updated` for any other
// change. A request that changes nothing writes nothing. Once committed, the change is published to
// the activity listeners with the fields it changed (webhooks' `changes`, reassignment emails).
import type { Updateable } from 'kysely'
import type { Actor } from '../../auth/actor.js'
import type { AppContext } from '../../context.js'
import type { Db } from '../../db/index.js'
import type { EventAction, IssueRow, IssuesTable } from '../../db/schema.js'
import { flag } from '../../db/values.js'
import { validationFailed } from '../../common/errors.js'
import type { ProjectSubject } from '../../policies/project-policy.js'
import { ISSUABLE_CHANGE_FIELDS, changesBetween, listChange, type Changes, type IssueAction } from '../activity/activity.js'
import { recordEvents } from '../events/record-event.js'
import { findOrCreateLabels, labelChangeNote, replaceLabels } from '../labels/issuable-labels.js'
import { addSystemNote, milestoneReference, titleChangeNote } from '../notes/system-notes.js'
import { isUniqueViolation } from '../projects/create-project.js'
import {
  assignableUsers, assigneesChangeNote, availableMilestone, dueDateChangeNote, permittedInput, titleErrors, type IssueInput,
} from './issue-rules.js'

export interface IssueUpdate extends IssueInput {
  stateEvent?: 'close' | 'reopen'
}

export interface LoadedIssueSubject extends ProjectSubject {
  issue: IssueRow
  assigneeIds: number[]
}

export async function updateIssue(ctx: AppContext, actor: Actor, loaded: LoadedIssueSubject, update: IssueUpdate): Promise<IssueRow> {
  const { db } = ctx
  if (update.title !== undefined) {
    const errors = titleErrors(update.title)
    if (errors !== null) throw validationFailed(errors)
  }
  const { issue } = loaded
  const permitted = permittedInput(actor, loaded, update)
  const assigneeIds = permitted.assigneeIds === undefined ? undefined
    : (await assignableUsers(db, loaded, { row: issue, assigneeIds: loaded.assigneeIds }, permitted.assigneeIds))?.map((user) => user.id)
  const milestone = permitted.milestoneId === undefined ? undefined : await availableMilestone(db, issue.project_id, permitted.milestoneId)
  const apply = () => db.transaction().execute(async (trx) => {
    const now = Date.now()
    const changes: Updateable<IssuesTable> = {}
    const notes: string[] = []
    const actions: EventAction[] = []
    const listChanges: Changes = {}
    let edited = false

    if (update.stateEvent === 'close' && issue.state === 'opened') {
      Object.assign(changes, { state: 'closed', closed_at: now, closed_by_id: actor.user.id })
      notes.push('closed')
      actions.push('closed')
    } else if (update.stateEvent === 'reopen' && issue.state === 'closed') {
      Object.assign(changes, { state: 'opened', closed_at: null, closed_by_id: null })
      notes.push('reopened')
      actions.push('reopened')
    }
    if (permitted.title !== undefined && permitted.title !== issue.title) {
      changes.title = permitted.title
      notes.push(titleChangeNote(issue.title, permitted.title))
      edited = true
    }
    if (permitted.description !== undefined && (permitted.description ?? '') !== (issue.description ?? '')) {
      changes.description = permitted.description
      notes.push('changed the description')
      edited = true
    }
    if (permitted.labels !== undefined) {
      const labels = await findOrCreateLabels(trx, issue.project_id, permitted.labels)
      const change = await replaceLabels(trx, { type: 'Issue', id: issue.id }, labels)
      const note = labelChangeNote(change)
      if (note !== null) {
        notes.push(note)
        listChanges.labels = listChange(change.before.map((label) => label.title), labels.map((label) => label.title))!
        edited = true
      }
    }
    if (permitted.discussionLocked !== undefined && flag(permitted.discussionLocked) !== issue.discussion_locked) {
      changes.discussion_locked = flag(permitted.discussionLocked)
      notes.push(permitted.discussionLocked ? 'locked this issue' : 'unlocked this issue')
      edited = true
    }
    if (milestone !== undefined && (milestone?.id ?? null) !== issue.milestone_id) {
      changes.milestone_id = milestone?.id ?? null
      notes.push(milestone === null ? 'removed milestone' : `changed milestone to ${milestoneReference(milestone)}`)
      edited = true
    }
    if (permitted.dueDate !== undefined && permitted.dueDate !== issue.due_date) {
      changes.due_date = permitted.dueDate
      notes.push(dueDateChangeNote(permitted.dueDate))
      edited = true
    }
    if (assigneeIds !== undefined) {
      const note = await replaceAssignees(trx, issue.id, loaded.assigneeIds, assigneeIds)
      if (note !== null) {
        notes.push(note)
        listChanges.assignees = listChange(loaded.assigneeIds, assigneeIds)!
        edited = true
      }
    }
    if (permitted.confidential !== undefined && flag(permitted.confidential) !== issue.confidential) {
      changes.confidential = flag(permitted.confidential)
      notes.push(permitted.confidential ? 'made the issue confidential' : 'made the issue visible to everyone')
      edited = true
    }
    if (!edited && actions.length === 0) return null

    if (edited) actions.push('updated')
    const updated = await trx.updateTable('issues').set({ ...changes, updated_at: permitted.updatedAt ?? now })
      .where('id', '=', issue.id).returningAll().executeTakeFirstOrThrow()
    for (const body of notes) {
      await addSystemNote(trx, { projectId: issue.project_id, noteable: { type: 'Issue', id: issue.id }, authorId: actor.user.id, body, createdAt: now })
    }
    const target = { type: 'Issue', id: issue.id, iid: issue.iid, title: updated.title }
    await recordEvents(trx, actions.map((action) => ({ action, authorId: actor.user.id, projectId: issue.project_id, target, createdAt: now })))
    const activityAction: IssueAction = actions.includes('closed') ? 'close' : actions.includes('reopened') ? 'reopen' : 'update'
    return { updated, action: activityAction, changes: { ...changesBetween(issue, updated, ISSUABLE_CHANGE_FIELDS), ...listChanges } }
  })
  let result: Awaited<ReturnType<typeof apply>>
  try {
    result = await apply()
  } catch (err) {
    // A concurrent request created one of the new labels first: now it exists.
    if (!isUniqueViolation(err)) throw err
    result = await apply()
  }
  if (result === null) return issue
  await ctx.activity.publish({
    kind: 'issue', action: result.action, projectId: issue.project_id, issueId: issue.id, userId: actor.user.id, changes: result.changes,
  }, ctx)
  return result.updated
}

/** Makes the issue's assignees exactly `wanted`; the system note of the change, null for none. */
async function replaceAssignees(trx: Db, issueId: number, current: readonly number[], wanted: readonly number[]): Promise<string | null> {
  const added = wanted.filter((id) => !current.includes(id))
  const removed = current.filter((id) => !wanted.includes(id))
  if (added.length === 0 && removed.length === 0) return null
  if (removed.length > 0) await trx.deleteFrom('issue_assignees').where('issue_id', '=', issueId).where('user_id', 'in', removed).execute()
  if (added.length > 0) await trx.insertInto('issue_assignees').values(added.map((userId) => ({ issue_id: issueId, user_id: userId }))).execute()
  const users = await trx.selectFrom('users').select(['id', 'username']).where('id', 'in', [...added, ...removed]).execute()
  const names = (ids: readonly number[]) => ids.flatMap((id) => users.find((user) => user.id === id)?.username ?? [])
  return assigneesChangeNote(names(added), names(removed))
}
