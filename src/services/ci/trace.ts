// A job's trace (its log). While the job runs, the runner appends to it (PATCH /jobs/:id/trace) and
// it lives in the database in chunks, so every web process reads the same trace and an append is
// one transaction under the job's row. Each append inserts its own chunks at their byte offsets
// (never rewriting earlier ones: a PATCH costs what it sends, however long the trace). Once the job has ended, a job
// (ci.archive_trace) extracts its coverage and moves the trace into blob storage as the job's
// artifact of type `trace` (the original's Ci::BuildTraceChunk and archive!). Readers take it from
// either place, and a reader that started on the chunks carries on from the archive when the
// chunks go meanwhile.
import { Readable } from 'node:stream'
import readline from 'node:readline'
import { sql } from 'kysely'
import type { AppContext } from '../../context.js'
import type { Db } from '../../db/index.js'
import { isPostgres } from '../../db/dialect.js'
import type { CiJobArtifactRow, CiStatus } from '../../db/schema.js'
import { safeRegExpLastMatch } from './config/safe-regexp.js'
import { artifactBlobKey, enqueueArtifactsStatisticsRefresh } from './artifacts.js'
import { setJobCoverage } from './transitions.js'

/** The most bytes one chunk holds: an append or a replacement is split into chunks this long. */
export const TRACE_CHUNK_SIZE = 128 * 1024
/**
 * Bytes one query of a reader takes: a reader holds at most this much. Small, because PostgreSQL
 * sends bytea as hex text: each piece passes through the driver as a string twice its size, and
 * strings past 128 KiB live where only a full collection frees them (whole chunks at a time made a
 * 50 MB read grow the server by 40 MB of such garbage).
 */
const READ_PIECE_BYTES = 32 * 1024
/** Statuses of a job that has ended: its trace is complete and may be archived. */
export const ENDED_STATUSES: readonly CiStatus[] = ['success', 'failed', 'canceled']

export type AppendOutcome =
  | { appended: true; size: number }
  /** The append did not start at the trace's end: the runner resends from `size`. */
  | { appended: false; size: number }
  /** The job is no longer running (it ended meanwhile). */
  | { notRunning: CiStatus }

/** The size of the trace in chunks: where its last chunk ends. */
async function chunkedSize(db: Db, jobId: number): Promise<number> {
  const last = await db.selectFrom('ci_build_trace_chunks').select(['start_offset', 'size'])
    .where('build_id', '=', jobId).orderBy('start_offset', 'desc').limit(1).executeTakeFirst()
  return last === undefined ? 0 : Number(last.start_offset) + last.size
}

/** Writes `data` as new chunks from byte `start` on, the end of the chunked trace. */
async function writeChunks(trx: Db, jobId: number, start: number, data: Buffer): Promise<void> {
  for (let offset = 0; offset < data.length; offset += TRACE_CHUNK_SIZE) {
    const piece = data.subarray(offset, offset + TRACE_CHUNK_SIZE)
    await trx.insertInto('ci_build_trace_chunks')
      .values({ build_id: jobId, start_offset: start + offset, size: piece.length, data: piece }).execute()
  }
}

/**
 * Appends `data` to the running job's trace when `start` is the trace's size (the original's
 * Content-Range check), and touches the job's updated_at (the stale-job sweep reads it). The job's
 * row is written first in the transaction, so concurrent appends to one job run one after the other.
 */
export async function appendTrace(ctx: AppContext, jobId: number, start: number, data: Buffer): Promise<AppendOutcome> {
  return ctx.db.transaction().execute(async (trx): Promise<AppendOutcome> => {
    // An append's commit does not wait for PostgreSQL's disk flush: runners append every few
    // seconds each, and with many at once the flushes' stalls made the slowest appends (p99) ten
    // times the usual. A crash of the database can then lose the last appends of a live trace,
    // which the runner sends again: its next PATCH gets 416 with the trace's size, and its final
    // PUT carries the whole trace. (The original keeps live traces in Redis, no more durable.)
    if (isPostgres(ctx.db)) await sql`set local synchronous_commit = off`.execute(trx)
    const touched = await trx.updateTable('ci_builds').set({ updated_at: Date.now() })
      .where('id', '=', jobId).where('status', '=', 'running').executeTakeFirst()
    if (Number(touched.numUpdatedRows) === 0) {
      const job = await trx.selectFrom('ci_builds').select('status').where('id', '=', jobId).executeTakeFirstOrThrow()
      return { notRunning: job.status }
    }
    const size = await chunkedSize(trx, jobId)
    if (start !== size) return { appended: false, size }
    await writeChunks(trx, jobId, size, data)
    return { appended: true, size: size + data.length }
  })
}

/**
 * Replaces the whole trace of a job that has not been archived (PUT /jobs/:id's `trace`: the runner
 * sends it when its appends kept failing). An archived trace is final and stays.
 */
export async function replaceTrace(ctx: AppContext, jobId: number, text: string | Buffer): Promise<void> {
  const data = Buffer.isBuffer(text) ? text : Buffer.from(text, 'utf8')
  await ctx.db.transaction().execute(async (trx) => {
    const touched = await trx.updateTable('ci_builds').set({ updated_at: Date.now() }).where('id', '=', jobId).executeTakeFirst()
    if (Number(touched.numUpdatedRows) === 0 || await traceArtifact(trx, jobId) !== null) return
    await trx.deleteFrom('ci_build_trace_chunks').where('build_id', '=', jobId).execute()
    await writeChunks(trx, jobId, 0, data)
  })
}

function traceArtifact(db: Db, jobId: number): Promise<CiJobArtifactRow | null> {
  return db.selectFrom('ci_job_artifacts').selectAll().where('job_id', '=', jobId).where('file_type', '=', 'trace')
    .executeTakeFirst().then((row) => row ?? null)
}

/** The trace's bytes as a stream, from the archive or the chunks; never held whole. */
export async function openTrace(ctx: Pick<AppContext, 'db' | 'blobs'>, jobId: number): Promise<Readable> {
  const archived = await traceArtifact(ctx.db, jobId)
  if (archived !== null) return (await ctx.blobs.get(archived.blob_key)) ?? Readable.from([])
  return chunksStream(ctx, jobId)
}

/** `length` bytes of a chunk's data from the trace's byte `offset` on, in either database's words. */
function dataPiece(db: Db, offset: number, length: number) {
  return isPostgres(db)
    ? sql<Buffer>`substring(data from (${offset}::bigint - start_offset + 1)::integer for ${length}::integer)`
    : sql<Buffer>`substr(data, ${offset} - start_offset + 1, ${length})`
}

/** The chunks a piece at a time, in order; when they vanish (archived meanwhile), the rest from the archive. */
function chunksStream(ctx: Pick<AppContext, 'db' | 'blobs'>, jobId: number): Readable {
  let sent = 0
  let archive: Readable | null = null
  return new Readable({
    read() {
      if (archive !== null) {
        archive.resume()
        return
      }
      void (async () => {
        // The piece of the chunk that holds byte `sent`; none when the trace ends there (or was
        // replaced by a shorter one meanwhile).
        const chunk = await ctx.db.selectFrom('ci_build_trace_chunks')
          .select(dataPiece(ctx.db, sent, READ_PIECE_BYTES).as('piece'))
          .where('build_id', '=', jobId).where('start_offset', '<=', sent)
          .orderBy('start_offset', 'desc').limit(1).executeTakeFirst()
        const piece = chunk?.piece ?? Buffer.alloc(0)
        if (piece.length > 0) {
          sent += piece.length
          this.push(piece)
          return
        }
        const archived = await traceArtifact(ctx.db, jobId)
        const rest = archived === null || sent >= archived.size ? null : await ctx.blobs.get(archived.blob_key, { start: sent })
        if (rest === null) {
          this.push(null)
          return
        }
        archive = rest
        rest.on('data', (data: Buffer) => { if (!this.push(data)) rest.pause() })
        rest.on('end', () => this.push(null))
        rest.on('error', (err) => this.destroy(err))
      })().catch((err: unknown) => this.destroy(err as Error))
    },
  })
}

/**
 * The original's coverage scan: the trace's lines from the end, the first one the pattern matches
 * (its last match, the last group of it) holding a number; that number. Read forward here, keeping
 * the latest such line, which comes to the same without reading the trace backwards.
 */
export async function extractCoverage(trace: Readable, pattern: string): Promise<number | null> {
  let coverage: number | null = null
  for await (const line of readline.createInterface({ input: trace, crlfDelay: Infinity })) {
    const match = safeRegExpLastMatch(pattern, line)
    const number = match === null ? null : /\d+(\.\d+)?/.exec(match)
    if (number !== null) coverage = Number(number[0])
  }
  return coverage
}

/**
 * Archives the trace of a job that has ended: its coverage first (as the original's
 * BuildCoverageWorker, for every ended job with a `coverage` pattern), then the chunks into blob
 * storage as the job's `trace` artifact, and the chunks deleted with the artifact's row written.
 * Nothing for a job still running, one without a trace, or one already archived.
 */
export async function archiveTrace(ctx: AppContext, jobId: number): Promise<void> {
  const job = await ctx.db.selectFrom('ci_builds').select(['id', 'project_id', 'status', 'coverage_regex']).where('id', '=', jobId).executeTakeFirst()
  if (job === undefined || !ENDED_STATUSES.includes(job.status)) return
  if (await traceArtifact(ctx.db, jobId) !== null) {
    await ctx.db.deleteFrom('ci_build_trace_chunks').where('build_id', '=', jobId).execute()
    return
  }
  const size = await chunkedSize(ctx.db, jobId)
  if (size === 0) return
  if (job.coverage_regex !== null) {
    const coverage = await extractCoverage(chunksStream(ctx, jobId), job.coverage_regex)
    if (coverage !== null) await setJobCoverage(ctx, jobId, coverage)
  }
  const key = artifactBlobKey(job.project_id, jobId, 'trace')
  const stored = await ctx.blobs.put(key, chunksStream(ctx, jobId))
  const kept = await ctx.db.transaction().execute(async (trx) => {
    // The job's row first: an append or erase racing the archive waits, or has already run.
    await trx.updateTable('ci_builds').set({ updated_at: Date.now() }).where('id', '=', jobId).execute()
    if (await traceArtifact(trx, jobId) !== null || await chunkedSize(trx, jobId) !== stored.size) return false
    await trx.insertInto('ci_job_artifacts').values({
      job_id: jobId, project_id: job.project_id, file_type: 'trace', file_format: 'raw', size: stored.size,
      filename: 'job.log', blob_key: key, file_sha256: null, expire_at: null, created_at: Date.now(),
    }).execute()
    await trx.deleteFrom('ci_build_trace_chunks').where('build_id', '=', jobId).execute()
    return true
  })
  if (!kept) {
    await ctx.blobs.delete(key)
    return
  }
  await enqueueArtifactsStatisticsRefresh(ctx, job.project_id)
}

/** Finished jobs whose trace is still in chunks (their archive job was lost): at most `limit`. */
export async function unarchivedTraceJobIds(db: Db, endedBefore: number, limit: number): Promise<number[]> {
  const rows = await db.selectFrom('ci_build_trace_chunks')
    .innerJoin('ci_builds', 'ci_builds.id', 'ci_build_trace_chunks.build_id')
    .select('ci_builds.id').where('ci_build_trace_chunks.start_offset', '=', 0)
    .where('ci_builds.status', 'in', ENDED_STATUSES).where('ci_builds.finished_at', '<', endedBefore)
    .orderBy('ci_builds.id').limit(limit).execute()
  return rows.map((row) => row.id)
}
