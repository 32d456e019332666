// Creates an issue (POST /projects/:id/issues): its number from the project's sequence, its labels
// (titles the project has no label for yet become project labels), assignee and milestone as the
// caller may set them, and its `created` event, in one transaction. The counts (open_issues_count,
// issue_counts) and the search index follow by trigger. Creating into one busy project serializes
// on its number and counts from the number's upsert to the commit: everything that can be decided
// before is.
import type { Actor } from '../../auth/actor.js'
import type { Db } from '../../db/index.js'
import type { IssueRow, LabelRow, MilestoneRow, UserRow } from '../../db/schema.js'
import { flag } from '../../db/values.js'
import { validationFailed } from '../../api/errors.js'
import type { ProjectSubject } from '../../policies/project-policy.js'
import { recordEvent } from '../events/record-event.js'
import { nextInternalId } from '../issuables/internal-ids.js'
import { findOrCreateLabels } from '../labels/issuable-labels.js'
import { isUniqueViolation } from '../projects/create-project.js'
import { assignableUsers, availableMilestone, permittedInput, titleErrors, type IssueInput } from './issue-rules.js'

/** The new issue with what it was given, so that presenting it needs no reading back. */
export interface CreatedIssue {
  issue: IssueRow
  labels: LabelRow[]
  assignees: UserRow[]
  milestone: MilestoneRow | null
}

export async function createIssue(db: Db, actor: Actor, subject: ProjectSubject, input: IssueInput & { title: string }): Promise<CreatedIssue> {
  const errors = titleErrors(input.title)
  if (errors !== null) throw validationFailed(errors)
  const permitted = permittedInput(actor, subject, input)
  const projectId = subject.project.id
  // Decided before the transaction, which then holds the project's iid sequence only briefly.
  const assignees = permitted.assigneeIds === undefined ? [] : await assignableUsers(db, subject, null, permitted.assigneeIds) ?? []
  const milestone = await availableMilestone(db, projectId, permitted.milestoneId ?? null)
  const insert = () => db.transaction().execute(async (trx) => {
    const labels = await findOrCreateLabels(trx, projectId, permitted.labels ?? [])
    const iid = await nextInternalId(trx, { type: 'project', id: projectId }, 'issues')
    const now = Date.now()
    const createdAt = permitted.createdAt ?? now
    const issue = await trx.insertInto('issues').values({
      project_id: projectId,
      iid,
      author_id: actor.user.id,
      title: input.title,
      description: permitted.description ?? null,
      confidential: flag(permitted.confidential ?? false),
      discussion_locked: flag(permitted.discussionLocked ?? false),
      milestone_id: milestone?.id ?? null,
      due_date: permitted.dueDate ?? null,
      closed_at: null,
      closed_by_id: null,
      moved_to_id: null,
      created_at: createdAt,
      updated_at: createdAt,
    }).returningAll().executeTakeFirstOrThrow()
    if (assignees.length > 0) {
      await trx.insertInto('issue_assignees').values(assignees.map((user) => ({ issue_id: issue.id, user_id: user.id }))).execute()
    }
    if (labels.length > 0) {
      await trx.insertInto('label_links').values(labels.map((label) => ({ label_id: label.id, target_type: 'Issue' as const, target_id: issue.id }))).execute()
    }
    await recordEvent(trx, {
      action: 'created', authorId: actor.user.id, projectId, target: { type: 'Issue', id: issue.id, iid, title: issue.title }, createdAt: now,
    })
    return { issue, labels, assignees, milestone }
  })
  try {
    return await insert()
  } catch (err) {
    // A concurrent request created one of the new labels first: now it exists.
    if (isUniqueViolation(err)) return insert()
    throw err
  }
}
