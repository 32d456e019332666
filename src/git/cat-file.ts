// Long-lived `git cat-file --batch-command` readers: one process per repository answers object
// lookups (`info`) and reads (`contents`) for as long as requests keep coming, instead of a git
// process per read. Requests are pipelined and answered in order; a reader closes after a while
// unused, and the pool keeps a bounded number open.
import { spawnGit, type GitProcess } from './command.js'

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

/** Object names go to git on one line: nothing that would end or split it. */
function checkObjectName(name: string): void {
  if (name === '' || /[\n\r\0]/.test(name)) throw new Error('invalid object name')
}

class CatFileReader {
  private readonly process: GitProcess
  private readonly pending: Pending[] = []
  private buffer: Buffer = Buffer.alloc(0)
  /** The object being read: its header is parsed, its bytes are arriving. */
  private current: { info: ObjectInfo; request: Pending } | null = null
  private idleTimer: NodeJS.Timeout | null = null
  closed = false

  constructor(gitDir: string, private readonly onClose: () => void) {
    this.process = spawnGit(['cat-file', '--batch-command'], { gitDir }).child
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
    return new Promise((resolve, reject) => {
      this.pending.push({ kind, resolve, reject })
      this.process.stdin.write(`${kind} ${name}\n`)
    })
  }

  private receive(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk])
    for (;;) {
      if (this.current !== null) {
        const { info, request } = this.current
        if (this.buffer.length < info.size + 1) break
        const data = Buffer.from(this.buffer.subarray(0, info.size))
        this.buffer = this.buffer.subarray(info.size + 1)
        this.current = null
        request.resolve({ ...info, data })
        continue
      }
      const newline = this.buffer.indexOf(10)
      if (newline === -1) break
      const header = this.buffer.subarray(0, newline).toString('utf8')
      this.buffer = this.buffer.subarray(newline + 1)
      const request = this.pending.shift()
      if (request === undefined) {
        this.close(new Error(`unexpected cat-file output: ${header}`))
        return
      }
      const [oid = '', type = '', size = ''] = header.split(' ')
      if (type === 'missing' || type === 'ambiguous' || !/^\d+$/.test(size)) {
        request.resolve(null)
      } else {
        const info: ObjectInfo = { oid, type: type as ObjectInfo['type'], size: Number(size) }
        if (request.kind === 'info') request.resolve(info)
        else this.current = { info, request }
      }
    }
    if (this.pending.length === 0 && this.current === null) this.armIdleTimer()
  }

  private armIdleTimer(): void {
    this.idleTimer = setTimeout(() => this.close(null), IDLE_MS).unref()
  }

  close(error: Error | null): void {
    if (this.closed) return
    this.closed = true
    if (this.idleTimer !== null) clearTimeout(this.idleTimer)
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
    reader = new CatFileReader(gitDir, () => {
      if (this.readers.get(gitDir) === reader) this.readers.delete(gitDir)
    })
    this.readers.set(gitDir, reader)
    return reader
  }

  /** Type and size of an object (any name git understands: oid, `ref^{commit}`, `rev:path`); null when missing. */
  info(gitDir: string, name: string): Promise<ObjectInfo | null> {
    return this.readerFor(gitDir).request('info', name) as Promise<ObjectInfo | null>
  }

  /** An object with its bytes; null when missing. For large blobs, stream with `git cat-file blob`. */
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
