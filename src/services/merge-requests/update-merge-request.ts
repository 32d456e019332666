// Changes a merge request (PUT /projects/:id/merge_requests/:merge_request_iid): its text, target
// branch, assignee, milestone, labels, flags, and its state (close, reopen), in one transaction with
// the events and system notes the change makes. As in the original, labels, milestone, assignee and
// the discussion lock are changed only by those who may administer merge requests (Developers and
// up); the author's and assignee's values of them are ignored. A merged merge request keeps its
// state and branches. When the target branch moved or the merge request was reopened, its repository
// side (sha, head ref, merge_status) is refreshed once the change commits.
import type { Updateable } from 'kysely'
import type { Actor } from '../../auth/actor.js'
import type { AppContext } from '../../context.js'
import type { Db } from '../../db/index.js'
import { isPostgres } from '../../db/dialect.js'
import type { MergeRequestRow, MergeRequestsTable } from '../../db/schema.js'
import { findAvailableMilestone } from '../../finders/milestones-finder.js'
import { flag } from '../../db/values.js'
import { BRANCH_PREFIX } from '../../git/ref-names.js'
import { ApiError, apiError, notFound, validationFailed } from '../../common/errors.js'
import { isWorkInProgress } from '../../entities/merge-request.js'
import { canOnProject, type ProjectSubject } from '../../policies/project-policy.js'
import { assignableUser } from '../issuables/assignees.js'
import { ISSUABLE_CHANGE_FIELDS, changesBetween, listChange, type Changes, type MergeRequestAction } from '../activity/activity.js'
import { recordEvent } from '../events/record-event.js'
import { findOrCreateLabels, labelChangeNote, replaceLabels } from '../labels/issuable-labels.js'
import { addSystemNote, milestoneReference, titleChangeNote } from '../notes/system-notes.js'
import { refreshMergeRequest } from './refresh-merge-request.js'

export interface MergeRequestChanges {
  title?: string
  description?: string
  targetBranch?: string
  /** null: unassign. */
  assigneeId?: number | null
  /** null: no milestone. */
  milestoneId?: number | null
  /** The titles it should carry, all of them. */
  labels?: string[]
  stateEvent?: 'close' | 'reopen'
  forceRemoveSourceBranch?: boolean
  squash?: boolean
  discussionLocked?: boolean
  allowCollaboration?: boolean
}

const MAX_TITLE_LENGTH = 255


/** 409 when another open merge request already goes from the same source branch to the same target. */
async function checkNoTwin(db: Db, mr: MergeRequestRow, targetBranch: string): Promise<void> {
  const twins = await db.selectFrom('merge_requests').select('title')
    .where('target_project_id', '=', mr.target_project_id).where('target_branch', '=', targetBranch)
    .where('source_branch', '=', mr.source_branch)
    .where((eb) => (mr.source_project_id === null ? eb('source_project_id', 'is', null) : eb('source_project_id', '=', mr.source_project_id)))
    .where('state', '=', 'opened').where('id', '<>', mr.id)
    .execute()
  if (twins.length > 0) {
    // The titles as the original prints a Ruby array: ["a", "b"].
    const titles = `[${twins.map((twin) => JSON.stringify(twin.title)).join(', ')}]`
    throw new ApiError(409, { message: [`Cannot Create: This merge request already exists: ${titles}`] })
  }
}

/**
 * Applies the changes. `mayAdminister`: the caller may administer the project's merge requests
 * (otherwise assignee, milestone, labels and discussion lock are left as they are).
 */
export async function updateMergeRequest(
  ctx: AppContext, actor: Actor, target: ProjectSubject, current: MergeRequestRow, changes: MergeRequestChanges, mayAdminister: boolean,
): Promise<MergeRequestRow> {
  const { project } = target
  const merged = current.state === 'merged'
  if (merged && (changes.stateEvent !== undefined || (changes.targetBranch !== undefined && changes.targetBranch !== current.target_branch))) {
    throw apiError(405, '405 Method Not Allowed')
  }
  if (changes.title !== undefined && [...changes.title].length > MAX_TITLE_LENGTH) {
    throw validationFailed({ title: [`is too long (maximum is ${MAX_TITLE_LENGTH} characters)`] })
  }
  const sameProject = current.source_project_id === current.target_project_id
  if (changes.targetBranch !== undefined && changes.targetBranch !== current.target_branch) {
    if (sameProject && changes.targetBranch === current.source_branch) {
      throw new ApiError(422, { message: ['You can not use same project/branch for source and target'] })
    }
    const repo = ctx.repositories.open(project.id)
    if (await repo.resolveCommit(`${BRANCH_PREFIX}${changes.targetBranch}`) === null) throw validationFailed({ target_branch: ['does not exist'] })
  }
  const allowed = mayAdminister ? changes : { ...changes, assigneeId: undefined, milestoneId: undefined, labels: undefined, discussionLocked: undefined }
  // As the original: an assignee who may not read the merge request is ignored, an unavailable milestone clears it.
  const assignee = allowed.assigneeId === undefined || allowed.assigneeId === null
    ? null : await assignableUser(ctx.db, target, allowed.assigneeId, (user, theirs) => canOnProject(user, theirs, 'read_merge_request'))
  const administered = allowed.assigneeId !== undefined && allowed.assigneeId !== null && assignee === null
    ? { ...allowed, assigneeId: undefined } : allowed
  const milestone = administered.milestoneId === undefined || administered.milestoneId === null
    ? null : await findAvailableMilestone(ctx.db, { type: 'project', id: project.id }, administered.milestoneId)

  const postgres = isPostgres(ctx.db)
  const { mergeRequest, stale, activity } = await ctx.db.transaction().execute(async (trx) => {
    const mr = await trx.selectFrom('merge_requests').selectAll().where('id', '=', current.id)
      .$if(postgres, (qb) => qb.forUpdate()).executeTakeFirst()
    if (mr === undefined) throw notFound('Merge Request')
    const now = Date.now()
    const target = { type: 'MergeRequest', id: mr.id, iid: mr.iid, title: changes.title ?? mr.title }
    const notes: string[] = []
    const set: Updateable<MergeRequestsTable> = {}

    let stateEvent: 'closed' | 'reopened' | null = null
    if (changes.stateEvent === 'close' && (mr.state === 'opened' || mr.state === 'locked')) {
      Object.assign(set, { state: 'closed', closed_at: now, closed_by_id: actor.user.id })
      stateEvent = 'closed'
    } else if (changes.stateEvent === 'reopen' && mr.state === 'closed') {
      await checkNoTwin(trx, mr, changes.targetBranch ?? mr.target_branch)
      Object.assign(set, { state: 'opened', closed_at: null, closed_by_id: null, merge_status: 'unchecked' })
      stateEvent = 'reopened'
    }
    if (stateEvent !== null) notes.push(stateEvent)

    let labelsChanged: Changes = {}
    if (administered.labels !== undefined) {
      const labels = await findOrCreateLabels(trx, mr.target_project_id, administered.labels)
      const change = await replaceLabels(trx, { type: 'MergeRequest', id: mr.id }, labels)
      const note = labelChangeNote(change)
      if (note !== null) {
        notes.push(note)
        labelsChanged = { labels: listChange(change.before.map((label) => label.title), labels.map((label) => label.title))! }
      }
    }
    if (changes.title !== undefined && changes.title !== mr.title) {
      set.title = changes.title
      notes.push(titleChangeNote(mr.title, changes.title))
      if (isWorkInProgress(mr.title) !== isWorkInProgress(changes.title)) {
        notes.push(isWorkInProgress(changes.title) ? 'marked as a **Work In Progress**' : 'unmarked as a **Work In Progress**')
      }
    }
    if (changes.description !== undefined && changes.description !== (mr.description ?? '')) {
      set.description = changes.description
      notes.push('changed the description')
    }
    if (changes.targetBranch !== undefined && changes.targetBranch !== mr.target_branch) {
      if (mr.state === 'opened') await checkNoTwin(trx, mr, changes.targetBranch)
      Object.assign(set, { target_branch: changes.targetBranch, merge_status: 'unchecked', target_sha: null })
      notes.push(`changed target branch from \`${mr.target_branch}\` to \`${changes.targetBranch}\``)
    }
    if (administered.assigneeId !== undefined && (assignee?.id ?? null) !== mr.assignee_id) {
      set.assignee_id = assignee?.id ?? null
      notes.push(assignee === null ? 'removed assignee' : `assigned to @${assignee.username}`)
    }
    if (administered.milestoneId !== undefined && (milestone?.id ?? null) !== mr.milestone_id) {
      set.milestone_id = milestone?.id ?? null
      notes.push(milestone === null ? 'removed milestone' : `changed milestone to ${milestoneReference(milestone)}`)
    }
    if (administered.discussionLocked !== undefined && flag(administered.discussionLocked) !== mr.discussion_locked) {
      set.discussion_locked = flag(administered.discussionLocked)
      notes.push(`${administered.discussionLocked ? 'locked' : 'unlocked'} this merge request`)
    }
    const flags = {
      force_remove_source_branch: changes.forceRemoveSourceBranch,
      squash: changes.squash,
      allow_collaboration: changes.allowCollaboration,
    } as const
    for (const [column, wanted] of Object.entries(flags) as [keyof typeof flags, boolean | undefined][]) {
      if (wanted !== undefined && flag(wanted) !== mr[column]) set[column] = flag(wanted)
    }

    const contentChanged = labelsChanged.labels !== undefined || Object.keys(set).some((column) => !['state', 'closed_at', 'closed_by_id', 'merge_status'].includes(column))
    if (Object.keys(set).length === 0 && labelsChanged.labels === undefined) return { mergeRequest: mr, stale: false, activity: null }

    const updated = await trx.updateTable('merge_requests').set({ ...set, updated_at: now })
      .where('id', '=', mr.id).returningAll().executeTakeFirstOrThrow()
    for (const body of notes) {
      await addSystemNote(trx, { projectId: mr.target_project_id, noteable: { type: 'MergeRequest', id: mr.id }, authorId: actor.user.id, body, createdAt: now })
    }
    if (stateEvent !== null) await recordEvent(trx, { action: stateEvent, authorId: actor.user.id, projectId: mr.target_project_id, target, createdAt: now })
    if (contentChanged) await recordEvent(trx, { action: 'updated', authorId: actor.user.id, projectId: mr.target_project_id, target, createdAt: now })
    const action: MergeRequestAction = stateEvent === 'closed' ? 'close' : stateEvent === 'reopened' ? 'reopen' : 'update'
    const changed = { ...changesBetween(mr, updated, ISSUABLE_CHANGE_FIELDS), ...labelsChanged }
    return { mergeRequest: updated, stale: stateEvent === 'reopened' || set.target_branch !== undefined, activity: { action, changes: changed } }
  })
  if (activity !== null) {
    await ctx.activity.publish({
      kind: 'merge_request', action: activity.action, projectId: mergeRequest.target_project_id, mergeRequestId: mergeRequest.id,
      userId: actor.user.id, changes: activity.changes,
    }, ctx)
  }
  if (!stale) return mergeRequest
  await refreshMergeRequest(ctx, mergeRequest.id)
  return await ctx.db.selectFrom('merge_requests').selectAll().where('id', '=', mergeRequest.id).executeTakeFirst() ?? mergeRequest
}
