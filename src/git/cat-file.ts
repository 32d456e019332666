// Long-lived `git cat-file --batch-command` readers: one process per repository answers object
// lookups (`info`) and reads (`contents`) for as long as requests keep coming, instead of a git
// process per read. Requests are pipelined and answered in order; a reader closes after a while
// unused, and the pool keeps a bounded number open.
import { DEFAULT_MAX_OUTPUT_BYTES, GitTooLargeError, spawnGit, type GitProcess } from './command.js'

export interface ObjectInfo {
  oid: string
  type: 'blob' | 'tree' | 'commit' | 'tag'
  size: number
}

export interface GitObject extends ObjectInfo {
  data: Buffer
}

interface Pending {
  kind: 'info' | 'contents'
  resolve: (value: GitObject | ObjectInfo | null) => void
  reject: (error: Error) => void
}

const IDLE_MS = 30_000
const MAX_READERS = 64
/**
 * The reader's time limit: it lives as long as it is used, so the limit is on each answer. A
 * reader that has kept a request waiting this long is stopped (its requests fail).
 */
const ANSWER_TIMEOUT_MS = 60_000
/** Objects larger than this are not read whole (stream blobs with `git cat-file blob`). */
export const MAX_OBJECT_BYTES = DEFAULT_MAX_OUTPUT_BYTES

/** An object over the pool's limit was asked for whole. */
export class ObjectTooLargeError extends GitTooLargeError {
  constructor(readonly info: ObjectInfo, limit: number) {
    super(`object ${info.oid} is ${info.size} bytes, over ${limit}`)
  }
}

/** Object names go to git on one line: nothing that would end or split it. */
function checkObjectName(name: string): void {
  if (name === '' || /[\n\r\0]/.test(name)) throw new Error('invalid object name')
}

class CatFileReader {
  private readonly process: GitProcess
  private readonly pending: Pending[] = []
  /** Output not yet parsed, as it came: joined once per object, never per chunk. */
  private readonly chunks: Buffer[] = []
  private buffered = 0
  /** The object being read: its header is parsed, its bytes are arriving (and dropped when `tooLarge`). */
  private current: { info: ObjectInfo; request: Pending; tooLarge: boolean; remaining: number } | null = null
  /** Commands not yet written: those of one turn of the event loop go to git in one write. */
  private unwritten = ''
  private idleTimer: NodeJS.Timeout | null = null
  private answerTimer: NodeJS.Timeout | null = null
  closed = false

  constructor(gitDir: string, private readonly maxObjectBytes: number, private readonly onClose: () => void) {
    // --buffer: git answers a turn's commands at its `flush`, in one write instead of one per answer.
    this.process = spawnGit(['cat-file', '--batch-command', '--buffer'], { gitDir, timeoutMs: 0 }).child
    this.process.stdout.on('data', (chunk: Buffer) => this.receive(chunk))
    const fail = (error: Error) => this.close(error)
    this.process.on('error', fail)
    this.process.on('close', () => this.close(new Error('git cat-file exited')))
    this.process.stdin.on('error', fail)
    this.armIdleTimer()
  }

  request(kind: Pending['kind'], name: string): Promise<GitObject | ObjectInfo | null> {
    checkObjectName(name)
    if (this.closed) return Promise.reject(new Error('git cat-file reader is closed'))
    if (this.idleTimer !== null) clearTimeout(this.idleTimer)
    this.idleTimer = null
    this.answerTimer ??= setTimeout(() => this.close(new Error('git cat-file did not answer in time')), ANSWER_TIMEOUT_MS).unref()
    return new Promise((resolve, reject) => {
      this.pending.push({ kind, resolve, reject })
      if (this.unwritten === '') setImmediate(() => this.writeUnwritten())
      this.unwritten += `${kind} ${name}\n`
    })
  }

  /**
   * The commands of this turn of the event loop (of every request it served) in one write: one
   * wake-up of git and one of Ingot for them all, where a write each cost a switch between the two.
   */
  private writeUnwritten(): void {
    const commands = this.unwritten
    this.unwritten = ''
    if (!this.closed) this.process.stdin.write(`${commands}flush\n`)
  }

  /** Removes the first `length` buffered bytes and returns them (copied, so no chunk stays referenced). */
  private take(length: number): Buffer {
    const parts: Buffer[] = []
    let needed = length
    while (needed > 0) {
      const chunk = this.chunks[0]!
      if (chunk.length <= needed) {
        parts.push(chunk)
        this.chunks.shift()
        needed -= chunk.length
      } else {
        parts.push(chunk.subarray(0, needed))
        this.chunks[0] = chunk.subarray(needed)
        needed = 0
      }
    }
    this.buffered -= length
    return Buffer.concat(parts, length)
  }

  /** The header line at the front, without its newline; null until it has come whole. */
  private takeLine(): string | null {
    for (;;) {
      const first = this.chunks[0]
      if (first === undefined) return null
      const newline = first.indexOf(10)
      if (newline !== -1) {
        const line = first.subarray(0, newline).toString('utf8')
        this.take(newline + 1)
        return line
      }
      // A header split across chunks: only a few bytes of it are in the first one.
      const second = this.chunks[1]
      if (second === undefined) return null
      this.chunks.splice(0, 2, Buffer.concat([first, second]))
    }
  }

  private receive(chunk: Buffer): void {
    this.chunks.push(chunk)
    this.buffered += chunk.length
    for (;;) {
      if (this.current !== null) {
        const { info, request, tooLarge } = this.current
        if (tooLarge) {
          // Dropped as it comes, so that memory holds no more than a chunk of it.
          const drop = Math.min(this.buffered, this.current.remaining)
          if (drop > 0) this.take(drop)
          this.current.remaining -= drop
          if (this.current.remaining > 0) break
          this.current = null
          this.answered()
          request.reject(new ObjectTooLargeError(info, this.maxObjectBytes))
          continue
        }
        if (this.buffered < info.size + 1) break
        const data = this.take(info.size)
        this.take(1)
        this.current = null
        this.answered()
        request.resolve({ ...info, data })
        continue
      }
      const header = this.takeLine()
      if (header === null) break
      const request = this.pending.shift()
      if (request === undefined) {
        this.close(new Error(`unexpected cat-file output: ${header}`))
        return
      }
      const [oid = '', type = '', size = ''] = header.split(' ')
      if (type === 'missing' || type === 'ambiguous' || !/^\d+$/.test(size)) {
        this.answered()
        request.resolve(null)
      } else {
        const info: ObjectInfo = { oid, type: type as ObjectInfo['type'], size: Number(size) }
        if (request.kind === 'info') {
          this.answered()
          request.resolve(info)
        } else {
          const tooLarge = info.size > this.maxObjectBytes
          this.current = { info, request, tooLarge, remaining: info.size + 1 }
        }
      }
    }
    if (this.pending.length === 0 && this.current === null) this.armIdleTimer()
  }

  /** An answer came: the time limit starts again for the next one, or ends with the last. */
  private answered(): void {
    if (this.answerTimer === null) return
    if (this.pending.length > 0 || this.current !== null) this.answerTimer.refresh()
    else {
      clearTimeout(this.answerTimer)
      this.answerTimer = null
    }
  }

  private armIdleTimer(): void {
    this.idleTimer = setTimeout(() => this.close(null), IDLE_MS).unref()
  }

  close(error: Error | null): void {
    if (this.closed) return
    this.closed = true
    if (this.idleTimer !== null) clearTimeout(this.idleTimer)
    if (this.answerTimer !== null) clearTimeout(this.answerTimer)
    const failure = error ?? new Error('git cat-file reader closed')
    if (this.current !== null) this.current.request.reject(failure)
    for (const request of this.pending.splice(0)) request.reject(failure)
    this.process.stdin.end()
    this.process.kill()
    this.onClose()
  }
}

/** The readers of every repository in use, at most MAX_READERS at once (least recently used go). */
export class CatFilePool {
  private readonly readers = new Map<string, CatFileReader>()

  constructor(private readonly maxObjectBytes = MAX_OBJECT_BYTES) {}

  private readerFor(gitDir: string): CatFileReader {
    let reader = this.readers.get(gitDir)
    if (reader !== undefined && !reader.closed) {
      this.readers.delete(gitDir)
      this.readers.set(gitDir, reader)
      return reader
    }
    if (this.readers.size >= MAX_READERS) {
      const [oldest] = this.readers.values()
      oldest?.close(null)
    }
    reader = new CatFileReader(gitDir, this.maxObjectBytes, () => {
      if (this.readers.get(gitDir) === reader) this.readers.delete(gitDir)
    })
    this.readers.set(gitDir, reader)
    return reader
  }

  /** Type and size of an object (any name git understands: oid, `ref^{commit}`, `rev:path`); null when missing. */
  info(gitDir: string, name: string): Promise<ObjectInfo | null> {
    return this.readerFor(gitDir).request('info', name) as Promise<ObjectInfo | null>
  }

  /**
   * An object with its bytes; null when missing; an ObjectTooLargeError past the pool's limit (its
   * bytes are skipped, never held). For large blobs, stream with `git cat-file blob`.
   */
  read(gitDir: string, name: string): Promise<GitObject | null> {
    return this.readerFor(gitDir).request('contents', name) as Promise<GitObject | null>
  }

  /** Closes the readers of a repository (before it is deleted or replaced). */
  forget(gitDir: string): void {
    this.readers.get(gitDir)?.close(null)
  }

  closeAll(): void {
    for (const reader of [...this.readers.values()]) reader.close(null)
  }
}
