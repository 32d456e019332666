// Opens a merge request (POST /projects/:id/merge_requests), as the original's CreateService: from
// a branch of the project in the path (the source) into a branch of that project or of another
// project of its fork network (`target_project_id`). The iid comes from the target's sequence, the
// labels are created on the fly, and the `created` event is written in the same transaction; the
// repository side (sha, head ref, merge_status) is filled in once that commits.
import type { Actor } from '../../auth/actor.js'
import type { AppContext } from '../../context.js'
import type { Db } from '../../db/index.js'
import type { MergeRequestRow, ProjectRow } from '../../db/schema.js'
import { flag } from '../../db/values.js'
import { ApiError, forbidden, notFound, validationFailed, type FieldErrors } from '../../common/errors.js'
import { NO_PROJECT_ACCESS, projectAccessFor } from '../../finders/access.js'
import { findBranchTip } from '../../git/branches.js'
import { findProjectByIdOrPath } from '../../finders/project-lookup.js'
import { canOnProject, canReadProject, type ProjectSubject } from '../../policies/project-policy.js'
import { recordEvent } from '../events/record-event.js'
import { assignableUser } from '../issuables/assignees.js'
import { nextInternalId } from '../issuables/internal-ids.js'
import { findOrCreateLabels, replaceLabels } from '../labels/issuable-labels.js'
import { findAvailableMilestone } from '../../finders/milestones-finder.js'
import { refreshMergeRequest } from './refresh-merge-request.js'

export interface NewMergeRequest {
  title: string
  sourceBranch: string
  targetBranch: string
  /** Another project of the source's fork network; default the source itself. */
  targetProjectId?: number
  description?: string
  /** 0: nobody. */
  assigneeId?: number
  milestoneId?: number
  labels?: string[]
  /** Stored as force_remove_source_branch, as the original's API does. */
  removeSourceBranch?: boolean
  allowCollaboration?: boolean
  squash?: boolean
}

const MAX_TITLE_LENGTH = 255

/** How far up a chain of forks the network's root is searched (forks of forks are rare). */
const MAX_FORK_DEPTH = 100

/** The original answers its "unprocessable" validations with 422 and the messages as an array. */
const unprocessable = (message: string) => new ApiError(422, { message: [message] })

/** A project with the caller's access to it, as loadProject() gives one; null when there is no such project. */
export async function projectSubjectFor(db: Db, actor: Actor, projectId: number): Promise<ProjectSubject | null> {
  const found = await findProjectByIdOrPath(db, String(projectId))
  if (found === null) return null
  const access = (await projectAccessFor(db, actor.user.id, [projectId])).get(projectId) ?? NO_PROJECT_ACCESS
  return { ...found, access }
}

/** The root of a project's fork network: the project it was (transitively) forked from first. */
async function forkNetworkRoot(db: Db, project: ProjectRow): Promise<number> {
  let id = project.id
  let parent = project.forked_from_project_id
  for (let depth = 0; parent !== null && depth < MAX_FORK_DEPTH; depth++) {
    id = parent
    parent = (await db.selectFrom('projects').select('forked_from_project_id').where('id', '=', id).executeTakeFirst())?.forked_from_project_id ?? null
  }
  return id
}

/** The target the caller named: 404 unless they can see it, 403 unless they may open merge requests in it. */
async function loadTarget(ctx: AppContext, actor: Actor, source: ProjectSubject, targetProjectId: number | undefined): Promise<ProjectSubject> {
  let target = source
  if (targetProjectId !== undefined && targetProjectId !== source.project.id) {
    const found = await projectSubjectFor(ctx.db, actor, targetProjectId)
    if (found === null || !canReadProject(actor, found.project, found.access)) throw notFound('Project')
    target = found
  }
  if (!canOnProject(actor, target, 'create_merge_request_in')) throw forbidden()
  if (target !== source && await forkNetworkRoot(ctx.db, target.project) !== await forkNetworkRoot(ctx.db, source.project)) {
    throw unprocessable('Source project is not a fork of the target project')
  }
  return target
}

async function fieldErrorsOf(ctx: AppContext, source: ProjectSubject, target: ProjectSubject, input: NewMergeRequest): Promise<FieldErrors> {
  const errors: FieldErrors = {}
  if (input.title.trim() === '') errors.title = ["can't be blank"]
  else if ([...input.title].length > MAX_TITLE_LENGTH) errors.title = [`is too long (maximum is ${MAX_TITLE_LENGTH} characters)`]
  const branches = [
    ['source_branch', source, input.sourceBranch],
    ['target_branch', target, input.targetBranch],
  ] as const
  for (const [field, subject, branch] of branches) {
    if (branch.trim() === '') errors[field] = ["can't be blank"]
    else if (await findBranchTip(ctx.repositories.open(subject.project.id), branch) === null) errors[field] = ['does not exist']
  }
  return errors
}

/**
 * What only those who administer the target's merge requests (Developers) may set; the original
 * drops the rest silently: an assignee who cannot read the merge request, a milestone of another
 * project.
 */
async function administeredValues(db: Db, actor: Actor, target: ProjectSubject, input: NewMergeRequest) {
  if (!canOnProject(actor, target, 'admin_merge_request')) return { assigneeId: null, milestoneId: null, labels: [] }
  const assignee = input.assigneeId === undefined ? null
    : await assignableUser(db, target, input.assigneeId, (user, theirs) => canOnProject(user, theirs, 'read_merge_request'))
  const assigneeId = assignee?.id ?? null
  let milestoneId: number | null = null
  if (input.milestoneId !== undefined) {
    const milestone = await findAvailableMilestone(db, { type: 'project', id: target.project.id }, input.milestoneId)
    milestoneId = milestone?.id ?? null
  }
  return { assigneeId, milestoneId, labels: input.labels ?? [] }
}

/** Answers 401/403/404/400/409/422 as ApiErrors; the new merge request's row otherwise. */
export async function createMergeRequest(ctx: AppContext, actor: Actor, source: ProjectSubject, input: NewMergeRequest): Promise<MergeRequestRow> {
  if (!canOnProject(actor, source, 'create_merge_request_from')) throw forbidden()
  const target = await loadTarget(ctx, actor, source, input.targetProjectId)
  if (target === source && input.sourceBranch === input.targetBranch) {
    throw unprocessable('You can not use same project/branch for source and target')
  }
  const errors = await fieldErrorsOf(ctx, source, target, input)
  if (Object.keys(errors).length > 0) throw validationFailed(errors)
  const administered = await administeredValues(ctx.db, actor, target, input)

  const created = await ctx.db.transaction().execute(async (trx) => {
    // Taking the iid first serializes creators into the same target, so the twin check below sees
    // a concurrent creator's merge request.
    const iid = await nextInternalId(trx, { type: 'project', id: target.project.id }, 'merge_requests')
    const twins = await trx.selectFrom('merge_requests').select('title')
      .where('target_project_id', '=', target.project.id).where('target_branch', '=', input.targetBranch)
      .where('source_project_id', '=', source.project.id).where('source_branch', '=', input.sourceBranch)
      .where('state', '=', 'opened').orderBy('id')
      .execute()
    if (twins.length > 0) {
      // The titles as the original prints a Ruby array: ["a", "b"].
      const titles = `[${twins.map((twin) => JSON.stringify(twin.title)).join(', ')}]`
      throw new ApiError(409, { message: [`Cannot Create: This merge request already exists: ${titles}`] })
    }
    const now = Date.now()
    const mr = await trx.insertInto('merge_requests').values({
      target_project_id: target.project.id,
      iid,
      source_project_id: source.project.id,
      source_branch: input.sourceBranch,
      target_branch: input.targetBranch,
      author_id: actor.user.id,
      assignee_id: administered.assigneeId,
      title: input.title,
      description: input.description ?? null,
      milestone_id: administered.milestoneId,
      sha: null,
      target_sha: null,
      merge_commit_sha: null,
      merged_by_id: null,
      merged_at: null,
      closed_by_id: null,
      closed_at: null,
      should_remove_source_branch: null,
      force_remove_source_branch: flag(input.removeSourceBranch === true),
      allow_collaboration: flag(input.allowCollaboration === true),
      squash: flag(input.squash === true),
      created_at: now,
      updated_at: now,
    }).returningAll().executeTakeFirstOrThrow()
    if (administered.labels.length > 0) {
      await replaceLabels(trx, { type: 'MergeRequest', id: mr.id }, await findOrCreateLabels(trx, target.project.id, administered.labels))
    }
    await recordEvent(trx, {
      action: 'created', authorId: actor.user.id, projectId: target.project.id,
      target: { type: 'MergeRequest', id: mr.id, iid: mr.iid, title: mr.title }, createdAt: now,
    })
    return mr
  })
  await refreshMergeRequest(ctx, created.id)
  await ctx.activity.publish({
    kind: 'merge_request', action: 'open', projectId: target.project.id, mergeRequestId: created.id, userId: actor.user.id, changes: {},
  }, ctx)
  return await ctx.db.selectFrom('merge_requests').selectAll().where('id', '=', created.id).executeTakeFirst() ?? created
}
