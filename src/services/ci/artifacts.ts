// Artifacts of CI jobs (the original's Ci::JobArtifact): files a runner uploads for a running job,
// streamed into blob storage under a key of their project and job, counted against the instance's
// max_artifacts_size as they arrive, and recorded as one row per job and file type (a new upload
// of a type replaces the old one). A zip archive's central directory is read once, after upload,
// into ci_job_artifact_entries, so one file of it is served from its offset without a scan.
// Artifacts expire (expire_in, else the instance's default_artifacts_expire_in) unless kept.
import { createHash, randomBytes } from 'node:crypto'
import { PassThrough, Transform, pipeline, type Readable } from 'node:stream'
import type yauzl from 'yauzl'
import type { AppContext } from '../../context.js'
import type { Db } from '../../db/index.js'
import type { CiArtifactFileFormat, CiArtifactFileType, CiJobArtifactEntryRow, CiJobArtifactRow, CiStatus } from '../../db/schema.js'
import type { BlobStorage } from '../../storage/blob-storage.js'
import { getApplicationSettings } from '../settings.js'
import { enqueueStatisticsRefresh } from '../projects/refresh-statistics.js'
import { parseDuration } from './config/duration.js'
import { lazyRequire } from '../../common/lazy-require.js'

const zipReader = lazyRequire<typeof yauzl>('yauzl')

export const ARTIFACT_FILE_TYPES: readonly CiArtifactFileType[] = [
  'archive', 'metadata', 'trace', 'junit', 'codequality', 'sast', 'dependency_scanning', 'container_scanning', 'dast',
  'license_management', 'performance',
]
export const ARTIFACT_FILE_FORMATS: readonly CiArtifactFileFormat[] = ['zip', 'gzip', 'raw']

/** Where every blob of a project's jobs lives, so deleting the project removes them in one go. */
export function projectArtifactsPrefix(projectId: number): string {
  return `ci/projects/${projectId}/`
}

export function jobArtifactsPrefix(projectId: number, jobId: number): string {
  return `${projectArtifactsPrefix(projectId)}jobs/${jobId}/`
}

/** A fresh key for a job's file of a type: never one a reader of the previous file could be reading. */
export function artifactBlobKey(projectId: number, jobId: number, fileType: CiArtifactFileType): string {
  return `${jobArtifactsPrefix(projectId, jobId)}${fileType}-${randomBytes(8).toString('hex')}`
}

/** The statistics' job_artifacts_size follows artifacts; the refresh sums them. */
export function enqueueArtifactsStatisticsRefresh(ctx: Pick<AppContext, 'jobs'>, projectId: number): Promise<void> {
  return enqueueStatisticsRefresh(ctx, projectId)
}

export class ArtifactTooLargeError extends Error {
  constructor() {
    super('the artifact is larger than max_artifacts_size')
  }
}

/** The instance's max_artifacts_size (MB) in bytes. */
export async function maxArtifactsBytes(db: Db): Promise<number> {
  return (await getApplicationSettings(db)).max_artifacts_size * 1024 * 1024
}

/**
 * When artifacts given `expireIn` expire: the instance's default_artifacts_expire_in when not
 * given; null (kept) for a duration of 0 or one that does not read, as the original's
 * ChronicDuration gives nil for them.
 */
export async function artifactsExpireAt(db: Db, expireIn: string | null, now = Date.now()): Promise<number | null> {
  const text = expireIn ?? (await getApplicationSettings(db)).default_artifacts_expire_in
  const seconds = parseDuration(text)
  return seconds === null || seconds <= 0 ? null : now + Math.round(seconds * 1000)
}

/** Counts and hashes the bytes passing, failing with ArtifactTooLargeError past `maxBytes`. */
class MeteredUpload extends Transform {
  bytes = 0
  readonly hash = createHash('sha256')
  constructor(private readonly maxBytes: number) {
    super()
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: (err?: Error | null, data?: Buffer) => void): void {
    this.bytes += chunk.length
    if (this.bytes > this.maxBytes) return done(new ArtifactTooLargeError())
    this.hash.update(chunk)
    done(null, chunk)
  }
}

export interface ArtifactUpload {
  jobId: number
  projectId: number
  fileType: CiArtifactFileType
  fileFormat: CiArtifactFileFormat
  filename: string
  expireAt: number | null
  data: Readable
  maxBytes: number
}

export type StoreArtifactOutcome = { stored: CiJobArtifactRow } | { notRunning: CiStatus }

type NewEntry = Omit<CiJobArtifactEntryRow, 'artifact_id'>

const ENTRY_BATCH = 200

/**
 * Streams the upload into blob storage (ArtifactTooLargeError past maxBytes: nothing is kept),
 * indexes a zip archive, then records it for the job if the job is still running, replacing its
 * earlier file of the type and setting the job's artifacts_expire_at.
 */
export async function storeArtifact(ctx: AppContext, upload: ArtifactUpload): Promise<StoreArtifactOutcome> {
  const key = artifactBlobKey(upload.projectId, upload.jobId, upload.fileType)
  const metered = new MeteredUpload(upload.maxBytes)
  // Errors of either side end both; put() reports the one that ended the write.
  pipeline(upload.data, metered, () => {})
  const stored = await ctx.blobs.put(key, metered)
  let outcome: StoreArtifactOutcome & { replaced?: string[] }
  try {
    const entries = upload.fileType === 'archive' && upload.fileFormat === 'zip' ? await readZipEntries(ctx.blobs, key, stored.size) : []
    outcome = await ctx.db.transaction().execute(async (trx) => {
      const now = Date.now()
      const touched = await trx.updateTable('ci_builds').set({ updated_at: now, artifacts_expire_at: upload.expireAt })
        .where('id', '=', upload.jobId).where('status', '=', 'running').executeTakeFirst()
      if (Number(touched.numUpdatedRows) === 0) {
        const job = await trx.selectFrom('ci_builds').select('status').where('id', '=', upload.jobId).executeTakeFirstOrThrow()
        return { notRunning: job.status }
      }
      const replaced = await trx.deleteFrom('ci_job_artifacts').where('job_id', '=', upload.jobId).where('file_type', '=', upload.fileType)
        .returning('blob_key').execute()
      const artifact = await trx.insertInto('ci_job_artifacts').values({
        job_id: upload.jobId, project_id: upload.projectId, file_type: upload.fileType, file_format: upload.fileFormat,
        size: stored.size, filename: upload.filename, blob_key: key, file_sha256: metered.hash.digest('hex'),
        expire_at: upload.expireAt, created_at: now,
      }).returningAll().executeTakeFirstOrThrow()
      for (let i = 0; i < entries.length; i += ENTRY_BATCH) {
        await trx.insertInto('ci_job_artifact_entries')
          .values(entries.slice(i, i + ENTRY_BATCH).map((entry) => ({ ...entry, artifact_id: artifact.id }))).execute()
      }
      return { stored: artifact, replaced: replaced.map((row) => row.blob_key) }
    })
  } catch (err) {
    await ctx.blobs.delete(key)
    throw err
  }
  if ('notRunning' in outcome) {
    await ctx.blobs.delete(key)
    return outcome
  }
  for (const replacedKey of outcome.replaced ?? []) await ctx.blobs.delete(replacedKey)
  await enqueueArtifactsStatisticsRefresh(ctx, upload.projectId)
  return { stored: outcome.stored }
}

/** yauzl's reads of a zip in blob storage: each a ranged get (the class made once yauzl is loaded). */
let blobReaderClass: (new (blobs: BlobStorage, key: string) => yauzl.RandomAccessReader) | null = null

function blobReader(blobs: BlobStorage, key: string): yauzl.RandomAccessReader {
  blobReaderClass ??= class BlobReader extends zipReader().RandomAccessReader {
    constructor(private readonly blobs: BlobStorage, private readonly key: string) {
      super()
    }

    override _readStreamForRange(start: number, end: number): Readable {
      const through = new PassThrough()
      this.blobs.get(this.key, { start, end: end - 1 }).then(
        (stream) => {
          if (stream === null) through.destroy(new Error(`blob ${this.key} is gone`))
          else stream.on('error', (err) => through.destroy(err)).pipe(through)
        },
        (err: unknown) => through.destroy(err as Error),
      )
      return through
    }
  }
  return new blobReaderClass(blobs, key)
}

function openZip(blobs: BlobStorage, key: string, size: number, lazyEntries: boolean): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => {
    zipReader().fromRandomAccessReader(blobReader(blobs, key), size, { lazyEntries, autoClose: true, validateEntrySizes: true }, (err, zip) => {
      if (err !== null || zip === undefined) reject(err ?? new Error('no zip'))
      else resolve(zip)
    })
  })
}

/**
 * The files of a zip archive from its central directory; none when it is not a zip (kept all the
 * same: the original keeps an archive it cannot index, only without its files to browse).
 */
async function readZipEntries(blobs: BlobStorage, key: string, size: number): Promise<NewEntry[]> {
  let zip: yauzl.ZipFile
  try {
    zip = await openZip(blobs, key, size, true)
  } catch {
    return []
  }
  const entries = new Map<string, NewEntry>()
  return new Promise((resolve) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      // Directories are no files to serve; a name given twice is served as its last entry.
      if (!entry.fileName.endsWith('/')) {
        entries.set(entry.fileName, {
          path: entry.fileName, size: entry.uncompressedSize, compressed_size: entry.compressedSize,
          compression_method: entry.compressionMethod, flags: entry.generalPurposeBitFlag, crc32: entry.crc32,
          local_header_offset: entry.relativeOffsetOfLocalHeader, mode: (entry.externalFileAttributes >>> 16) & 0xffff,
        })
      }
      zip.readEntry()
    })
    zip.on('end', () => resolve([...entries.values()]))
    // A damaged central directory: what read before the damage is indexed.
    zip.on('error', () => resolve([...entries.values()]))
    zip.readEntry()
  })
}

/** One file of a zip archive artifact, its bytes decompressed as they are read; null when the archive has no such file. */
export async function openArtifactEntry(ctx: Pick<AppContext, 'db' | 'blobs'>, artifact: CiJobArtifactRow, path: string): Promise<{ size: number; stream: Readable } | null> {
  const row = await ctx.db.selectFrom('ci_job_artifact_entries').selectAll()
    .where('artifact_id', '=', artifact.id).where('path', '=', path).executeTakeFirst()
  // Encrypted entries cannot be served: there is no password to give.
  if (row === undefined || (row.flags & 1) === 1) return null
  const zip = await openZip(ctx.blobs, artifact.blob_key, artifact.size, true)
  const entry = Object.assign(new (zipReader().Entry)(), {
    fileName: row.path, compressedSize: row.compressed_size, uncompressedSize: row.size, compressionMethod: row.compression_method,
    generalPurposeBitFlag: row.flags, relativeOffsetOfLocalHeader: row.local_header_offset, crc32: row.crc32,
  })
  const stream = await new Promise<Readable>((resolve, reject) => {
    zip.openReadStream(entry, (err, opened) => (err !== null || opened === undefined ? reject(err ?? new Error('no stream')) : resolve(opened)))
  })
  return { size: row.size, stream }
}

/** Keeps the job's artifacts: no expiry on the job or its files (POST …/artifacts/keep). */
export async function keepArtifacts(db: Db, jobId: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.updateTable('ci_builds').set({ artifacts_expire_at: null, updated_at: Date.now() }).where('id', '=', jobId).execute()
    await trx.updateTable('ci_job_artifacts').set({ expire_at: null }).where('job_id', '=', jobId).execute()
  })
}

/** Removes artifact rows, then their blobs; the statistics of their projects follow. */
async function removeArtifacts(ctx: AppContext, rows: readonly Pick<CiJobArtifactRow, 'id' | 'blob_key' | 'project_id'>[]): Promise<void> {
  if (rows.length === 0) return
  await ctx.db.deleteFrom('ci_job_artifacts').where('id', 'in', rows.map((row) => row.id)).execute()
  for (const row of rows) await ctx.blobs.delete(row.blob_key)
  for (const projectId of new Set(rows.map((row) => row.project_id))) await enqueueArtifactsStatisticsRefresh(ctx, projectId)
}

/** Deletes one batch of expired artifacts (traces never expire); how many it deleted. */
export async function expireArtifacts(ctx: AppContext, batchSize: number, now = Date.now()): Promise<number> {
  const expired = await ctx.db.selectFrom('ci_job_artifacts').select(['id', 'blob_key', 'project_id'])
    .where('expire_at', '<', now).where('file_type', '!=', 'trace').orderBy('expire_at').limit(batchSize).execute()
  await removeArtifacts(ctx, expired)
  return expired.length
}

/** Statuses a job has once it is complete: only then may it be erased (the original's complete?). */
const COMPLETE_STATUSES: readonly CiStatus[] = ['success', 'failed', 'canceled', 'skipped']

export type EraseOutcome = { erased: true } | { refused: 'not_erasable' }

/**
 * Erases a complete job's trace and artifacts (the original's erase): the rows and chunks go, the
 * job keeps who erased it and when; refused for a job that is not complete or has nothing to erase.
 */
export async function eraseJob(ctx: AppContext, jobId: number, userId: number): Promise<EraseOutcome> {
  const erased = await ctx.db.transaction().execute(async (trx) => {
    const now = Date.now()
    const touched = await trx.updateTable('ci_builds').set({ updated_at: now })
      .where('id', '=', jobId).where('status', 'in', COMPLETE_STATUSES).executeTakeFirst()
    if (Number(touched.numUpdatedRows) === 0) return null
    const artifacts = await trx.deleteFrom('ci_job_artifacts').where('job_id', '=', jobId).returning(['id', 'blob_key', 'project_id']).execute()
    const chunks = await trx.deleteFrom('ci_build_trace_chunks').where('build_id', '=', jobId).executeTakeFirst()
    if (artifacts.length === 0 && Number(chunks.numDeletedRows) === 0) return null
    await trx.updateTable('ci_builds').set({ erased_at: now, erased_by_id: userId, artifacts_expire_at: null }).where('id', '=', jobId).execute()
    return artifacts
  })
  if (erased === null) return { refused: 'not_erasable' }
  for (const row of erased) await ctx.blobs.delete(row.blob_key)
  if (erased.length > 0) await enqueueArtifactsStatisticsRefresh(ctx, erased[0]!.project_id)
  return { erased: true }
}

/** Removes the blobs of jobs whose rows are gone (a pipeline deleted). */
export async function removeJobsBlobs(ctx: Pick<AppContext, 'blobs'>, jobs: readonly { id: number; project_id: number }[]): Promise<void> {
  for (const job of jobs) await ctx.blobs.deletePrefix(jobArtifactsPrefix(job.project_id, job.id))
}

/** Sums a project's artifact sizes for its statistics. */
export async function jobArtifactsSize(db: Db, projectId: number): Promise<number> {
  const { total } = await db.selectFrom('ci_job_artifacts').select((eb) => eb.fn.coalesce(eb.fn.sum<number>('size'), eb.lit(0)).as('total'))
    .where('project_id', '=', projectId).executeTakeFirstOrThrow()
  return Number(total)
}
