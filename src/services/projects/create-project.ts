// Creates a project in a namespace, with its bare repository, in one transaction (POST /projects,
// POST /projects/user/:user_id, and forks). creationNamespace() decides where the creator may
// create it; createProject() checks the project itself and the owner's project limit;
// initializeWithReadme() makes the first commit of `initialize_with_readme`.
import { randomBytes } from 'node:crypto'
import type { Db } from '../../db/index.js'
import { lockRow } from '../../db/locks.js'
import type { NamespaceRow, ProjectRow } from '../../db/schema.js'
import { fitsIntegerColumn, flag } from '../../db/values.js'
import type { Actor } from '../../auth/actor.js'
import { validationFailed } from '../../common/errors.js'
import { isValidRefName } from '../../git/ref-names.js'
import { MAINTAINER, visibilityLevel, type Visibility } from '../../policies/access-levels.js'
import { canOnGroup } from '../../policies/group-policy.js'
import { getApplicationSettings } from '../settings.js'
import { pathFromName, projectNameErrors, projectPathErrors } from '../namespaces/path-rules.js'
import { visibilityErrors } from '../namespaces/visibility-rules.js'
import { collectErrors } from '../validation.js'
import { recordEvent } from '../events/record-event.js'
import type { AppContext } from '../../context.js'
import { NULL_OID } from '../../git/repository.js'
import { writeCommit } from '../../git/write.js'
import { NO_PROJECT_ACCESS, groupAccessFor, projectAccessFor } from '../../finders/access.js'
import { moveRef } from '../push/move-refs.js'
import { refreshStatistics } from './refresh-statistics.js'
import { BRANCH_PREFIX } from '../../git/ref-names.js'
import { projectSystemActivities } from '../hooks/system-payloads.js'

export type MergeMethod = 'merge' | 'rebase_merge' | 'ff'
export const MERGE_METHODS: readonly MergeMethod[] = ['merge', 'rebase_merge', 'ff']

/** The settings a project can be created or updated with. */
export interface ProjectSettingsInput {
  description?: string | null
  visibility?: Visibility
  issues_enabled?: boolean
  merge_requests_enabled?: boolean
  jobs_enabled?: boolean
  wiki_enabled?: boolean
  snippets_enabled?: boolean
  container_registry_enabled?: boolean
  shared_runners_enabled?: boolean
  lfs_enabled?: boolean
  request_access_enabled?: boolean
  public_jobs?: boolean
  resolve_outdated_diff_discussions?: boolean
  only_allow_merge_if_pipeline_succeeds?: boolean
  only_allow_merge_if_all_discussions_are_resolved?: boolean
  printing_merge_request_link_enabled?: boolean
  merge_method?: MergeMethod
  tag_list?: string[]
  ci_config_path?: string | null
  default_branch?: string
}

export interface CreateProjectInput extends ProjectSettingsInput {
  /** At least one of name and path; the other is derived from it. */
  name?: string
  path?: string
  namespace: NamespaceRow
}

/** The flag columns a settings input sets, as 0/1. */
export function settingFlags(input: ProjectSettingsInput) {
  const flags = {
    issues_enabled: input.issues_enabled,
    merge_requests_enabled: input.merge_requests_enabled,
    jobs_enabled: input.jobs_enabled,
    wiki_enabled: input.wiki_enabled,
    snippets_enabled: input.snippets_enabled,
    container_registry_enabled: input.container_registry_enabled,
    shared_runners_enabled: input.shared_runners_enabled,
    lfs_enabled: input.lfs_enabled,
    request_access_enabled: input.request_access_enabled,
    public_jobs: input.public_jobs,
    resolve_outdated_diff_discussions: input.resolve_outdated_diff_discussions,
    only_allow_merge_if_pipeline_succeeds: input.only_allow_merge_if_pipeline_succeeds,
    only_allow_merge_if_all_discussions_are_resolved: input.only_allow_merge_if_all_discussions_are_resolved,
    printing_merge_request_link_enabled: input.printing_merge_request_link_enabled,
  }
  return Object.fromEntries(Object.entries(flags).flatMap(([k, v]) => (v === undefined ? [] : [[k, flag(v)]]))) as
    Partial<Record<keyof typeof flags, 0 | 1>>
}

/** Topics as the original keeps them: trimmed, without blanks or repeats. */
export function normalizeTagList(tags: readonly string[]): string[] {
  return [...new Set(tags.map((tag) => tag.trim()).filter((tag) => tag !== ''))]
}

/** A unique index refused the row (SQLite and PostgreSQL): a concurrent request took the name or path. */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE'
}

/** The original's rule for a custom CI configuration path. */
export function ciConfigPathErrors(path: string | null | undefined): string[] {
  if (path === undefined || path === null || path === '') return []
  const errors: string[] = []
  if (path.includes('..') || path.startsWith('/')) errors.push('cannot include leading slash or directory traversal.')
  if (path.length > 255) errors.push('is too long (maximum is 255 characters)')
  return errors
}

/**
 * Problems with a name or path within a namespace: malformed, or taken by another project there
 * or, for the path, by a subgroup of the same full path (both would answer the same URL).
 */
export async function nameAndPathErrors(
  db: Db, namespaceId: number, name: string, path: string, exceptProjectId?: number,
): Promise<{ name: string[]; path: string[] }> {
  const nameErrors = projectNameErrors(name)
  const pathErrors = projectPathErrors(path)
  let clash = db.selectFrom('projects').select(['name', 'path_lower']).where('namespace_id', '=', namespaceId)
    .where((eb) => eb.or([eb('name', '=', name), eb('path_lower', '=', path.toLowerCase())]))
  if (exceptProjectId !== undefined) clash = clash.where('id', '!=', exceptProjectId)
  for (const other of await clash.execute()) {
    if (other.name === name && !nameErrors.includes('has already been taken')) nameErrors.push('has already been taken')
    if (other.path_lower === path.toLowerCase() && !pathErrors.includes('has already been taken')) pathErrors.push('has already been taken')
  }
  if (!pathErrors.includes('has already been taken')) {
    // Paths are ASCII, so lower() agrees on both databases.
    const subgroup = await db.selectFrom('namespaces').select('id').where('parent_id', '=', namespaceId)
      .where((eb) => eb(eb.fn('lower', ['path']), '=', path.toLowerCase())).executeTakeFirst()
    if (subgroup !== undefined) pathErrors.push('has already been taken')
  }
  return { name: nameErrors, path: pathErrors }
}

/**
 * The project limit again, with the owner's row locked until the creating transaction ends: two
 * creations at once cannot both take the last place the first check saw free.
 */
async function projectLimitRecheck(trx: Db, namespace: NamespaceRow): Promise<void> {
  if (namespace.kind !== 'user' || namespace.owner_id === null) return
  await lockRow(trx, 'users', namespace.owner_id)
  const errors = await projectLimitErrors(trx, namespace)
  if (errors.length > 0) throw validationFailed({ limit_reached: errors })
}

async function projectLimitErrors(db: Db, namespace: NamespaceRow): Promise<string[]> {
  if (namespace.kind !== 'user' || namespace.owner_id === null) return []
  const owner = await db.selectFrom('users').select(['projects_limit', 'admin']).where('id', '=', namespace.owner_id).executeTakeFirstOrThrow()
  const { count } = await db.selectFrom('projects').select((eb) => eb.fn.countAll<number>().as('count'))
    .where('namespace_id', '=', namespace.id).executeTakeFirstOrThrow()
  if (Number(count) < owner.projects_limit) return []
  return owner.projects_limit === 0
    ? ['Personal project creation is not allowed. Please contact your administrator with questions']
    : [`Your project limit is ${owner.projects_limit} projects! Please contact your administrator to increase it`]
}

/** A namespace by id or full path (case-insensitive), as the API's `namespace` parameters name one. */
export async function findNamespace(db: Db, idOrPath: string): Promise<NamespaceRow | undefined> {
  const byId = /^\d+$/.test(idOrPath)
  if (byId && !fitsIntegerColumn(Number(idOrPath))) return undefined
  return db.selectFrom('namespaces').selectAll()
    .where(byId ? 'id' : 'full_path_lower', '=', byId ? Number(idOrPath) : idOrPath.toLowerCase())
    .executeTakeFirst()
}

/** Projects may be created in one's own namespace, in a group where one is Maintainer or more, by admins anywhere. */
export async function mayCreateProjectsIn(db: Db, creator: Actor, namespace: NamespaceRow): Promise<boolean> {
  if (namespace.kind === 'user') return namespace.owner_id === creator.user.id || creator.user.admin === 1
  return canOnGroup(creator, await groupAccessFor(db, creator.user.id, namespace.id), 'create_projects')
}

export function personalNamespace(db: Db, user: { id: number }): Promise<NamespaceRow> {
  return db.selectFrom('namespaces').selectAll().where('kind', '=', 'user').where('owner_id', '=', user.id).executeTakeFirstOrThrow()
}

/**
 * The namespace a project is created in: the given id or full path, which the creator must be
 * allowed to create projects in, or else their personal namespace. As the original, anything else
 * is the field error `namespace: is not valid`, whether the namespace is missing, hidden or closed
 * to them.
 */
export async function creationNamespace(db: Db, creator: Actor, idOrPath: string | undefined): Promise<NamespaceRow> {
  if (idOrPath === undefined) return personalNamespace(db, creator.user)
  const namespace = await findNamespace(db, idOrPath)
  if (namespace === undefined || !await mayCreateProjectsIn(db, creator, namespace)) throw validationFailed({ namespace: ['is not valid'] })
  return namespace
}

/** Where a new project's repository comes from. */
export interface ProjectOrigin {
  /** A fork: the source's branches and tags (storage.fork), and the fork relation. */
  forkOf?: ProjectRow
}

export async function createProject(
  ctx: AppContext, actor: Actor, input: CreateProjectInput, origin: ProjectOrigin = {},
): Promise<ProjectRow> {
  const { db, repositories } = ctx
  const { forkOf } = origin
  const name = input.name ?? input.path ?? ''
  const path = input.path ?? pathFromName(name)
  const settings = await getApplicationSettings(db)
  const visibility = input.visibility ?? settings.default_project_visibility
  const level = visibilityLevel(visibility)
  const taken = await nameAndPathErrors(db, input.namespace.id, name, path)
  const errors = collectErrors({
    ...taken,
    visibility_level: visibilityErrors(visibility, level, input.namespace, actor, settings, 'project'),
    merge_method: input.merge_method !== undefined && !MERGE_METHODS.includes(input.merge_method) ? ['is not included in the list'] : [],
    default_branch: input.default_branch !== undefined && !isValidRefName(input.default_branch) ? ['is invalid'] : [],
    ci_config_path: ciConfigPathErrors(input.ci_config_path),
    limit_reached: await projectLimitErrors(db, input.namespace),
  })
  if (errors !== null) throw validationFailed(errors)

  const now = Date.now()
  // git runs before the transaction, which only moves the repository into place: on SQLite a write
  // transaction holds every other writer (and on one connection every reader) while it is open.
  const staged = forkOf === undefined ? await repositories.stageEmpty(input.default_branch ?? null) : await repositories.stageFork(forkOf.id)
  let placedAs: number | undefined
  const created = await db.transaction().execute(async (trx) => {
    await projectLimitRecheck(trx, input.namespace)
    const project = await trx.insertInto('projects').values({
      namespace_id: input.namespace.id,
      name,
      path,
      path_lower: path.toLowerCase(),
      description: input.description ?? null,
      visibility_level: level,
      creator_id: actor.user.id,
      default_branch: input.default_branch ?? null,
      ...settingFlags(input),
      ...(input.merge_method === undefined ? {} : { merge_method: input.merge_method }),
      ci_config_path: input.ci_config_path ?? null,
      tag_list: JSON.stringify(normalizeTagList(input.tag_list ?? [])),
      runners_token: randomBytes(15).toString('base64url'),
      // A fork is complete when created (the original's import finishes later: 'scheduled' first),
      // and shows the source's README until its own statistics job runs.
      // A fork's repository is a copy of its source's: as empty as it is.
      ...(forkOf === undefined ? {} : {
        forked_from_project_id: forkOf.id, import_status: 'finished', readme_path: forkOf.readme_path, empty_repo: forkOf.empty_repo,
      }),
      created_at: now,
      updated_at: now,
      last_activity_at: now,
    }).returningAll().executeTakeFirstOrThrow()
    await trx.insertInto('project_statistics').values({ project_id: project.id }).execute()
    // The owner of a personal namespace works on its projects as a Maintainer member, as in the
    // original; group projects are reached through the group's memberships.
    if (input.namespace.kind === 'user' && input.namespace.owner_id !== null) {
      await trx.insertInto('members').values({
        source_type: 'project', source_id: project.id, user_id: input.namespace.owner_id, access_level: MAINTAINER,
        expires_at: null, created_by_id: actor.user.id, created_at: now, updated_at: now,
      }).execute()
    }
    await recordEvent(trx, { action: 'created', authorId: actor.user.id, projectId: project.id })
    // Last: a row never commits without its repository in place.
    placedAs = project.id
    await repositories.place(staged, project.id)
    return project
  }).catch(async (err: unknown) => {
    await repositories.discard(staged)
    if (placedAs !== undefined) await repositories.remove(placedAs)
    if (isUniqueViolation(err)) throw validationFailed({ name: ['has already been taken'], path: ['has already been taken'] })
    throw err
  })
  for (const event of await projectSystemActivities(db, [created.id], 'create')) await ctx.activity.publish(event, ctx)
  return created
}

/**
 * A new project as POST /projects and the new project page make it: in the namespace named (the
 * creator's own when none is), with the README first commit when asked.
 */
export async function createProjectIn(
  ctx: AppContext, creator: Actor, input: Omit<CreateProjectInput, 'namespace'> & { namespaceIdOrPath?: string | undefined; withReadme: boolean },
): Promise<{ project: ProjectRow; namespace: NamespaceRow }> {
  const { namespaceIdOrPath, withReadme, ...rest } = input
  const namespace = await creationNamespace(ctx.db, creator, namespaceIdOrPath)
  const project = await createProject(ctx, creator, { ...rest, namespace })
  return { project: withReadme ? await initializeWithReadme(ctx, creator, project, namespace) : project, namespace }
}

/**
 * `initialize_with_readme`: the original's first commit, README.md `# <name>\n\n<description>` on
 * the default branch by the creator, made like any API write (push rules, a `pushed` event, the
 * default branch set by the first push). The project exists either way: if the push rules refuse
 * the creator (a Developer creating in a group whose first branch is for Maintainers), it is left
 * empty, as the original leaves it when its README commit fails.
 */
export async function initializeWithReadme(ctx: AppContext, actor: Actor, project: ProjectRow, namespace: NamespaceRow): Promise<ProjectRow> {
  const repo = ctx.repositories.open(project.id)
  const author = { name: actor.user.name, email: actor.user.email }
  const commit = await writeCommit(repo, {
    parent: null,
    changes: [{ path: 'README.md', content: Buffer.from(`# ${project.name}\n\n${project.description ?? ''}`) }],
    message: 'Initial commit',
    author,
    committer: author,
  })
  const access = (await projectAccessFor(ctx.db, actor.user.id, [project.id])).get(project.id) ?? NO_PROJECT_ACCESS
  const branch = project.default_branch ?? 'master'
  const outcome = await moveRef(ctx, { project, namespace, access }, actor, { ref: `${BRANCH_PREFIX}${branch}`, oldId: NULL_OID, newId: commit })
  if (outcome.status !== 'moved') {
    ctx.log.warn({ project: project.id, outcome }, 'the README of initialize_with_readme was not committed')
    return project
  }
  // The statistics and the README of a one-commit repository cost little to work out now, and
  // callers read them right after creating (clients that read commit_count saw 0 until the
  // push's job ran); the job still brings the commit-graph.
  await refreshStatistics(ctx, project.id)
  return ctx.db.selectFrom('projects').selectAll().where('id', '=', project.id).executeTakeFirstOrThrow()
}
