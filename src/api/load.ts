// The only way a route gets a project, group, user, issue, merge request or milestone by the ids of
// its path: look it up by numeric id or full path, then answer 404 unless the caller may see it, so
// private resources can never leak by a forgotten check. `authorize` turns a policy answer into 403.
import type { FastifyRequest } from 'fastify'
import type { IssueRow, MergeRequestRow, MilestoneRow, NamespaceRow, ProjectRow, UserRow } from '../db/schema.js'
import { NO_PROJECT_ACCESS, groupAccessFor, projectAccessFor, type ProjectAccess } from '../finders/access.js'
import { findVisibleGroup } from '../finders/groups-finder.js'
import { findIssueByIid, issueAssigneeIds } from '../finders/issues-finder.js'
import { findMergeRequestByIid } from '../finders/merge-requests-finder.js'
import { findMilestone } from '../finders/milestones-finder.js'
import { findProjectByIdOrPath } from '../finders/project-lookup.js'
import { findUserById, findUserByUsername } from '../finders/users-finder.js'
import { canOnProject, canReadProject, type ProjectAbility, type ProjectSubject } from '../policies/project-policy.js'
import type { GitRepository } from '../git/repository.js'
import { canReadIssue } from '../policies/issuable-policy.js'
import { forbidden, notFound, unauthorized } from '../common/errors.js'
import type { Actor } from '../auth/actor.js'

const NUMERIC_ID = /^\d+$/

export interface LoadedProject extends ProjectSubject {
  project: ProjectRow
  namespace: NamespaceRow
  access: ProjectAccess
}

export interface LoadedGroup {
  group: NamespaceRow
  /** The caller's highest membership of the group or its ancestors; 0 for none. */
  accessLevel: number
}

/** A project by id or URL-decoded full path, 404 unless the caller can read it. */
export async function loadProject(req: FastifyRequest, idOrPath: string): Promise<LoadedProject> {
  const { db } = req.ingot
  const found = await findProjectByIdOrPath(db, idOrPath)
  if (found === null) throw notFound('Project')
  const { project, namespace } = found
  const actor = req.actor
  const access = actor === null
    ? NO_PROJECT_ACCESS
    : (await projectAccessFor(db, actor.user.id, [project.id])).get(project.id) ?? NO_PROJECT_ACCESS
  if (!canReadProject(actor, project, access)) throw notFound('Project')
  return { project, namespace, access }
}

/** A project the caller may act on with `ability`: 404 unless they can see it, 403 unless they may. */
export async function loadProjectFor(req: FastifyRequest, idOrPath: string, ability: ProjectAbility): Promise<LoadedProject> {
  const loaded = await loadProject(req, idOrPath)
  authorize(canOnProject(req.actor, loaded, ability))
  return loaded
}

export interface LoadedRepository extends LoadedProject {
  repo: GitRepository
}

/** The revision reads default to: the default branch, or what HEAD names before one is recorded. */
export function defaultRevision(loaded: LoadedProject): string {
  return loaded.project.default_branch ?? 'HEAD'
}

/** A project and its repository, for `ability` ('download_code' to read, 'push_code' to write). */
export async function loadRepository(req: FastifyRequest, idOrPath: string, ability: ProjectAbility = 'download_code'): Promise<LoadedRepository> {
  const loaded = await loadProjectFor(req, idOrPath, ability)
  return { ...loaded, repo: req.ingot.repositories.open(loaded.project.id) }
}

export interface LoadedIssue extends LoadedProject {
  issue: IssueRow
  assigneeIds: number[]
}

/**
 * An issue of the project by its iid: 404 'Issue' unless the caller may read it (issues enabled,
 * confidential ones only for their author, assignees and Reporters and up), then `ability` on the
 * project (403).
 */
export async function loadIssue(req: FastifyRequest, idOrPath: string, iid: number, ability: ProjectAbility = 'read_project'): Promise<LoadedIssue> {
  const loaded = await loadProject(req, idOrPath)
  const { db } = req.ingot
  const issue = await findIssueByIid(db, loaded.project.id, iid)
  if (issue === null) throw notFound('Issue')
  const assigneeIds = await issueAssigneeIds(db, issue.id)
  if (!canReadIssue(req.actor, loaded, issue, assigneeIds)) throw notFound('Issue')
  authorize(canOnProject(req.actor, loaded, ability))
  return { ...loaded, issue, assigneeIds }
}

export interface LoadedMergeRequest extends LoadedProject {
  mergeRequest: MergeRequestRow
}

/** A merge request of the (target) project by its iid: 404 unless the caller may read it, then `ability` (403). */
export async function loadMergeRequest(
  req: FastifyRequest, idOrPath: string, iid: number, ability: ProjectAbility = 'read_merge_request',
): Promise<LoadedMergeRequest> {
  const loaded = await loadProject(req, idOrPath)
  if (!canOnProject(req.actor, loaded, 'read_merge_request')) throw notFound('Merge Request')
  const mergeRequest = await findMergeRequestByIid(req.ingot.db, loaded.project.id, iid)
  if (mergeRequest === null) throw notFound('Merge Request')
  authorize(canOnProject(req.actor, loaded, ability))
  return { ...loaded, mergeRequest }
}

/** A group by id or URL-decoded full path, 404 unless the caller can see it. */
export async function loadGroup(req: FastifyRequest, idOrPath: string): Promise<LoadedGroup> {
  const { db } = req.ingot
  const group = await findVisibleGroup(db, req.actor, idOrPath)
  if (group === null) throw notFound('Group')
  const accessLevel = req.actor === null ? 0 : await groupAccessFor(db, req.actor.user.id, group.id)
  return { group, accessLevel }
}

/** 403 unless the caller is an admin or holds `minLevel` or more in the group (0: anyone who sees it). */
export function authorizeGroupLevel(req: FastifyRequest, loaded: LoadedGroup, minLevel: number): void {
  if (minLevel === 0) return
  authorize(req.actor !== null && (req.actor.user.admin === 1 || loaded.accessLevel >= minLevel))
}

export interface LoadedProjectMilestone extends LoadedProject {
  milestone: MilestoneRow
}

export interface LoadedGroupMilestone extends LoadedGroup {
  milestone: MilestoneRow
}

/**
 * A project milestone of a route: 404 unless the caller sees the project, 403 without `ability`
 * ('read_milestone' to read, 'admin_milestone' to change, 'destroy_milestone' to delete), then 404
 * for a milestone the project does not have.
 */
export async function loadProjectMilestone(
  req: FastifyRequest, projectIdOrPath: string, milestoneId: number, ability: ProjectAbility = 'read_milestone',
): Promise<LoadedProjectMilestone> {
  const loaded = await loadProjectFor(req, projectIdOrPath, ability)
  const milestone = await findMilestone(req.ingot.db, { type: 'project', id: loaded.project.id }, milestoneId)
  if (milestone === null) throw notFound('Milestone')
  return { ...loaded, milestone }
}

/**
 * A group milestone of a route: 404 unless the caller sees the group, 403 below `minLevel` (0 to
 * read, Reporter to change, Developer to delete), then 404 for a milestone the group does not have.
 */
export async function loadGroupMilestone(
  req: FastifyRequest, groupIdOrPath: string, milestoneId: number, minLevel = 0,
): Promise<LoadedGroupMilestone> {
  const loaded = await loadGroup(req, groupIdOrPath)
  authorizeGroupLevel(req, loaded, minLevel)
  const milestone = await findMilestone(req.ingot.db, { type: 'group', id: loaded.group.id }, milestoneId)
  if (milestone === null) throw notFound('Milestone')
  return { ...loaded, milestone }
}

/** A user by numeric id, or by username where `byUsername` allows it; the ghost is never found. */
export async function loadUser(req: FastifyRequest, idOrUsername: string | number, options: { byUsername?: boolean } = {}): Promise<UserRow> {
  const { db } = req.ingot
  const key = String(idOrUsername)
  let user: UserRow | null = null
  if (typeof idOrUsername === 'number' || NUMERIC_ID.test(key)) user = await findUserById(db, Number(key))
  else if (options.byUsername) user = await findUserByUsername(db, key)
  if (user === null) throw notFound('User')
  return user
}

/** The caller of a route that requires one (authentication answered 401 already otherwise). */
export function requireActor(req: FastifyRequest): Actor {
  if (req.actor === null) throw unauthorized()
  return req.actor
}

/** 403 unless the policy allowed it (for writes on resources the caller can already see). */
export function authorize(allowed: boolean, reason?: string): void {
  if (!allowed) throw forbidden(reason)
}

/** 403 unless the caller is an administrator. */
export function requireAdmin(req: FastifyRequest): void {
  if (req.actor === null || req.actor.user.admin !== 1) throw forbidden()
}
