// Project export (POST/GET /projects/:id/export, GET …/export/download), as the original 11.5's
// ProjectExportWorker with its after-export strategies: a request claims the project's export row
// and enqueues one job; the job builds the archive (export-archive.ts) into blob storage, then either
// keeps it for download 24 hours and emails its user the link, or (upload[url]) sends it as the raw
// body of a PUT or POST through the outbound client and deletes it. A failure is kept in the row
// and emailed. One export runs per project at a time; an hourly job removes expired archives.
import fsp from 'node:fs/promises'
import path from 'node:path'
import type { AppContext } from '../../context.js'
import { validationFailed } from '../../common/errors.js'
import type { ProjectExportRow } from '../../db/schema.js'
import type { ExportStatus } from '../../entities/project-export.js'
import type { RunningJob } from '../../jobs/kind.js'
import type { MailMessage } from '../mail/mailer.js'
import { DELIVER_NOTIFICATION } from '../notifications/jobs.js'
import { findNotificationSetting, notificationEmailOf } from '../notifications/settings.js'
import { OutboundError, uploadStream } from '../outbound/outbound-http.js'
import { buildExportArchive, exportBlobKey, exportsTmpRoot } from './export-archive.js'
import { EXPORT_PROJECT } from './jobs.js'

/** How long a finished archive is kept (the original's ImportExportCleanUpService: 1440 minutes). */
export const EXPORT_TTL_MS = 24 * 60 * 60 * 1000
/** The export job's time limit: bundling a large repository and writing its tree, then an upload. */
export const EXPORT_TIME_LIMIT_MS = 6 * 60 * 60 * 1000
/** A row still `started` this long after its last change belongs to a job that died: a new export may start. */
const STALE_EXPORT_MS = EXPORT_TIME_LIMIT_MS + 10 * 60 * 1000
/** How long one upload of an archive may take. */
const UPLOAD_TIME_LIMIT_MS = 60 * 60 * 1000

export type UploadMethod = 'PUT' | 'POST'

export interface ExportPayload {
  projectId: number
  userId: number
  /** Replaces the project's description in project.json. */
  description: string | null
  /**
   * Where the archive is sent once built, instead of being kept for download. The URL is sealed
   * while the job waits: an upload URL often carries its own credentials (a presigned signature).
   */
  upload: { sealedUrl: string; method: UploadMethod } | null
}

/** The export's upload as the request gave it (exportUploadOf). */
export type ExportUpload = { url: string; method: UploadMethod }

const RUNNING: ProjectExportRow['status'][] = ['started', 'after_export_action']

/**
 * The request's `upload` as the original's WebUploadStrategy validates it (400 otherwise): none
 * without a URL; PUT (the default) or POST in any case; an http or https URL, in its UrlValidator's
 * words. Whether Ingot may send to its address is checked when the upload is made.
 */
export function exportUploadOf(upload: { url?: string | undefined; http_method?: string | undefined } | undefined): ExportUpload | null {
  if (upload?.url === undefined || upload.url.trim() === '') return null
  const method = (upload.http_method ?? 'PUT').toUpperCase()
  if (method !== 'PUT' && method !== 'POST') throw validationFailed({ http_method: ['invalid. Only PUT and POST methods allowed.'] })
  let url: URL
  try {
    url = new URL(upload.url.trim())
  } catch {
    throw validationFailed({ url: ['is blocked: URI is invalid'] })
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw validationFailed({ url: ['is blocked: Only allowed protocols are http, https'] })
  return { url: upload.url.trim(), method }
}

/**
 * Starts an export of the project unless one is running (then nothing starts: the request is
 * answered as accepted all the same). The claim is one conditional upsert of the project's row, so
 * two requests at once start one job.
 */
export async function requestExport(
  ctx: AppContext, request: Omit<ExportPayload, 'upload'> & { upload: ExportUpload | null },
): Promise<boolean> {
  const { upload, ...rest } = request
  const payload: ExportPayload = {
    ...rest, upload: upload === null ? null : { sealedUrl: ctx.secrets.seal('import_export.upload_url', upload.url), method: upload.method },
  }
  const now = Date.now()
  const claimed = await ctx.db.insertInto('project_exports')
    .values({ project_id: payload.projectId, status: 'started', user_id: payload.userId, error: null, created_at: now, updated_at: now })
    .onConflict((oc) => oc.column('project_id')
      .doUpdateSet({ status: 'started', user_id: payload.userId, error: null, updated_at: now })
      .where((eb) => eb.or([
        eb('project_exports.status', 'not in', RUNNING),
        eb('project_exports.updated_at', '<', now - STALE_EXPORT_MS),
      ])))
    .returning('project_id')
    .executeTakeFirst()
  if (claimed === undefined) return false
  await ctx.jobs.enqueue(EXPORT_PROJECT, payload, { uniqueKey: `project:${payload.projectId}` })
  return true
}

/** Whether the row's archive is still downloadable at `now`. */
function archiveLive(row: ProjectExportRow, now: number): boolean {
  return row.blob_key !== null && row.finished_at !== null && row.finished_at > now - EXPORT_TTL_MS
}

export async function findExport(ctx: Pick<AppContext, 'db'>, projectId: number): Promise<ProjectExportRow | null> {
  return (await ctx.db.selectFrom('project_exports').selectAll().where('project_id', '=', projectId).executeTakeFirst()) ?? null
}

/** The original's export_status: a running export first, then a kept archive, else none. */
export function exportStatusOf(row: ProjectExportRow | null, now = Date.now()): ExportStatus {
  if (row === null) return 'none'
  if ((row.status === 'started' || row.status === 'after_export_action') && row.updated_at > now - STALE_EXPORT_MS) return row.status
  return archiveLive(row, now) ? 'finished' : 'none'
}

export interface ExportDownload {
  fileName: string
  size: number
  stream: NodeJS.ReadableStream
}

/** The kept archive of the project, or null when there is none or it has expired. */
export async function openExportDownload(ctx: AppContext, projectId: number): Promise<ExportDownload | null> {
  const row = await findExport(ctx, projectId)
  if (row === null || !archiveLive(row, Date.now())) return null
  const stat = await ctx.blobs.stat(row.blob_key!)
  const stream = stat === null ? null : await ctx.blobs.get(row.blob_key!)
  if (stat === null || stream === null) return null
  return { fileName: row.file_name ?? 'export.tar.gz', size: stat.size, stream }
}

/**
 * The original's archive name: `<%Y-%m-%d_%H-%M-%3N>_<full path, / as _>`, cut to 51 characters,
 * then `_export.tar.gz` (%3N are milliseconds; there are no seconds).
 */
export function exportFileName(fullPath: string, at: Date): string {
  const two = (n: number) => String(n).padStart(2, '0')
  const stamp = `${at.getUTCFullYear()}-${two(at.getUTCMonth() + 1)}-${two(at.getUTCDate())}_${two(at.getUTCHours())}-${two(at.getUTCMinutes())}-${String(at.getUTCMilliseconds()).padStart(3, '0')}`
  return `${Array.from(`${stamp}_${fullPath.replaceAll('/', '_')}`).slice(0, 51).join('')}_export.tar.gz`
}

interface ExportedProject {
  name: string
  fullPath: string
}

async function exportedProject(ctx: AppContext, projectId: number): Promise<ExportedProject | null> {
  const row = await ctx.db.selectFrom('projects').innerJoin('namespaces', 'namespaces.id', 'projects.namespace_id')
    .select(['projects.name', 'projects.path', 'namespaces.full_path']).where('projects.id', '=', projectId).executeTakeFirst()
  return row === undefined ? null : { name: row.name, fullPath: `${row.full_path}/${row.path}` }
}

/** An upload that was refused or answered with an error, in the original's words. */
class UploadError extends Error {}

/** The job: builds the archive, then keeps it for download or uploads it; failures are kept and emailed. */
export async function runExport(ctx: AppContext, payload: ExportPayload, job: RunningJob): Promise<void> {
  const { projectId } = payload
  const project = await exportedProject(ctx, projectId)
  if (project === null) return
  const key = exportBlobKey(projectId)
  let built = false
  try {
    await buildExportArchive(ctx, projectId, key, { description: payload.description ?? undefined, signal: job.signal })
    built = true
    if (payload.upload !== null) {
      await setStatus(ctx, projectId, 'after_export_action')
      try {
        await uploadArchive(ctx, key, { url: ctx.secrets.open('import_export.upload_url', payload.upload.sealedUrl), method: payload.upload.method }, job.signal)
      } finally {
        await ctx.blobs.delete(key)
        built = false
      }
      // Sent and deleted, as the original's WebUploadStrategy leaves it: nothing to download.
      await replaceArchive(ctx, projectId, null)
    } else {
      await replaceArchive(ctx, projectId, { key, fileName: exportFileName(project.fullPath, new Date()) })
      await mailUser(ctx, payload.userId, (email) => exportedEmail(ctx, project, projectId, email))
    }
  } catch (err) {
    if (built) await ctx.blobs.delete(key).catch(() => {})
    const message = err instanceof UploadError ? err.message : 'The project could not be exported'
    if (!(err instanceof UploadError)) job.log.error({ err, projectId }, 'project export failed')
    await ctx.db.updateTable('project_exports').set({ status: 'failed', error: message, updated_at: Date.now() })
      .where('project_id', '=', projectId).execute()
    await mailUser(ctx, payload.userId, (email) => exportErrorEmail(project, [message], email))
  }
}

async function setStatus(ctx: AppContext, projectId: number, status: ProjectExportRow['status']): Promise<void> {
  await ctx.db.updateTable('project_exports').set({ status, updated_at: Date.now() }).where('project_id', '=', projectId).execute()
}

/** Records the export's end: the new archive (or none, after an upload) replaces the one kept before, which is deleted. */
async function replaceArchive(ctx: AppContext, projectId: number, archive: { key: string; fileName: string } | null): Promise<void> {
  const now = Date.now()
  const before = await findExport(ctx, projectId)
  if (archive === null) {
    await ctx.db.deleteFrom('project_exports').where('project_id', '=', projectId).execute()
  } else {
    const updated = await ctx.db.updateTable('project_exports')
      .set({ status: 'finished', blob_key: archive.key, file_name: archive.fileName, finished_at: now, error: null, updated_at: now })
      .where('project_id', '=', projectId).executeTakeFirst()
    // The project was deleted meanwhile (its row with it): nothing may keep the archive.
    if (updated.numUpdatedRows === 0n) await ctx.blobs.delete(archive.key)
  }
  if (before?.blob_key != null && before.blob_key !== archive?.key) await ctx.blobs.delete(before.blob_key)
}

/** Sends the archive as the raw body of the request; an error answer or a refusal is an UploadError. */
async function uploadArchive(ctx: AppContext, key: string, upload: ExportUpload, signal: AbortSignal): Promise<void> {
  const stat = await ctx.blobs.stat(key)
  const body = await ctx.blobs.get(key)
  if (stat === null || body === null) throw new Error('the export archive vanished before its upload')
  let response
  try {
    response = await uploadStream(ctx, {
      url: upload.url, method: upload.method, body, size: stat.size, contentType: 'application/gzip', timeoutMs: UPLOAD_TIME_LIMIT_MS, signal,
    })
  } catch (err) {
    if (err instanceof OutboundError) throw new UploadError(`Error uploading the project. ${err.message}`)
    throw err
  }
  if (response.status >= 200 && response.status < 300) return
  // An S3-compatible store explains itself in XML: <Error><Code>…</Code><Message>…</Message></Error>.
  const code = xmlErrorField(response.body, 'Code') ?? String(response.status)
  const message = xmlErrorField(response.body, 'Message') ?? response.statusText
  throw new UploadError(`Error uploading the project. Code ${code}: ${message}`)
}

function xmlErrorField(body: string, field: 'Code' | 'Message'): string | null {
  const error = /<Error>([\s\S]*?)<\/Error>/.exec(body)?.[1]
  const value = error === undefined ? undefined : new RegExp(`<${field}>([\\s\\S]*?)</${field}>`).exec(error)?.[1]
  if (value === undefined) return null
  return value.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&').trim()
}

// ---- email --------------------------------------------------------------------------------------

async function mailUser(ctx: AppContext, userId: number, compose: (email: string) => MailMessage): Promise<void> {
  const user = await ctx.db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst()
  if (user === undefined || user.state !== 'active') return
  const global = await findNotificationSetting(ctx.db, userId, { type: 'global' })
  await ctx.jobs.enqueue(DELIVER_NOTIFICATION, compose(notificationEmailOf(user, global)))
}

const AUTOMATIC = { 'Auto-Submitted': 'auto-generated', 'X-Auto-Response-Suppress': 'All' }

/** Emails::Projects#project_was_exported_email. */
function exportedEmail(ctx: AppContext, project: ExportedProject, projectId: number, to: string): MailMessage {
  const webLink = `${ctx.config.externalUrl}/${project.fullPath}/download_export`
  const apiLink = `${ctx.config.externalUrl}/api/v4/projects/${projectId}/export/download`
  return {
    to,
    subject: `${project.name} | Project was exported`,
    text: [
      `Project ${project.name} was exported successfully.`,
      '',
      'The project export can be downloaded from:',
      webLink,
      '',
      `or through the API: ${apiLink}`,
      '',
      'The download link will expire in 24 hours.',
      '',
    ].join('\n'),
    headers: { 'X-Service-Project': project.name, 'X-Service-Project-Path': project.fullPath, ...AUTOMATIC },
  }
}

/** Emails::Projects#project_was_not_exported_email. */
function exportErrorEmail(project: ExportedProject, errors: string[], to: string): MailMessage {
  return {
    to,
    subject: `${project.name} | Project export error`,
    text: [
      `Project ${project.name} couldn't be exported.`,
      '',
      'The errors we encountered were:',
      '',
      ...errors.map((error) => `  - ${error}`),
      '',
    ].join('\n'),
    headers: { 'X-Service-Project': project.name, 'X-Service-Project-Path': project.fullPath, ...AUTOMATIC },
  }
}

// ---- expiry -------------------------------------------------------------------------------------

/**
 * The hourly clean-up: archives kept past 24 hours are deleted (their row with them, unless a new
 * export of the project runs), and so are failed exports' rows and build directories left by
 * processes that died.
 */
export async function expireExports(ctx: AppContext, now = Date.now()): Promise<number> {
  const cutoff = now - EXPORT_TTL_MS
  const expired = await ctx.db.selectFrom('project_exports').selectAll()
    .where((eb) => eb.or([
      eb.and([eb('blob_key', 'is not', null), eb('finished_at', '<=', cutoff)]),
      eb.and([eb('status', 'in', ['failed', 'finished']), eb('blob_key', 'is', null), eb('updated_at', '<=', cutoff)]),
    ]))
    .limit(1000).execute()
  for (const row of expired) {
    if (row.blob_key !== null) await ctx.blobs.delete(row.blob_key)
    if (RUNNING.includes(row.status)) {
      await ctx.db.updateTable('project_exports').set({ blob_key: null, file_name: null, finished_at: null })
        .where('project_id', '=', row.project_id).where('blob_key', '=', row.blob_key).execute()
    } else {
      await ctx.db.deleteFrom('project_exports').where('project_id', '=', row.project_id)
        .where('updated_at', '=', row.updated_at).execute()
    }
  }
  await sweepBuildDirectories(ctx, now - STALE_EXPORT_MS)
  return expired.length
}

/** Build directories older than any export still running (a process died while it built). */
async function sweepBuildDirectories(ctx: AppContext, before: number): Promise<void> {
  const root = exportsTmpRoot(ctx.config.dataDir)
  for (const entry of await fsp.readdir(root, { withFileTypes: true }).catch(() => [])) {
    const dir = path.join(root, entry.name)
    const stat = await fsp.stat(dir).catch(() => null)
    if (stat !== null && stat.mtimeMs < before) await fsp.rm(dir, { recursive: true, force: true })
  }
}
