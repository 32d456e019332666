// Forks (POST /projects/:id/fork) and the fork relation administrators set or remove
// (POST /projects/:id/fork/:forked_from_id, DELETE /projects/:id/fork), as the original's
// ForkService and UnlinkForkService. The source's forks_count follows by trigger (migration 0003).
// A fork gets links of its own to the source's LFS objects, so that it keeps them whatever becomes
// of the source.
import type { AppContext } from '../../context.js'
import type { Db } from '../../db/index.js'
import type { NamespaceRow, ProjectRow } from '../../db/schema.js'
import type { Actor } from '../../auth/actor.js'
import { ApiError, conflict, notFound, validationFailed } from '../../common/errors.js'
import { PUBLIC, VISIBILITIES, visibilityLevel, visibilityName } from '../../policies/access-levels.js'
import { canOnProject, type ProjectSubject } from '../../policies/project-policy.js'
import { getApplicationSettings, type ApplicationSettings } from '../settings.js'
import { linkLfsObjects } from '../lfs/lfs-objects.js'
import { createProject, findNamespace, mayCreateProjectsIn, personalNamespace } from './create-project.js'
import { enqueueStatisticsRefresh } from './refresh-statistics.js'

export interface ForkInput {
  /** The target namespace's id or full path; the caller's personal namespace when absent. */
  namespace?: string
}

/**
 * The original's allowed visibility of a fork: no more open than its source nor than a target
 * group, then the closest level at or below that the administrator has not restricted (private
 * when all are).
 */
export function forkVisibilityLevel(source: ProjectRow, target: NamespaceRow, settings: ApplicationSettings): number {
  const ceiling = Math.min(source.visibility_level, target.kind === 'group' ? target.visibility_level : PUBLIC)
  const allowed = VISIBILITIES.map(visibilityLevel)
    .filter((level) => level <= ceiling && !settings.restricted_visibility_levels.includes(visibilityName(level)))
  return allowed.length === 0 ? 0 : Math.max(...allowed)
}

/** The original answers a fork it cannot create with 409 and the field errors. */
function asConflict(err: unknown): never {
  if (err instanceof ApiError && err.statusCode === 400 && typeof err.body.message === 'object') {
    throw new ApiError(409, err.body)
  }
  throw err
}

/**
 * Creates the fork: same name and path as the source, its description, CI settings and default
 * branch, with the source's branches, tags and LFS objects. The caller must be able to read the
 * source's code (else 409 `forked_from_project_id: is forbidden`, as the original) and to create
 * projects in the target namespace (else 404 Target Namespace).
 */
export async function forkProject(
  ctx: AppContext, actor: Actor, source: ProjectSubject, input: ForkInput,
): Promise<{ project: ProjectRow; namespace: NamespaceRow }> {
  const { db } = ctx
  let namespace: NamespaceRow
  if (input.namespace === undefined || input.namespace === '') {
    namespace = await personalNamespace(db, actor.user)
  } else {
    const found = await findNamespace(db, input.namespace)
    if (found === undefined || !await mayCreateProjectsIn(db, actor, found)) throw notFound('Target Namespace')
    namespace = found
  }
  if (!canOnProject(actor, source, 'download_code')) throw validationFailed({ forked_from_project_id: ['is forbidden'] }, 409)

  const parent = source.project
  const settings = await getApplicationSettings(db)
  const project = await createProject(ctx, actor, {
    name: parent.name,
    path: parent.path,
    namespace,
    description: parent.description,
    visibility: visibilityName(forkVisibilityLevel(parent, namespace, settings)),
    shared_runners_enabled: parent.shared_runners_enabled === 1,
    jobs_enabled: parent.jobs_enabled === 1,
    ci_config_path: parent.ci_config_path,
    ...(parent.default_branch === null ? {} : { default_branch: parent.default_branch }),
  }, { forkOf: parent }).catch(asConflict)
  const lfsObjects = await db.selectFrom('lfs_objects_projects').select('lfs_object_id').where('project_id', '=', parent.id).execute()
  await linkLfsObjects(db, project.id, lfsObjects.map((row) => row.lfs_object_id))
  await enqueueStatisticsRefresh(ctx, project.id)
  return { project, namespace }
}

/** Marks `project` as a fork of `source`; 409 when it already is a fork (or would be its own). */
export async function linkFork(db: Db, project: ProjectRow, source: ProjectRow): Promise<ProjectRow> {
  if (project.id === source.id) throw conflict('Target project cannot be equal to source project')
  // Conditional on the row, so two concurrent links cannot both succeed.
  const linked = await db.updateTable('projects').set({ forked_from_project_id: source.id })
    .where('id', '=', project.id).where('forked_from_project_id', 'is', null)
    .returningAll().executeTakeFirst()
  if (linked === undefined) throw conflict('Project already forked')
  return linked
}

/** Ends the fork relation; false when the project was no fork. */
export async function unlinkFork(db: Db, project: ProjectRow): Promise<boolean> {
  if (project.forked_from_project_id === null) return false
  const result = await db.updateTable('projects').set({ forked_from_project_id: null })
    .where('id', '=', project.id).where('forked_from_project_id', 'is not', null)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}
