// Restores project.json of an archive (format 0.2.4, research §1.4) into an existing, empty project:
// the project's attributes and its relation tree, read as a stream (restore-json-split.ts) so
// memory stays flat whatever its size, written in batches, each in its own transaction
// (restore-relations.ts). As 11.5: members mapped by email or username when the importer is an
// administrator, every other user reference falls back to the importer, who becomes Maintainer;
// the archive's attributes, then override_params, visibility capped by the namespace. A failure
// deletes what was restored (discardRestoredTree) and throws: the caller marks the import failed.
import type { AppContext } from '../../context.js'
import type { Db } from '../../db/index.js'
import type { ProjectsTable } from '../../db/schema.js'
import type { Updateable } from 'kysely'
import { MAINTAINER, visibilityName } from '../../policies/access-levels.js'
import { getApplicationSettings } from '../settings.js'
import { isValidRefName } from '../../git/ref-names.js'
import { NULL_OID } from '../../git/repository.js'
import type { ValueMode } from './restore-json-split.js'
import { readTopLevelValue, splitTree } from './restore-json-split.js'
import { bumpInternalIds, RELATIONS, type RestoreState } from './restore-relations.js'
import { bool, int, isRecord, records, text, UserMap, type Json } from './restore-values.js'

export interface RestoreProjectTreeInput {
  /** The project being imported into (created by the import, import_status started). */
  projectId: number
  /** The user who imports: unmapped user references fall back to them; they become Maintainer. */
  importerId: number
  /** project.json, extracted from the archive. */
  treePath: string
  /** The import request's override_params: they win over the archive's attributes. */
  overrideParams: Record<string, unknown>
  signal?: AbortSignal | undefined
}

/** What a restore wrote, for the caller's log. */
export interface RestoredTree {
  /** Top-level items restored per relation key. */
  counts: Record<string, number>
  /** Fork merge requests' source branches created from their head commit. */
  forkBranchesCreated: number
}

/**
 * Top-level items written in one transaction on SQLite (several batches): each transaction ends
 * with FTS5 flushing a segment of the issue search index and merging segments, which at one batch
 * per transaction cost twice the rows' own inserts; 2,000 issues with their notes take well under a
 * second, as long as other writers wait (busy_timeout 5 s). PostgreSQL keeps one batch per
 * transaction. A failure still leaves no rows: discardRestoredTree removes every committed one.
 */
const ITEMS_PER_TRANSACTION = 2_000

/** Top-level keys that are read whole: the project's own attributes and its one-to-one relations. */
const WHOLE = new Set(['project_feature', 'ci_cd_settings'])

export async function restoreProjectTree(ctx: AppContext, input: RestoreProjectTreeInput): Promise<RestoredTree> {
  try {
    return await restore(ctx, input)
  } catch (err) {
    await discardRestoredTree(ctx, input.projectId)
    throw err
  }
}

async function restore(ctx: AppContext, input: RestoreProjectTreeInput): Promise<RestoredTree> {
  const { db } = ctx
  const { projectId, importerId, signal } = input
  const importer = await db.selectFrom('users').select(['id', 'admin']).where('id', '=', importerId).executeTakeFirstOrThrow()
  const admin = importer.admin === 1
  const users = new UserMap(importerId)
  // 11.5 maps members only for an administrator; it writes them after the issues, so they are read first.
  if (admin) {
    const members = records(await readTopLevelValue(input.treePath, 'project_members', signal))
    await restoreMembers(db, projectId, importerId, members, users)
  }
  await makeMaintainer(db, projectId, importerId)

  const state: RestoreState = {
    projectId, users, admin, secrets: ctx.secrets, now: Date.now(),
    labels: new Map(), labelIds: new Map(), milestones: new Map(), milestoneIds: new Map(), milestoneIids: new Set(),
    maxIid: { issues: 0, merge_requests: 0, milestones: 0, ci_pipelines: 0 }, forkBranches: [],
  }
  const counts: Record<string, number> = {}
  const attributes: Json = {}
  // Pipelines without a number are restored after the others, numbered after the highest (as 11.5 does).
  const unnumberedPipelines: Json[] = []
  const modeOf = (key: string): ValueMode => {
    if (key in RELATIONS) return 'items'
    if (key === 'project_members') return 'skip'
    if (WHOLE.has(key)) return 'whole'
    return PROJECT_SCALARS.has(key) ? 'whole' : 'skip'
  }
  let batch: Json[] = []
  let batchKey: string | null = null
  // Batches cut and not yet written: on SQLite several go in one transaction (see ITEMS_PER_TRANSACTION).
  let pending: { key: string; items: Json[] }[] = []
  let pendingItems = 0
  const itemsPerTransaction = ctx.dialect === 'sqlite' ? ITEMS_PER_TRANSACTION : 0
  const write = async () => {
    if (pending.length === 0) return
    const batches = pending
    pending = []
    pendingItems = 0
    if (signal?.aborted) throw signal.reason ?? new Error('aborted')
    await db.transaction().execute(async (trx) => {
      for (const { key, items } of batches) await RELATIONS[key]!.restore(trx, state, items)
    })
    for (const { key, items } of batches) counts[key] = (counts[key] ?? 0) + items.length
  }
  const flush = async () => {
    if (batchKey === null || batch.length === 0) return
    pending.push({ key: batchKey, items: batch })
    pendingItems += batch.length
    batch = []
    if (pendingItems >= itemsPerTransaction) await write()
  }
  for await (const event of splitTree(input.treePath, modeOf, signal)) {
    if (event.kind === 'value') {
      attributes[event.key] = event.value
      continue
    }
    if (event.kind === 'end') {
      await flush()
      batchKey = null
      continue
    }
    if (!isRecord(event.item)) continue
    if (event.key === 'pipelines' && int(event.item.iid) === null) {
      unnumberedPipelines.push(event.item)
      continue
    }
    if (batchKey !== event.key) {
      await flush()
      batchKey = event.key
    }
    batch.push(event.item)
    if (batch.length >= RELATIONS[event.key]!.batch) await flush()
  }
  await flush()
  if (unnumberedPipelines.length > 0) {
    batchKey = 'pipelines'
    batch = unnumberedPipelines
    await flush()
  }
  await write()
  await db.transaction().execute(async (trx) => {
    await bumpInternalIds(trx, state)
    await applyProjectAttributes(trx, projectId, attributes, input.overrideParams, admin)
  })
  const forkBranchesCreated = await createForkBranches(ctx, projectId, state.forkBranches)
  return { counts, forkBranchesCreated }
}

// ---- members ---------------------------------------------------------------------------------

/**
 * The archive's members matched to users of this instance by email or username (11.5's
 * MembersMapper): each matched user becomes a member at the archive's level (at most Maintainer:
 * a project has no Owner members) and their old id maps to them.
 */
async function restoreMembers(db: Db, projectId: number, importerId: number, members: Json[], users: UserMap): Promise<void> {
  const now = Date.now()
  for (const member of members) {
    const user = isRecord(member.user) ? member.user : null
    const oldId = int(user?.id)
    const email = text(user?.email)?.toLowerCase() ?? null
    const username = text(user?.username)?.toLowerCase() ?? null
    if (user === null || oldId === null || (email === null && username === null)) continue
    const found = await db.selectFrom('users').select('id')
      .where((eb) => eb.or([eb('email_lower', '=', email ?? ''), eb('username_lower', '=', username ?? '')]))
      .where('ghost', '=', 0).orderBy('id').executeTakeFirst()
    if (found === undefined) continue
    users.map.set(oldId, found.id)
    if (found.id === importerId) continue
    const level = Math.min(int(member.access_level) ?? 10, MAINTAINER)
    if (![10, 20, 30, 40].includes(level)) continue
    const existing = await db.selectFrom('members').select('id')
      .where('source_type', '=', 'project').where('source_id', '=', projectId).where('user_id', '=', found.id).executeTakeFirst()
    if (existing !== undefined) continue
    await db.insertInto('members').values({
      source_type: 'project', source_id: projectId, user_id: found.id, access_level: level, expires_at: null, created_by_id: importerId,
      created_at: now, updated_at: now,
    }).execute()
  }
}

/** The importer is the project's Maintainer (or keeps a higher level they have). */
async function makeMaintainer(db: Db, projectId: number, importerId: number): Promise<void> {
  const now = Date.now()
  const existing = await db.selectFrom('members').select(['id', 'access_level'])
    .where('source_type', '=', 'project').where('source_id', '=', projectId).where('user_id', '=', importerId).executeTakeFirst()
  if (existing === undefined) {
    await db.insertInto('members').values({
      source_type: 'project', source_id: projectId, user_id: importerId, access_level: MAINTAINER, expires_at: null,
      created_by_id: importerId, created_at: now, updated_at: now,
    }).execute()
  } else if (existing.access_level < MAINTAINER) {
    await db.updateTable('members').set({ access_level: MAINTAINER, expires_at: null, updated_at: now }).where('id', '=', existing.id).execute()
  }
}

// ---- the project's attributes ----------------------------------------------------------------

/** The archive's project attributes Ingot has a column for (by the original's name), and their flags. */
const FLAG_COLUMNS: Record<string, keyof ProjectsTable> = {
  archived: 'archived',
  shared_runners_enabled: 'shared_runners_enabled',
  public_builds: 'public_jobs',
  public_jobs: 'public_jobs',
  container_registry_enabled: 'container_registry_enabled',
  only_allow_merge_if_pipeline_succeeds: 'only_allow_merge_if_pipeline_succeeds',
  only_allow_merge_if_all_discussions_are_resolved: 'only_allow_merge_if_all_discussions_are_resolved',
  request_access_enabled: 'request_access_enabled',
  printing_merge_request_link_enabled: 'printing_merge_request_link_enabled',
  resolve_outdated_diff_discussions: 'resolve_outdated_diff_discussions',
  issues_enabled: 'issues_enabled',
  merge_requests_enabled: 'merge_requests_enabled',
  wiki_enabled: 'wiki_enabled',
  snippets_enabled: 'snippets_enabled',
  jobs_enabled: 'jobs_enabled',
  builds_enabled: 'jobs_enabled',
}
const PROJECT_SCALARS = new Set([
  ...Object.keys(FLAG_COLUMNS), 'description', 'visibility_level', 'visibility', 'build_timeout', 'ci_config_path',
  'merge_requests_rebase_enabled', 'merge_requests_ff_only_enabled', 'merge_method',
])
/** project_feature's access levels → Ingot's flags (0 disabled; 10 private and 20 enabled are both on). */
const FEATURE_COLUMNS: Record<string, keyof ProjectsTable> = {
  issues_access_level: 'issues_enabled',
  merge_requests_access_level: 'merge_requests_enabled',
  wiki_access_level: 'wiki_enabled',
  snippets_access_level: 'snippets_enabled',
  builds_access_level: 'jobs_enabled',
}

/** The project's columns from one source of attributes (the archive's, or override_params). */
function projectColumns(source: Json): Updateable<ProjectsTable> & { visibility_level?: number } {
  const out: Record<string, unknown> = {}
  for (const [key, column] of Object.entries(FLAG_COLUMNS)) {
    const value = bool(source[key])
    if (value !== null) out[column] = value ? 1 : 0
  }
  if (typeof source.description === 'string') out.description = source.description
  const timeout = int(source.build_timeout)
  if (timeout !== null && timeout >= 600 && timeout <= 2_678_400) out.build_timeout = timeout
  if (typeof source.ci_config_path === 'string') out.ci_config_path = source.ci_config_path === '' ? null : source.ci_config_path
  if (bool(source.merge_requests_ff_only_enabled) === true) out.merge_method = 'ff'
  else if (bool(source.merge_requests_rebase_enabled) === true) out.merge_method = 'rebase_merge'
  else if (bool(source.merge_requests_rebase_enabled) === false || bool(source.merge_requests_ff_only_enabled) === false) out.merge_method = 'merge'
  if (source.merge_method === 'merge' || source.merge_method === 'rebase_merge' || source.merge_method === 'ff') out.merge_method = source.merge_method
  const level = int(source.visibility_level) ??
    (source.visibility === 'private' ? 0 : source.visibility === 'internal' ? 10 : source.visibility === 'public' ? 20 : null)
  if (level === 0 || level === 10 || level === 20) out.visibility_level = level
  return out as Updateable<ProjectsTable>
}

async function applyProjectAttributes(
  trx: Db, projectId: number, archive: Json, overrideParams: Record<string, unknown>, admin: boolean,
): Promise<void> {
  const feature = isRecord(archive.project_feature) ? archive.project_feature : {}
  const featureColumns: Record<string, unknown> = {}
  for (const [key, column] of Object.entries(FEATURE_COLUMNS)) {
    const level = int(feature[key])
    if (level !== null) featureColumns[column] = level > 0 ? 1 : 0
  }
  const project = await trx.selectFrom('projects').innerJoin('namespaces', 'namespaces.id', 'projects.namespace_id')
    .select(['projects.visibility_level', 'namespaces.kind', 'namespaces.visibility_level as namespace_visibility'])
    .where('projects.id', '=', projectId).executeTakeFirstOrThrow()
  const columns = { ...projectColumns(archive), ...featureColumns, ...projectColumns(overrideParams) } as Updateable<ProjectsTable>
  let level = Number(columns.visibility_level ?? project.visibility_level)
  // Not more visible than the group holding it; restricted levels only for administrators.
  if (project.kind === 'group') level = Math.min(level, project.namespace_visibility)
  if (!admin) {
    const restricted = (await getApplicationSettings(trx)).restricted_visibility_levels
    while (level > 0 && restricted.includes(visibilityName(level))) level -= 10
  }
  columns.visibility_level = level as 0 | 10 | 20
  await trx.updateTable('projects').set({ ...columns, updated_at: Date.now() }).where('id', '=', projectId).execute()
}

// ---- fork merge requests ---------------------------------------------------------------------

/**
 * 11.5's MergeRequestParser: a merge request from a fork becomes one from this project, its source
 * branch created at its head commit (and its target branch at its base) when the repository,
 * restored from the bundle before the tree, has that commit and no such branch.
 */
async function createForkBranches(ctx: AppContext, projectId: number, branches: RestoreState['forkBranches']): Promise<number> {
  if (branches.length === 0) return 0
  let repository
  try {
    repository = ctx.repositories.open(projectId)
    if (await repository.isEmpty()) return 0
  } catch {
    return 0
  }
  let made = 0
  const create = async (branch: string, sha: string | null) => {
    if (sha === null || !isValidRefName(`refs/heads/${branch}`)) return
    if (await repository.resolveCommit(sha) !== sha) return
    if (await repository.compareAndSwapRef(`refs/heads/${branch}`, sha, NULL_OID)) made += 1
  }
  for (const fork of branches) {
    await create(fork.branch, fork.sha)
    if (fork.target !== '') await create(fork.target, fork.base)
  }
  return made
}

// ---- discarding ------------------------------------------------------------------------------

/**
 * Deletes every row a restore of the tree writes into the project (its relations, every project
 * membership but its creator's, its number sequences), so that a retry
 * starts clean; the project row itself stays. Called by restoreProjectTree when it fails; the
 * caller may call it too.
 */
export async function discardRestoredTree(ctx: AppContext, projectId: number): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const project = await trx.selectFrom('projects').select(['creator_id']).where('id', '=', projectId).executeTakeFirst()
    if (project === undefined) return
    const issues = trx.selectFrom('issues').select('id').where('project_id', '=', projectId)
    const mergeRequests = trx.selectFrom('merge_requests').select('id').where('target_project_id', '=', projectId)
    const snippets = trx.selectFrom('snippets').select('id').where('project_id', '=', projectId)
    const notes = trx.selectFrom('notes').select('id').where('project_id', '=', projectId)
    await trx.deleteFrom('award_emoji').where((eb) => eb.or([
      eb.and([eb('awardable_type', '=', 'Issue'), eb('awardable_id', 'in', issues)]),
      eb.and([eb('awardable_type', '=', 'MergeRequest'), eb('awardable_id', 'in', mergeRequests)]),
      eb.and([eb('awardable_type', '=', 'Snippet'), eb('awardable_id', 'in', snippets)]),
      eb.and([eb('awardable_type', '=', 'Note'), eb('awardable_id', 'in', notes)]),
    ])).execute()
    await trx.deleteFrom('label_links').where((eb) => eb.or([
      eb.and([eb('target_type', '=', 'Issue'), eb('target_id', 'in', issues)]),
      eb.and([eb('target_type', '=', 'MergeRequest'), eb('target_id', 'in', mergeRequests)]),
    ])).execute()
    await trx.deleteFrom('notes').where('project_id', '=', projectId).execute()
    await trx.deleteFrom('events').where('project_id', '=', projectId).execute()
    await trx.deleteFrom('issue_assignees').where('issue_id', 'in', issues).execute()
    await trx.deleteFrom('issues').where('project_id', '=', projectId).execute()
    await trx.deleteFrom('merge_requests').where('target_project_id', '=', projectId).execute()
    await trx.deleteFrom('snippets').where('project_id', '=', projectId).execute()
    await trx.deleteFrom('releases').where('project_id', '=', projectId).execute()
    await trx.deleteFrom('ci_builds').where('project_id', '=', projectId).execute()
    await trx.deleteFrom('ci_pipelines').where('project_id', '=', projectId).execute()
    await trx.deleteFrom('ci_triggers').where('project_id', '=', projectId).execute()
    await trx.deleteFrom('ci_pipeline_schedules').where('project_id', '=', projectId).execute()
    await trx.deleteFrom('integrations').where('project_id', '=', projectId).execute()
    await trx.deleteFrom('web_hooks').where('project_id', '=', projectId).execute()
    await trx.deleteFrom('protected_branches').where('project_id', '=', projectId).execute()
    await trx.deleteFrom('protected_tags').where('project_id', '=', projectId).execute()
    await trx.deleteFrom('badges').where('project_id', '=', projectId).execute()
    await trx.deleteFrom('custom_attributes').where('subject_type', '=', 'project').where('subject_id', '=', projectId).execute()
    await trx.deleteFrom('labels').where('project_id', '=', projectId).execute()
    await trx.deleteFrom('milestones').where('project_id', '=', projectId).execute()
    await trx.deleteFrom('members').where('source_type', '=', 'project').where('source_id', '=', projectId)
      .where('user_id', '!=', project.creator_id).execute()
    await trx.deleteFrom('internal_ids').where('owner_type', '=', 'project').where('owner_id', '=', projectId).execute()
  })
}
