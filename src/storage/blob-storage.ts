// The one way to files that are not git: CI traces and artifacts now (uploads, LFS objects, exports
// and avatars may follow). Keys are relative slash-separated names (`ci/projects/1/jobs/2/3-archive`);
// nothing else builds paths under the data directory for these files, so a local directory today
// and S3-compatible object storage later are the same to their callers.
import type { Readable } from 'node:stream'

export interface BlobStat {
  key: string
  size: number
}

/** A byte range of a blob, both ends inclusive as HTTP ranges are; `end` omitted for the rest. */
export interface ByteRange {
  start: number
  end?: number
}

export interface BlobStorage {
  /**
   * Stores the bytes of `data` under `key`, replacing what was there only once every byte is
   * written: a reader sees the old blob or the whole new one, never half of one. When the stream
   * fails, nothing is stored and the error is thrown.
   */
  put(key: string, data: Readable | Buffer): Promise<BlobStat>
  /** The blob's bytes (of `range` when given), or null when there is no such blob. */
  get(key: string, range?: ByteRange): Promise<Readable | null>
  stat(key: string): Promise<BlobStat | null>
  /** Removes the blob; nothing when there is none. */
  delete(key: string): Promise<void>
  /** Removes every blob whose key starts with `prefix`, which ends with `/`. */
  deletePrefix(prefix: string): Promise<void>
  /** Every blob whose key starts with `prefix` (ending with `/`), in no set order. */
  list(prefix: string): AsyncIterable<BlobStat>
  /** Removes what interrupted puts left behind before `before` (epoch ms); their names. */
  sweepLeftovers(before: number): Promise<string[]>
}

const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/

export class InvalidBlobKeyError extends Error {
  constructor(key: string) {
    super(`invalid blob key: ${JSON.stringify(key)}`)
  }
}

/**
 * Refuses a key that could leave the storage's root or mean two things: an absolute path, `.` or
 * `..` segments, empty segments, anything but letters, digits, `.`, `_` and `-` (a segment never
 * starts with a dot, which also keeps keys clear of the local storage's temporary files).
 */
export function checkBlobKey(key: string): string {
  if (key.length === 0 || key.length > 1024 || !key.split('/').every((segment) => SEGMENT.test(segment))) throw new InvalidBlobKeyError(key)
  return key
}

/** As checkBlobKey, for a prefix: a key followed by `/`. */
export function checkBlobPrefix(prefix: string): string {
  if (!prefix.endsWith('/')) throw new InvalidBlobKeyError(prefix)
  checkBlobKey(prefix.slice(0, -1))
  return prefix
}
