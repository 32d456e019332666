// Changes a project's name, path and settings (PUT /projects/:id) with the rules of creation: the
// name and path stay unique in the namespace, a new visibility must fit the group and the
// restricted levels (and, for a fork, its source's), and a new default branch must be a branch of
// the repository (or the repository must still be empty); readme_url follows the new default
// branch at once, and the statistics (which count its commits) through their job. Which caller may
// change what is the route's question.
import type { AppContext } from '../../context.js'
import type { Db } from '../../db/index.js'
import type { NamespaceRow, ProjectRow, ProjectsTable } from '../../db/schema.js'
import type { Updateable } from 'kysely'
import type { Actor } from '../../auth/actor.js'
import { validationFailed } from '../../common/errors.js'
import { BRANCH_PREFIX, isValidRefName } from '../../git/ref-names.js'
import { visibilityLevel, visibilityName } from '../../policies/access-levels.js'
import { getApplicationSettings } from '../settings.js'
import { visibilityErrors } from '../namespaces/visibility-rules.js'
import { collectErrors } from '../validation.js'
import {
  ciConfigPathErrors, isUniqueViolation, nameAndPathErrors, normalizeTagList, settingFlags, type ProjectSettingsInput,
} from './create-project.js'
import { enqueueStatisticsRefresh, readmePathOf } from './refresh-statistics.js'

export interface UpdateProjectInput extends ProjectSettingsInput {
  name?: string
  path?: string
  /** Seconds a job may run; the CI/CD settings page sets it (the 11.5 API does not take it). */
  build_timeout?: number
}

/** The original's bounds of a project's job timeout: 10 minutes to a month (exclusive; ActiveSupport's 1.month), in seconds. */
const BUILD_TIMEOUT_RANGE = { min: 10 * 60, below: 2_629_746 }

function buildTimeoutErrors(seconds: number | undefined): string[] {
  if (seconds === undefined) return []
  return Number.isInteger(seconds) && seconds >= BUILD_TIMEOUT_RANGE.min && seconds < BUILD_TIMEOUT_RANGE.below
    ? [] : ['needs to be between 10 minutes and 1 month']
}

/** The original's rule for forks: never more open than the project they were forked from. */
async function forkVisibilityErrors(db: Db, project: ProjectRow, level: number): Promise<string[]> {
  if (project.forked_from_project_id === null) return []
  const source = await db.selectFrom('projects').select('visibility_level').where('id', '=', project.forked_from_project_id).executeTakeFirst()
  if (source === undefined || level <= source.visibility_level) return []
  return [`${visibilityName(level)} is not allowed since the fork source project has lower visibility.`]
}

export async function updateProject(
  ctx: Pick<AppContext, 'db' | 'repositories' | 'jobs'>, actor: Actor,
  subject: { project: ProjectRow; namespace: NamespaceRow }, input: UpdateProjectInput,
): Promise<ProjectRow> {
  const { db, repositories } = ctx
  const { project, namespace } = subject
  const name = input.name ?? project.name
  const path = input.path ?? project.path
  const renamed = name !== project.name || path !== project.path
  const taken = renamed ? await nameAndPathErrors(db, namespace.id, name, path, project.id) : { name: [], path: [] }
  const settings = await getApplicationSettings(db)
  const level = input.visibility === undefined ? project.visibility_level : visibilityLevel(input.visibility)
  const newHead = input.default_branch !== undefined && input.default_branch !== project.default_branch ? input.default_branch : null
  const errors = collectErrors({
    name: input.name === undefined ? [] : taken.name,
    path: input.path === undefined ? [] : taken.path,
    visibility_level: input.visibility === undefined || level === project.visibility_level
      ? []
      : [...visibilityErrors(input.visibility, level, namespace, actor, settings, 'project'), ...await forkVisibilityErrors(db, project, level)],
    default_branch: input.default_branch === undefined || isValidRefName(input.default_branch) ? [] : ['is invalid'],
    ci_config_path: ciConfigPathErrors(input.ci_config_path),
    build_timeout: buildTimeoutErrors(input.build_timeout),
  })
  if (errors !== null) throw validationFailed(errors)
  if (newHead !== null && !await repositories.branchUsableAsHead(project.id, newHead)) {
    throw validationFailed({ base: [`Could not change HEAD: branch '${newHead}' does not exist`] })
  }

  // readme_url follows the default branch at once; pushes update it through the statistics job.
  const readmePath = newHead === null ? undefined : await readmePathOf(repositories.open(project.id), `${BRANCH_PREFIX}${newHead}`)
  const changes: Updateable<ProjectsTable> = {
    ...settingFlags(input),
    ...(input.name === undefined ? {} : { name }),
    ...(input.path === undefined ? {} : { path, path_lower: path.toLowerCase() }),
    ...(input.description === undefined ? {} : { description: input.description }),
    ...(input.visibility === undefined ? {} : { visibility_level: level }),
    ...(input.default_branch === undefined ? {} : { default_branch: input.default_branch }),
    ...(readmePath === undefined ? {} : { readme_path: readmePath }),
    ...(input.merge_method === undefined ? {} : { merge_method: input.merge_method }),
    ...(input.ci_config_path === undefined ? {} : { ci_config_path: input.ci_config_path === '' ? null : input.ci_config_path }),
    ...(input.tag_list === undefined ? {} : { tag_list: JSON.stringify(normalizeTagList(input.tag_list)) }),
    ...(input.build_timeout === undefined ? {} : { build_timeout: input.build_timeout }),
    updated_at: Date.now(),
  }
  // HEAD moves first, outside any transaction (git never runs while one holds SQLite's write lock),
  // and back when the row cannot be written: a failed HEAD update leaves the row as it was.
  if (newHead !== null) await repositories.setHead(project.id, newHead)
  const updated = await db.updateTable('projects').set(changes).where('id', '=', project.id)
    .returningAll().executeTakeFirstOrThrow()
    .catch(async (err: unknown) => {
      if (newHead !== null && project.default_branch !== null) await repositories.setHead(project.id, project.default_branch)
      if (isUniqueViolation(err)) throw validationFailed({ name: ['has already been taken'], path: ['has already been taken'] })
      throw err
    })
  if (newHead !== null) await enqueueStatisticsRefresh(ctx, project.id)
  return updated
}
