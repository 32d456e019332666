// Blobs by object id: small ones come whole from the long-lived cat-file readers, larger ones
// stream from `git cat-file blob` so that no request holds a large file in memory. Also the
// Base64 encoding of such a stream and git's own test for binary content.
import { PassThrough, Readable, Transform, type TransformCallback } from 'node:stream'
import { isObjectId, spawnGit } from './command.js'
import type { GitRepository } from './repository.js'

/** Blobs up to this size are read whole; larger ones stream. */
export const INLINE_BLOB_LIMIT = 1024 * 1024

/** How far git looks for a NUL byte to call content binary. */
const BINARY_PROBE_BYTES = 8000

export type OpenedBlob =
  | { oid: string; size: number; data: Buffer }
  | { oid: string; size: number; data: null }

/**
 * The blob a user-given object id (full or abbreviated) names: its bytes when small, only its id
 * and size when larger (stream it with streamBlob); null when the id names no blob.
 */
export async function openBlob(repo: GitRepository, sha: string): Promise<OpenedBlob | null> {
  if (!isObjectId(sha)) return null
  const info = await repo.info(sha)
  if (info === null || info.type !== 'blob') return null
  if (info.size > INLINE_BLOB_LIMIT) return { oid: info.oid, size: info.size, data: null }
  const object = await repo.read(info.oid)
  return object === null ? null : { oid: object.oid, size: object.size, data: object.data }
}

/**
 * The bytes of a blob (a full object id) as a stream. The git process ends with the stream: it is
 * killed when the consumer goes away early, and a failure of git destroys the stream.
 */
export function streamBlob(repo: GitRepository, oid: string): Readable {
  const { child, stderrText } = spawnGit(['cat-file', 'blob', oid], { gitDir: repo.gitDir })
  child.stdin.end()
  return ownedOutput(child, stderrText)
}

/**
 * stdout of a git process, ending only once git exited well: a failure of git (even after all its
 * output) destroys the stream instead, so a consumer never takes a cut-off output for a whole one.
 * Closing the stream early kills git.
 */
export function ownedOutput(child: ReturnType<typeof spawnGit>['child'], stderrText: () => string): Readable {
  const out = new PassThrough({ highWaterMark: 64 * 1024 })
  child.stdout.pipe(out, { end: false })
  let exited = false
  child.on('close', (code, signal) => {
    exited = true
    if (code === 0) out.end()
    else out.destroy(new Error(`git failed (${code ?? signal}): ${stderrText().trim()}`))
  })
  child.on('error', (err) => out.destroy(err))
  out.on('close', () => {
    if (!exited) child.kill()
  })
  return out
}

/** Whether content looks binary to git: a NUL byte among its first 8000 bytes. */
export function looksBinary(data: Buffer): boolean {
  return data.subarray(0, BINARY_PROBE_BYTES).includes(0)
}

/** Base64 of a byte stream, encoded as it flows (chunks cut at multiples of 3 bytes). */
export class Base64Encoder extends Transform {
  private rest: Buffer = Buffer.alloc(0)

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    const data = this.rest.length === 0 ? chunk : Buffer.concat([this.rest, chunk])
    const whole = data.length - (data.length % 3)
    this.rest = data.subarray(whole)
    done(null, whole === 0 ? undefined : data.toString('base64', 0, whole))
  }

  override _flush(done: TransformCallback): void {
    done(null, this.rest.length === 0 ? undefined : this.rest.toString('base64'))
  }
}

/** A stream made of `head`, then everything `body` yields, then `tail` (body errors pass through). */
export function framed(head: string | Buffer, body: Readable, tail: string | Buffer): Readable {
  async function* parts() {
    yield typeof head === 'string' ? Buffer.from(head) : head
    for await (const chunk of body) yield typeof chunk === 'string' ? Buffer.from(chunk) : chunk as Buffer
    yield typeof tail === 'string' ? Buffer.from(tail) : tail
  }
  const stream = Readable.from(parts(), { objectMode: false })
  stream.on('close', () => body.destroy())
  return stream
}

/**
 * The first chunk of a stream (to decide headers by it) and a stream that still starts with it;
 * the first chunk is empty for empty content.
 */
export async function peekStream(source: Readable): Promise<{ first: Buffer; stream: Readable }> {
  const iterator = source[Symbol.asyncIterator]()
  const step = await iterator.next()
  const first = step.done === true ? Buffer.alloc(0) : Buffer.from(step.value as Buffer)
  async function* rest() {
    if (first.length > 0) yield first
    if (step.done === true) return
    for (;;) {
      const next = await iterator.next()
      if (next.done === true) return
      yield next.value as Buffer
    }
  }
  const stream = Readable.from(rest(), { objectMode: false })
  stream.on('close', () => source.destroy())
  return { first, stream }
}
