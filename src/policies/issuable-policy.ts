// Who may see and change one issue or merge request, beyond what the project allows (project-policy).
import type { Actor } from '../auth/actor.js'
import type { IssueRow, MergeRequestRow } from '../db/schema.js'
import { REPORTER } from './access-levels.js'
import { canOnProject, type ProjectSubject } from './project-policy.js'

/** A confidential issue is seen by its author, its assignees, Reporters and up, and admins. */
export function canReadIssue(actor: Actor | null, subject: ProjectSubject, issue: IssueRow, assigneeIds: readonly number[]): boolean {
  if (!canOnProject(actor, subject, 'read_issue')) return false
  if (issue.confidential === 0) return true
  if (actor === null) return false
  return actor.user.admin === 1 || issue.author_id === actor.user.id || assigneeIds.includes(actor.user.id)
    || subject.access.level >= REPORTER
}

/** Its author and assignees may edit an issue; Reporters and up any issue; nobody on an archived project. */
export function canUpdateIssue(actor: Actor | null, subject: ProjectSubject, issue: IssueRow, assigneeIds: readonly number[]): boolean {
  if (actor === null || subject.project.archived === 1) return false
  if (canOnProject(actor, subject, 'admin_issue')) return true
  return issue.author_id === actor.user.id || assigneeIds.includes(actor.user.id)
}

/** Its author and assignee may edit a merge request; Developers and up any (subject: the target project). */
export function canUpdateMergeRequest(actor: Actor | null, subject: ProjectSubject, mergeRequest: MergeRequestRow): boolean {
  if (actor === null || subject.project.archived === 1) return false
  if (canOnProject(actor, subject, 'admin_merge_request')) return true
  return mergeRequest.author_id === actor.user.id || mergeRequest.assignee_id === actor.user.id
}
