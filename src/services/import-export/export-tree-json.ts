// The pieces every part of the project.json writer shares: writing with backpressure, a JSON
// object written key by key, arrays of records written in pieces as they come, rows read in keyset
// batches, and the original's value forms (instants, booleans, children grouped by parent).
import type { Writable } from 'node:stream'
import { isoTime } from '../../db/values.js'
import { JsonText } from './export-tree-sql-json.js'

/** Rows read, and records written, per batch: each batch's children are loaded in one query per relation. */
export const BATCH_SIZE = 200

/** About how many characters are written to the stream at once. */
const WRITE_CHUNK = 32 * 1024

/**
 * Writes `text` to `out`, waiting for the stream to drain when its buffer is full; fails when the
 * stream errs or is closed meanwhile (an export whose archive went away stops).
 */
export async function write(out: Writable, text: string): Promise<void> {
  if (text === '') return
  if (out.destroyed) throw closed()
  if (out.write(text)) return
  await new Promise<void>((resolve, reject) => {
    const settle = (error: Error | null) => {
      out.off('drain', onDrain).off('close', onClose).off('error', onError)
      if (error === null) resolve()
      else reject(error)
    }
    const onDrain = () => settle(null)
    const onClose = () => settle(closed())
    const onError = (error: Error) => settle(error)
    out.on('drain', onDrain).on('close', onClose).on('error', onError)
  })
}

const closed = () => new Error('project.json: the stream it is written to was closed')

/** One JSON object written key by key to a stream: `{"a":…,"b":[…]}`. */
export class JsonObjectWriter {
  private keys = 0

  constructor(private readonly out: Writable, private readonly signal?: AbortSignal) {}

  async open(): Promise<void> {
    await write(this.out, '{')
  }

  async close(): Promise<void> {
    await write(this.out, '}')
  }

  /** A key whose value is small enough to serialize at once. */
  async value(key: string, value: unknown): Promise<void> {
    await write(this.out, `${this.separator()}${JSON.stringify(key)}:${JSON.stringify(value)}`)
  }

  /** A key whose value is an array of records (or their JSON, JsonText) produced batch by batch. */
  async array(key: string, batches: AsyncIterable<readonly unknown[]>): Promise<void> {
    await write(this.out, `${this.separator()}${JSON.stringify(key)}:[`)
    let first = true
    // Written in pieces of about WRITE_CHUNK characters: strings past V8's large-object size
    // would go straight to the old generation and stay until a full collection.
    let pending = ''
    for await (const records of batches) {
      this.signal?.throwIfAborted()
      for (const record of records) {
        // One item per line: the importer parses such lines without scanning them (restore-json-split.ts).
        pending += `${first ? '\n' : ',\n'}${record instanceof JsonText ? record.text : JSON.stringify(record)}`
        first = false
        if (pending.length >= WRITE_CHUNK) {
          await write(this.out, pending)
          pending = ''
        }
      }
    }
    await write(this.out, `${pending}${first ? '' : '\n'}]`)
  }

  private separator(): string {
    return this.keys++ === 0 ? '' : ','
  }
}

/** One batch of records, for relations small enough to read whole. */
export async function* oneBatch<T>(records: Promise<readonly T[]>): AsyncIterable<readonly T[]> {
  yield await records
}

/**
 * Rows read in keyset batches: `page(after)` returns up to BATCH_SIZE rows ordered by `keyOf`
 * after the given key (null: from the start).
 */
export async function* keysetBatches<T>(page: (after: number | null) => Promise<T[]>, keyOf: (row: T) => number): AsyncIterable<T[]> {
  let after: number | null = null
  for (;;) {
    const rows = await page(after)
    if (rows.length === 0) return
    yield rows
    if (rows.length < BATCH_SIZE) return
    after = keyOf(rows[rows.length - 1]!)
  }
}

/** Maps each batch of rows to records (loading the batch's children first). */
export async function* mapBatches<T, R>(batches: AsyncIterable<T[]>, toRecords: (rows: T[]) => Promise<R[]>): AsyncIterable<R[]> {
  for await (const rows of batches) yield await toRecords(rows)
}

/** An instant as the original writes it: ISO 8601 with milliseconds in UTC (`2016-06-14T15:02:08.340Z`). */
export const instant = (ms: number | null): string | null => isoTime(ms === null ? null : Number(ms))

/** A 0/1 flag column as the boolean the original writes. */
export const bool = (value: number | null | undefined): boolean => Number(value) === 1

/** Rows grouped by a parent key, each group in the rows' order. */
export function groupBy<T, K>(rows: readonly T[], keyOf: (row: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>()
  for (const row of rows) {
    const key = keyOf(row)
    const group = groups.get(key)
    if (group === undefined) groups.set(key, [row])
    else group.push(row)
  }
  return groups
}

/** A JSON text column parsed, or `fallback` when it does not read. */
export function parseJson(text: string | null, fallback: unknown = null): unknown {
  if (text === null) return fallback
  try {
    return JSON.parse(text)
  } catch {
    return fallback
  }
}

/** Most ids one `in (…)` list carries (SQLite's and PostgreSQL's bound-parameter limits are far above). */
const IN_LIST_LIMIT = 1000

/** Runs `query` over `ids` (deduplicated) a list of at most IN_LIST_LIMIT at a time, and joins the rows. */
export async function rowsIn<K, T>(ids: Iterable<K>, query: (chunk: K[]) => Promise<T[]>): Promise<T[]> {
  const unique = [...new Set(ids)]
  const rows: T[] = []
  for (let at = 0; at < unique.length; at += IN_LIST_LIMIT) rows.push(...await query(unique.slice(at, at + IN_LIST_LIMIT)))
  return rows
}
