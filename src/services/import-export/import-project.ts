// Project import (POST /projects/import, GET /projects/:id/import; research §1.4–1.5): the request
// stores the archive as a blob, creates the project at once (import_status scheduled, an empty
// repository) and enqueues projects_import.import_project; the job extracts the archive into a
// directory of its own, checks VERSION, restores the repository and wiki from their bundles, the
// relation tree (restoreProjectTree), the uploads, the avatar and the LFS objects, then the
// bookkeeping a push would do (default branch, empty_repo, statistics) without a push's hooks or
// pipelines. A failure leaves the project with import_status failed and import_error, its
// repository, wiki, uploads and LFS links emptied. With `overwrite`, the import runs under a
// temporary path and, once finished, takes the path of the project it replaces, which is deleted in
// the same transaction.
import { randomBytes, randomUUID } from 'node:crypto'
import fsp from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import type { Actor } from '../../auth/actor.js'
import type { AppContext } from '../../context.js'
import type { NamespaceRow, ProjectRow } from '../../db/schema.js'
import { flag } from '../../db/values.js'
import { ApiError, forbidden } from '../../common/errors.js'
import { bundleHeadBranch, fetchBundle, InvalidBundleError } from '../../git/bundle.js'
import { BRANCH_PREFIX, isValidRefName } from '../../git/ref-names.js'
import { NO_PROJECT_ACCESS, projectAccessFor } from '../../finders/access.js'
import { canOnProject } from '../../policies/project-policy.js'
import { createProject, isUniqueViolation, type ProjectSettingsInput } from '../projects/create-project.js'
import { removeProjectFiles } from '../projects/delete-project.js'
import { refreshStatistics } from '../projects/refresh-statistics.js'
import { deleteNamespacesAndProjects } from '../namespaces/delete-contents.js'
import { projectSystemActivities } from '../hooks/system-payloads.js'
import { getApplicationSettings } from '../settings.js'
import { restoreLfsObjects, unlinkAllLfsObjects } from '../lfs/lfs-import-export.js'
import { UPLOAD_SECRET, projectUploadPath, removeProjectUploads, sanitizedUploadName } from '../uploads/attachments.js'
import { AVATAR_CONTENT_TYPES, uploadsRoot } from '../uploads/user-avatar.js'
import { restoreProjectTree } from './project-tree-restorer.js'
import { ImportArchiveError, checkVersion, extractImportArchive } from './import-archive.js'
import { IMPORT_PROJECT, type ImportProjectPayload } from './jobs.js'

export type ImportStatus = 'none' | 'scheduled' | 'started' | 'finished' | 'failed'

const MB = 1024 * 1024

/** How much an archive may hold once extracted, per byte it may have when uploaded. */
const EXTRACTED_PER_UPLOADED = 20
/** The extracted cap when uploads have no limit (max_import_size 0). */
const EXTRACTED_WITHOUT_LIMIT = 100 * 1024 * MB

/** The largest archive the instance takes, in bytes; null for no limit (max_import_size 0). */
export async function maxImportBytes(ctx: Pick<AppContext, 'db'>): Promise<number | null> {
  const megabytes = (await getApplicationSettings(ctx.db)).max_import_size
  return megabytes === 0 ? null : megabytes * MB
}

/** How many bytes an archive may hold once gunzipped. */
export function maxExtractedBytes(maxImport: number | null): number {
  return maxImport === null ? EXTRACTED_WITHOUT_LIMIT : maxImport * EXTRACTED_PER_UPLOADED
}

/** Where the import keeps an uploaded archive until its job is done. */
export function importArchiveKey(): string {
  return `imports/archives/${randomUUID()}.tar.gz`
}

/** Whether `service_project` (the original's `gitlab_project`) is among the enabled import sources. */
export async function projectImportEnabled(ctx: Pick<AppContext, 'db'>): Promise<boolean> {
  return (await getApplicationSettings(ctx.db)).import_sources.includes('service_project')
}

export interface ScheduleImportInput {
  namespace: NamespaceRow
  path: string
  name?: string | undefined
  overwrite: boolean
  /** The project settings of override_params that creation takes (visibility, description, flags). */
  settings: ProjectSettingsInput
  /** override_params as given, for the tree restorer. */
  overrideParams: Record<string, unknown>
  /** The stored archive (importArchiveKey), handed to the job; deleted by it. */
  archiveKey: string
}

/**
 * Creates the project the archive is imported into (its row now, import_status scheduled, an empty
 * repository) and enqueues the import. With `overwrite` and a project at that path, the new one
 * takes a temporary path until it is finished; the caller must be allowed to remove the old one.
 */
export async function scheduleProjectImport(ctx: AppContext, actor: Actor, input: ScheduleImportInput): Promise<ProjectRow> {
  const { db } = ctx
  const name = input.name ?? input.path
  const existing = await db.selectFrom('projects').selectAll()
    .where('namespace_id', '=', input.namespace.id).where('path_lower', '=', input.path.toLowerCase()).executeTakeFirst()
  let replaces: ProjectRow | null = null
  if (existing !== undefined && input.overwrite) {
    const access = (await projectAccessFor(db, actor.user.id, [existing.id])).get(existing.id) ?? NO_PROJECT_ACCESS
    if (!canOnProject(actor, { project: existing, namespace: input.namespace, access }, 'remove_project')) throw forbidden()
    replaces = existing
  }
  const suffix = replaces === null ? '' : `-import-${randomBytes(4).toString('hex')}`
  const project = await createProject(ctx, actor, {
    ...input.settings,
    name: `${name}${suffix}`,
    path: `${input.path}${suffix}`,
    namespace: input.namespace,
  })
  await db.updateTable('projects').set({ import_status: 'scheduled', import_error: null }).where('id', '=', project.id).execute()
  const payload: ImportProjectPayload = {
    projectId: project.id,
    importerId: actor.user.id,
    archiveKey: input.archiveKey,
    overrideParams: input.overrideParams,
    ...(replaces === null ? {} : { overwrite: { projectId: replaces.id, name, path: input.path } }),
  }
  await ctx.jobs.enqueue(IMPORT_PROJECT, payload)
  return { ...project, import_status: 'scheduled', import_error: null }
}

/**
 * The import's own directory under the data directory's tmp, named by its project so that an
 * attempt after a process died finds (and removes) what the first one left; removed when the job ends.
 */
function workDirectory(ctx: AppContext, projectId: number): string {
  return path.join(ctx.config.dataDir, 'tmp', 'imports', `project-${projectId}`)
}

async function freshWorkDirectory(ctx: AppContext, projectId: number): Promise<string> {
  const dir = workDirectory(ctx, projectId)
  await fsp.rm(dir, { recursive: true, force: true })
  await fsp.mkdir(dir, { recursive: true, mode: 0o700 })
  return dir
}

const exists = (file: string) => fsp.stat(file).then((stat) => stat.isFile(), () => false)

/** The message kept in import_error: what went wrong, without the server's paths or a stack. */
export function importErrorMessage(ctx: AppContext, err: unknown): string {
  if (err instanceof ImportArchiveError || err instanceof InvalidBundleError) return err.message
  if (err instanceof ApiError) {
    const message = err.body.message
    return typeof message === 'string' ? message : JSON.stringify(message)
  }
  const raw = err instanceof Error ? err.message : String(err)
  let message = (raw.split('\n')[0] ?? '').trim()
  for (const dir of [ctx.config.dataDir, os.tmpdir()]) message = message.replaceAll(dir, '…')
  // Any other absolute path (a file the server named) is cut to its last segment.
  message = message.replace(/(?:\/[^\s/'"`:]+){2,}/g, (found) => `…/${found.split('/').pop() ?? ''}`)
  if (message === '') message = 'The import failed'
  return message.length > 500 ? `${message.slice(0, 500)}…` : message
}

/** The project's avatars directory, relative to the uploads root (the avatar_path prefix). */
export function projectAvatarDir(projectId: number): string {
  return `-/system/project/avatar/${projectId}`
}

/** The archive's `uploads/<32-hex secret>/<file>` into the project's uploads, under the same secret and name. */
async function restoreUploads(ctx: AppContext, projectId: number, dir: string, files: readonly string[]): Promise<void> {
  for (const file of files) {
    const match = /^uploads\/([0-9a-f]{32})\/([^/]+)$/.exec(file)
    if (match === null || !UPLOAD_SECRET.test(match[1]!)) continue
    const target = projectUploadPath(ctx.config.dataDir, projectId, { secret: match[1]!, name: sanitizedUploadName(match[2]!) })
    if (target === null) continue
    await fsp.mkdir(path.dirname(target), { recursive: true })
    await fsp.copyFile(path.join(dir, ...file.split('/')), target)
  }
}

/** The first image under `avatar/` becomes the project's avatar (the original takes any first file there). */
async function restoreAvatar(ctx: AppContext, projectId: number, dir: string, files: readonly string[]): Promise<void> {
  const avatar = files.filter((file) => file.startsWith('avatar/')).sort()[0]
  if (avatar === undefined) return
  const name = sanitizedUploadName(avatar.split('/').pop() ?? 'avatar')
  const extension = path.extname(name).slice(1).toLowerCase()
  if (!Object.hasOwn(AVATAR_CONTENT_TYPES, extension)) return
  const relative = `${projectAvatarDir(projectId)}/${name}`
  const target = path.join(uploadsRoot(ctx.config.dataDir), ...relative.split('/'))
  await fsp.mkdir(path.dirname(target), { recursive: true })
  await fsp.copyFile(path.join(dir, ...avatar.split('/')), target)
  await ctx.db.updateTable('projects').set({ avatar_path: relative }).where('id', '=', projectId).execute()
}

/** What a push would have recorded: the default branch (HEAD), whether the repository is empty, statistics. */
async function recordRestoredRepository(ctx: AppContext, projectId: number, headBranch: string | null): Promise<void> {
  const repo = ctx.repositories.open(projectId)
  const branches = await repo.refNames(BRANCH_PREFIX)
  const defaultBranch = headBranch !== null && isValidRefName(headBranch) && branches.includes(`${BRANCH_PREFIX}${headBranch}`)
    ? headBranch : (branches[0]?.slice(BRANCH_PREFIX.length) ?? null)
  if (defaultBranch !== null) await ctx.repositories.setHead(projectId, defaultBranch)
  const now = Date.now()
  await ctx.db.updateTable('projects').set({
    default_branch: defaultBranch, empty_repo: flag(branches.length === 0), last_activity_at: now, updated_at: now,
  }).where('id', '=', projectId).execute()
  await refreshStatistics(ctx, projectId)
}

/** The imported project takes the path (and name) of the one it replaces, which is deleted, in one transaction. */
async function replaceOverwrittenProject(ctx: AppContext, project: ProjectRow, overwrite: NonNullable<ImportProjectPayload['overwrite']>): Promise<void> {
  const { db } = ctx
  let events
  try {
    events = await db.transaction().execute(async (trx) => {
      const old = await trx.selectFrom('projects').select('id')
        .where('namespace_id', '=', project.namespace_id).where('path_lower', '=', overwrite.path.toLowerCase())
        .where('id', '!=', project.id).executeTakeFirst()
      const removed = old === undefined ? [] : await projectSystemActivities(trx, [old.id], 'destroy')
      if (old !== undefined) await deleteNamespacesAndProjects(trx, [], [old.id])
      await trx.updateTable('projects')
        .set({ name: overwrite.name, path: overwrite.path, path_lower: overwrite.path.toLowerCase(), updated_at: Date.now() })
        .where('id', '=', project.id).execute()
      return { removed, oldId: old?.id ?? null }
    })
  } catch (err) {
    if (isUniqueViolation(err)) throw new ImportArchiveError('Name has already been taken')
    throw err
  }
  if (events.oldId !== null) await removeProjectFiles(ctx, events.oldId)
  for (const event of events.removed) await ctx.activity.publish(event, ctx)
}

/** A failed import: the status and its error, the repository, wiki, uploads, avatar and LFS links gone (an empty repository left). */
async function failImport(ctx: AppContext, projectId: number, message: string): Promise<void> {
  const updated = await ctx.db.updateTable('projects')
    .set({ import_status: 'failed', import_error: message, default_branch: null, empty_repo: 1, avatar_path: null, updated_at: Date.now() })
    .where('id', '=', projectId).executeTakeFirst()
  await ctx.repositories.remove(projectId)
  await removeProjectUploads(ctx.config.dataDir, projectId)
  await unlinkAllLfsObjects(ctx.db, projectId)
  await fsp.rm(path.join(uploadsRoot(ctx.config.dataDir), ...projectAvatarDir(projectId).split('/')), { recursive: true, force: true })
  await fsp.rm(workDirectory(ctx, projectId), { recursive: true, force: true })
  // The project stays, as the original's does, and reads as an empty project (unless it was deleted meanwhile).
  if (Number(updated.numUpdatedRows) === 0) return
  await ctx.repositories.create(projectId)
  await refreshStatistics(ctx, projectId)
}

/** The job: the whole import of one archive into its project. */
export async function runProjectImport(ctx: AppContext, payload: ImportProjectPayload, attempt: number, signal: AbortSignal): Promise<void> {
  const { db } = ctx
  const project = await db.selectFrom('projects').selectAll().where('id', '=', payload.projectId).executeTakeFirst()
  try {
    if (project === undefined || (project.import_status !== 'scheduled' && project.import_status !== 'started')) return
    if (attempt > 1 || project.import_status === 'started') {
      // An earlier attempt's process died midway: what it left is cleared, and the import fails.
      await failImport(ctx, project.id, 'The import was interrupted; import the archive again')
      return
    }
    await db.updateTable('projects').set({ import_status: 'started' }).where('id', '=', project.id).execute()
    await importArchive(ctx, project, payload, signal)
  } finally {
    await ctx.blobs.delete(payload.archiveKey)
  }
}

async function importArchive(ctx: AppContext, project: ProjectRow, payload: ImportProjectPayload, signal: AbortSignal): Promise<void> {
  const work = await freshWorkDirectory(ctx, project.id)
  // How long each part took (milliseconds), in the finished import's log line.
  const took: Record<string, number> = {}
  let mark = performance.now()
  const lap = (part: string) => {
    const now = performance.now()
    took[part] = Math.round(now - mark)
    mark = now
  }
  try {
    const archive = await ctx.blobs.get(payload.archiveKey)
    if (archive === null) throw new ImportArchiveError('The import file is gone')
    const { files } = await extractImportArchive(archive, work, maxExtractedBytes(await maxImportBytes(ctx)), signal)
    const file = (name: string) => path.join(work, name)
    if (!files.includes('VERSION')) throw new ImportArchiveError('The file is invalid')
    await checkVersion(file('VERSION'))
    if (!files.includes('project.json')) throw new ImportArchiveError('The archive has no project.json')
    lap('extract')

    // git indexes the bundles' packs while the tree is restored: they share no data until the fork
    // branches and the bookkeeping, which come after both. The first part to fail stops the other,
    // and both have ended before the failure is handled.
    const parts = new AbortController()
    const stopParts = () => parts.abort(signal.reason)
    signal.addEventListener('abort', stopParts, { once: true })
    const part = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
      try {
        const value = await work()
        took[name] = Math.round(performance.now() - mark)
        return value
      } catch (err) {
        parts.abort(err)
        throw err
      }
    }
    const restoreBundles = async (): Promise<string | null> => {
      let head: string | null = null
      if (await exists(file('project.bundle'))) {
        head = bundleHeadBranch(await fetchBundle(ctx.repositories.repositoryPath(project.id), file('project.bundle'), parts.signal))
      }
      if (await exists(file('project.wiki.bundle'))) {
        await ctx.repositories.createWiki(project.id)
        // The wiki's HEAD stays on master, the only branch wikis use.
        await fetchBundle(ctx.repositories.wikiPath(project.id), file('project.wiki.bundle'), parts.signal)
      }
      return head
    }
    const [bundles] = await Promise.allSettled([
      part('bundles', restoreBundles),
      part('tree', () => restoreProjectTree(ctx, {
        projectId: project.id, importerId: payload.importerId, treePath: file('project.json'), overrideParams: payload.overrideParams, signal: parts.signal,
      })),
    ])
    signal.removeEventListener('abort', stopParts)
    // The first failure is the abort's reason: the other part's error only says it was stopped.
    if (parts.signal.aborted) throw parts.signal.reason
    const headBranch = (bundles as PromiseFulfilledResult<string | null>).value
    mark = performance.now()
    await restoreAvatar(ctx, project.id, work, files)
    await restoreUploads(ctx, project.id, work, files)
    lap('uploads')
    const lfsObjects = await restoreLfsObjects(ctx, project.id, work, files, signal)
    lap('lfs')
    await recordRestoredRepository(ctx, project.id, headBranch)
    lap('bookkeeping')
    if (payload.overwrite !== undefined) await replaceOverwrittenProject(ctx, project, payload.overwrite)
    const finished = await ctx.db.updateTable('projects').set({ import_status: 'finished', import_error: null }).where('id', '=', project.id).executeTakeFirst()
    // Deleted while it was imported: nothing of it may stay behind.
    if (Number(finished.numUpdatedRows) === 0) await removeProjectFiles(ctx, project.id)
    ctx.log.info({ project: project.id, ms: took, lfsObjects }, 'a project import finished')
  } catch (err) {
    ctx.log.warn({ err, project: project.id }, 'a project import failed')
    await failImport(ctx, project.id, importErrorMessage(ctx, err))
  } finally {
    await fsp.rm(work, { recursive: true, force: true })
  }
}
