// A cache of pack-objects' answers shared by identical concurrent fetches (many CI jobs cloning one
// commit): the first request for a pack runs `git pack-objects` once, into a file, and every
// identical request meanwhile (and for a few minutes after) reads that file instead of packing the
// same objects again.
//
// How git asks: upload-pack is started with `-c uploadpack.packObjectsHook=<the hook below>` (git
// honours that setting only from protected configuration, the command line included, never from
// a repository's config) and three extra sockets, fds 3 to 5. upload-pack then runs the hook in
// place of `git pack-objects`, with that command line as arguments and the wanted and had objects
// on stdin. The hook, a `sh` script of shell built-ins and `cat`, sends the command line to Ingot
// on fd 3 and reads a verdict there: `bypass` (it execs git's own pack-objects, stdin untouched)
// or `serve`, after which it sends its stdin, copies the pack Ingot streams on fd 4 to upload-pack,
// pack-objects' progress on fd 5 to its stderr (upload-pack turns both into sideband), and exits
// with the outcome Ingot writes last on fd 3. A request is keyed by a SHA-256 of the git version,
// the repository, the arguments (but `--progress`) and the stdin bytes.
//
// An entry is a file under its process's directory, written by one pack-objects; its readers follow
// the file as it grows, each at its own pace (a slow client never holds the writer back, nor
// memory). A writer that fails or loses all its readers is killed and its entry dropped at once, so
// no failed pack is ever served; a reader that had sent nothing yet starts over (and runs
// pack-objects itself), one that had sent bytes fails its fetch. Entries expire after
// `maxAgeMs`; the whole cache keeps under `maxBytes` (oldest unread entries go first; a pack
// that does not fit is shared only while it is written, then removed). The directory of a dead process is removed
// by the next cache to start.
import { createHash, randomBytes } from 'node:crypto'
import fs from 'node:fs/promises'
import path from 'node:path'
import type { Duplex } from 'node:stream'
import { spawnGit, runGit } from './command.js'

/** upload-pack's fds that talk with the hook: requests and outcomes, the pack, the progress. */
export const PACK_OBJECTS_CONTROL_FD = 3
export const PACK_OBJECTS_DATA_FD = 4
export const PACK_OBJECTS_PROGRESS_FD = 5

/** The fds 3 to 5 of an upload-pack started for the cache, as Ingot's ends. */
export interface PackObjectsChannels {
  control: Duplex
  data: Duplex
  progress: Duplex
}

const HOOK = `#!/bin/sh
# Installed by Ingot: upload-pack runs this in place of \`git pack-objects\` ("$@" is that command,
# stdin the objects wanted and had). Ingot answers from its pack-objects cache over fds 3 to 5;
# when it does not take the request, git's own pack-objects runs.
{ echo "pack-objects $#"; for arg; do printf '%s\\n' "$arg"; done; echo .; } 2>/dev/null >&${PACK_OBJECTS_CONTROL_FD} || exec "$@"
IFS= read -r verdict <&${PACK_OBJECTS_CONTROL_FD} || exec "$@"
case $verdict in
  serve*) ;;
  *) exec "$@" ;;
esac
{ cat; echo .; } >&${PACK_OBJECTS_CONTROL_FD} || exit 1
if [ "$verdict" = "serve progress" ]; then cat <&${PACK_OBJECTS_PROGRESS_FD} >&2 & fi
cat <&${PACK_OBJECTS_DATA_FD} || exit 1
wait
IFS= read -r outcome <&${PACK_OBJECTS_CONTROL_FD}
[ "$outcome" = done ]
`

/** Writes the hook into `dir` (replacing an outdated one atomically); returns its path. */
export async function installPackObjectsHook(dir: string): Promise<string> {
  await fs.mkdir(dir, { recursive: true })
  const file = path.join(dir, 'pack-objects')
  const current = await fs.readFile(file, 'utf8').catch(() => null)
  if (current !== HOOK) {
    const temporary = `${file}.${process.pid}.tmp`
    await fs.writeFile(temporary, HOOK, { mode: 0o755 })
    await fs.rename(temporary, file)
  }
  return file
}

/**
 * The value of uploadpack.packObjectsHook for `hookPath`: git runs it through a shell when it holds
 * any character a shell treats specially, so such a path is quoted (a plain one is exec'd directly).
 */
export function hookCommandOf(hookPath: string): string {
  return /^[\w./-]+$/.test(hookPath) ? hookPath : `'${hookPath.replace(/'/g, `'\\''`)}'`
}

/**
 * What a request may carry and still be answered from the cache: the options upload-pack gives
 * pack-objects, and filters that depend on nothing but the objects. Anything else (another
 * filter, packfile URIs, a shallow file of its own) is run by git as if there were no hook.
 */
const CACHEABLE_ARGS = new Set(['pack-objects', '--revs', '--thin', '--stdout', '--shallow', '--progress', '--delta-base-offset', '--include-tag'])
const CACHEABLE_FILTER = /^--filter=(?:blob:none|blob:limit=\d+[kmg]?|tree:\d+)$/

export function isCacheableCommand(args: readonly string[]): boolean {
  if (args[0] !== 'git' || !args.includes('pack-objects') || !args.includes('--stdout')) return false
  for (let i = 1; i < args.length; i++) {
    const arg = args[i]!
    // upload-pack's `--shallow-file ""` (before pack-objects): the shallow commits come on stdin.
    if (arg === '--shallow-file' && args[i + 1] === '' && i < args.indexOf('pack-objects')) {
      i += 1
      continue
    }
    if (!CACHEABLE_ARGS.has(arg) && !CACHEABLE_FILTER.test(arg)) return false
  }
  return true
}

/** Lines upload-pack writes to pack-objects: object ids, `--not`, `--shallow <id>`, the empty last line. */
const STDIN_LINE = /^(?:[0-9a-f]{40}|[0-9a-f]{64}|--not|--shallow [0-9a-f]{40}|--shallow [0-9a-f]{64}|)$/

export function isWellFormedStdin(stdin: Buffer): boolean {
  const text = stdin.toString('latin1')
  if (!text.endsWith('\n')) return false
  return text.slice(0, -1).split('\n').every((line) => STDIN_LINE.test(line))
}

export interface PackObjectsCacheOptions {
  /** The directory this process's entries go under (one subdirectory per process). */
  root: string
  /** Entries older than this are no longer served and are removed once unread. */
  maxAgeMs: number
  /** The bytes all entries may take together. */
  maxBytes: number
  /** Time limit of one pack-objects, and the longest it may go without writing. */
  timeoutMs: number
  idleTimeoutMs: number
  /** A reader that sees no new bytes for this long gives up (its writer is stuck). */
  readerIdleTimeoutMs?: number
  onError?(err: unknown): void
  /** How pack-objects is started (tests put a failing one in its place). */
  spawn?: typeof spawnGit
}

export interface PackObjectsCacheStats {
  /** Requests the hook made (served or bypassed). */
  requests: number
  /** Requests git packed itself: not cacheable, or the channels were spent. */
  bypassed: number
  /** pack-objects Ingot ran (one per entry, and per request that did not fit). */
  runs: number
  /** Requests served from an entry another request had started. */
  hits: number
  /** pack-objects that failed, or were stopped when their last reader went away. */
  failedRuns: number
  /** Requests whose fetch failed. */
  failedRequests: number
  /** Entries removed by expiry or to make room. */
  evicted: number
}

type EntryState = 'writing' | 'done' | 'failed'

interface Entry {
  key: string
  file: string
  /** Bytes in the file so far. */
  size: number
  state: EntryState
  /** pack-objects' stderr, kept for later readers (up to PROGRESS_LIMIT). */
  progress: Buffer[]
  progressBytes: number
  readers: number
  createdAt: number
  /** Whether the entry is in the index and counted in `bytes` (false for a run that did not fit). */
  kept: boolean
  /** Called on every change: new bytes, new progress, the end. */
  wake: Set<() => void>
  /** Settles once the file exists and pack-objects runs (rejects when neither could start). */
  ready: Promise<void>
  stop(): void
}

const PROGRESS_LIMIT = 64 * 1024
const STDIN_LIMIT = 64 * 1024 * 1024
const READ_CHUNK = 256 * 1024
const DEFAULT_READER_IDLE_MS = 5 * 60_000

/** A reader's outcome: the whole pack sent, or a failure before or after its first byte. */
type ReadOutcome = 'done' | 'failed-before' | 'failed'

class ChannelClosed extends Error {}

export class PackObjectsCache {
  readonly stats: PackObjectsCacheStats = { requests: 0, bypassed: 0, runs: 0, hits: 0, failedRuns: 0, failedRequests: 0, evicted: 0 }
  private readonly entries = new Map<string, Entry>()
  private readonly all = new Set<Entry>()
  private bytes = 0
  private dir: Promise<string> | null = null
  private gitVersion: Promise<string> | null = null
  private readonly sweeper: NodeJS.Timeout
  private closed = false

  constructor(private readonly options: PackObjectsCacheOptions) {
    this.sweeper = setInterval(() => this.expire(), Math.max(1000, Math.min(options.maxAgeMs, 60_000))).unref()
  }

  /** Bytes the cache's entries take now. */
  get size(): number {
    return this.bytes
  }

  /** This process's directory, made at first use, after removing the directories of dead processes. */
  private directory(): Promise<string> {
    this.dir ??= (async () => {
      await fs.mkdir(this.options.root, { recursive: true })
      for (const name of await fs.readdir(this.options.root)) {
        const pid = Number(/^(\d+)-/.exec(name)?.[1] ?? NaN)
        if (Number.isInteger(pid) && pid !== process.pid && isAlive(pid)) continue
        await fs.rm(path.join(this.options.root, name), { recursive: true, force: true })
      }
      const dir = path.join(this.options.root, `${process.pid}-${randomBytes(6).toString('hex')}`)
      await fs.mkdir(dir, { mode: 0o700 })
      return dir
    })()
    return this.dir
  }

  private version(): Promise<string> {
    this.gitVersion ??= runGit(['--version']).then((v) => v.trim())
    return this.gitVersion
  }

  /**
   * Serves the hook of one upload-pack of `gitDir` on its channels: the first request only (one
   * fetch makes one; a later one in the same session is told nothing and packs for itself).
   */
  attach(gitDir: string, channels: PackObjectsChannels): void {
    const { control, data, progress } = channels
    for (const socket of [control, data, progress]) socket.on('error', () => {}) // the hook may be gone; its exit tells upload-pack
    let buffer: Buffer = Buffer.alloc(0)
    let phase: 'command' | 'stdin' | 'spent' = 'command'
    let args: string[] = []
    const spend = () => {
      phase = 'spent'
      buffer = Buffer.alloc(0)
      control.end()
      data.end()
      progress.end()
    }
    control.on('data', (chunk: Buffer) => {
      if (phase === 'spent') return
      buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk])
      if (phase === 'command') {
        const end = buffer.indexOf('\n.\n')
        if (end === -1) {
          if (buffer.length > 1024 * 1024) spend()
          return
        }
        const lines = buffer.subarray(0, end).toString('utf8').split('\n')
        buffer = buffer.subarray(end + 3)
        const count = Number(/^pack-objects (\d+)$/.exec(lines[0] ?? '')?.[1] ?? NaN)
        args = lines.slice(1)
        this.stats.requests += 1
        if (this.closed || args.length !== count || !isCacheableCommand(args)) {
          this.stats.bypassed += 1
          control.write('bypass\n')
          spend()
          return
        }
        control.write(args.includes('--progress') ? 'serve progress\n' : 'serve\n')
        phase = 'stdin'
      }
      // The stdin message ends at the first line holding a dot alone (git never writes one).
      const empty = buffer.length >= 2 && buffer[0] === 0x2e && buffer[1] === 0x0a
      const end = empty ? 0 : buffer.indexOf('\n.\n')
      if (end === -1) {
        if (buffer.length > STDIN_LIMIT) {
          this.stats.failedRequests += 1
          control.write('failed\n')
          spend()
        }
        return
      }
      const stdin = empty ? Buffer.alloc(0) : Buffer.from(buffer.subarray(0, end + 1))
      phase = 'spent'
      buffer = Buffer.alloc(0)
      this.serve(gitDir, args, stdin, channels, args.includes('--progress')).then((ok) => {
        if (!ok) this.stats.failedRequests += 1
        control.end(ok ? 'done\n' : 'failed\n')
        data.end()
        progress.end()
      }, (err: unknown) => {
        this.stats.failedRequests += 1
        this.options.onError?.(err)
        control.end('failed\n')
        data.destroy()
        progress.destroy()
      })
    })
  }

  /** Streams the pack for one request to `channels`; whether all of it went. */
  private async serve(gitDir: string, args: string[], stdin: Buffer, channels: PackObjectsChannels, wantsProgress: boolean): Promise<boolean> {
    if (!isWellFormedStdin(stdin)) return false
    const key = await this.keyOf(gitDir, args, stdin)
    for (let attempt = 0; attempt < 2; attempt++) {
      let entry = this.entries.get(key)
      if (entry !== undefined && entry.state !== 'failed' && Date.now() - entry.createdAt < this.options.maxAgeMs) {
        this.stats.hits += 1
      } else {
        entry = this.start(key, gitDir, args, stdin)
      }
      const outcome = await this.read(entry, channels, wantsProgress)
      if (outcome === 'done') return true
      // A writer that failed before this reader sent anything: pack anew, once.
      if (outcome === 'failed' || this.closed) return false
    }
    return false
  }

  private async keyOf(gitDir: string, args: readonly string[], stdin: Buffer): Promise<string> {
    const hash = createHash('sha256')
    hash.update(JSON.stringify(['ingot-pack-objects-cache 1', await this.version(), path.resolve(gitDir), args.filter((a) => a !== '--progress')]))
    hash.update('\0')
    hash.update(stdin)
    return hash.digest('hex')
  }

  /**
   * Starts pack-objects for `key` into a new entry (kept when it fits the cache). The entry is in
   * the index at once, before any file or process exists, so that concurrent requests find it.
   */
  private start(key: string, gitDir: string, args: string[], stdin: Buffer): Entry {
    let proc: ReturnType<typeof spawnGit> | null = null
    let stopped = false
    this.makeRoom()
    const entry: Entry = {
      key, file: '', size: 0, state: 'writing', progress: [], progressBytes: 0, readers: 0, createdAt: Date.now(),
      kept: !this.closed && this.bytes < this.options.maxBytes, wake: new Set(), ready: Promise.resolve(),
      stop: () => {
        stopped = true
        if (proc !== null && proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGKILL')
      },
    }
    // A failed or expired entry of the same key may still be read by its last readers: it just
    // leaves the index. One that does not fit is shared while it runs, then dropped.
    this.entries.set(key, entry)
    this.all.add(entry)
    this.stats.runs += 1
    const changed = () => { for (const wake of [...entry.wake]) wake() }
    const fail = () => {
      if (entry.state !== 'writing') return
      entry.state = 'failed'
      this.stats.failedRuns += 1
      this.drop(entry)
      changed()
    }
    let written: Promise<void> = Promise.resolve()
    entry.ready = (async () => {
      const dir = await this.directory()
      entry.file = path.join(dir, `${key}-${randomBytes(4).toString('hex')}.pack`)
      const handle = await fs.open(entry.file, 'wx', 0o600)
      if (stopped || this.closed) {
        await handle.close()
        throw new Error('stopped before it started')
      }
      // Progress is always asked for, so that any later reader that wants it can have it.
      const gitArgs = args.slice(1)
      if (!gitArgs.includes('--progress')) gitArgs.splice(gitArgs.indexOf('--stdout') + 1, 0, '--progress')
      const child = (proc = (this.options.spawn ?? spawnGit)(gitArgs, { gitDir, timeoutMs: this.options.timeoutMs, idleTimeoutMs: this.options.idleTimeoutMs }))
      child.child.stdin.on('error', () => {}) // pack-objects may fail before reading all of it; its exit tells
      child.child.stdin.end(stdin)
      child.child.stderr.on('data', (chunk: Buffer) => {
        child.touch()
        if (entry.progressBytes + chunk.length > PROGRESS_LIMIT) return
        entry.progress.push(chunk)
        entry.progressBytes += chunk.length
        changed()
      })
      const exited = new Promise<number | null>((resolve) => {
        child.child.once('exit', (code) => resolve(code))
        child.child.once('error', () => resolve(null))
      })
      written = (async () => {
        let ok = false
        try {
          for await (const chunk of child.child.stdout as AsyncIterable<Buffer>) {
            child.touch()
            await handle.write(chunk)
            entry.size += chunk.length
            if (entry.kept && this.all.has(entry)) this.bytes += chunk.length
            changed()
          }
          ok = (await exited) === 0 && child.stoppedBy() === null && !stopped && entry.size > 0
        } catch (err) {
          this.options.onError?.(err)
        } finally {
          entry.stop()
          await handle.close().catch(() => {})
        }
        if (!ok) return fail()
        entry.state = 'done'
        changed()
        if (!entry.kept && entry.readers === 0) this.drop(entry)
      })()
    })()
    entry.ready.catch((err: unknown) => {
      if (!stopped && !this.closed) this.options.onError?.(err)
      fail()
    })
    void written
    return entry
  }

  /** Follows `entry`'s file from its start, to its end, onto the channels. */
  private async read(entry: Entry, channels: PackObjectsChannels, wantsProgress: boolean): Promise<ReadOutcome> {
    const { data, progress } = channels
    entry.readers += 1
    let sent = 0
    let progressSent = 0
    const handle = await entry.ready.then(() => fs.open(entry.file, 'r'), () => null).catch(() => null)
    try {
      if (handle === null) return 'failed-before'
      for (;;) {
        if (wantsProgress) {
          while (progressSent < entry.progress.length) progress.write(entry.progress[progressSent++]!)
        }
        if (sent < entry.size) {
          const buffer = Buffer.allocUnsafe(Math.min(READ_CHUNK, entry.size - sent))
          const { bytesRead } = await handle.read(buffer, 0, buffer.length, sent)
          if (bytesRead === 0) throw new Error(`pack-objects cache file ${entry.file} is shorter than written`)
          sent += bytesRead
          await writeTo(data, bytesRead === buffer.length ? buffer : buffer.subarray(0, bytesRead))
          continue
        }
        if (entry.state === 'done') return 'done'
        if (entry.state === 'failed') return sent === 0 ? 'failed-before' : 'failed'
        await this.changeOf(entry, data)
      }
    } catch (err) {
      if (!(err instanceof ChannelClosed)) this.options.onError?.(err)
      return 'failed'
    } finally {
      await handle?.close().catch(() => {})
      entry.readers -= 1
      if (entry.readers === 0) {
        // Nobody reads a pack still being written: stop it (it would run for nobody) and drop it.
        if (entry.state === 'writing') entry.stop()
        else if (!entry.kept) this.drop(entry)
      }
    }
  }

  /** Resolves at the entry's next change; rejects when the reader's channel closes or nothing moves for too long. */
  private changeOf(entry: Entry, data: Duplex): Promise<void> {
    return new Promise((resolve, reject) => {
      const done = (err?: Error) => {
        entry.wake.delete(wake)
        data.off('close', closed)
        clearTimeout(timer)
        if (err === undefined) resolve()
        else reject(err)
      }
      const wake = () => done()
      const closed = () => done(new ChannelClosed())
      const timer = setTimeout(() => done(new Error('the pack-objects cache writer stalled')), this.options.readerIdleTimeoutMs ?? DEFAULT_READER_IDLE_MS)
      entry.wake.add(wake)
      data.once('close', closed)
      if (data.destroyed) closed()
    })
  }

  /** Takes `entry` out of the index and the count, and removes its file (open readers keep theirs). */
  private drop(entry: Entry): void {
    if (this.entries.get(entry.key) === entry) this.entries.delete(entry.key)
    if (!this.all.delete(entry)) return
    if (entry.kept) this.bytes -= entry.size
    if (entry.file === '') return
    void fs.rm(entry.file, { force: true }).catch((err: unknown) => this.options.onError?.(err))
  }

  /** Removes the entries past their age at `now`, once nobody reads them. */
  expire(now = Date.now()): void {
    for (const entry of [...this.all]) {
      if (entry.readers > 0 || entry.state === 'writing') continue
      if (now - entry.createdAt >= this.options.maxAgeMs) {
        this.stats.evicted += 1
        this.drop(entry)
      }
    }
  }

  /** Removes the oldest unread complete entries until the cache is under its cap. */
  private makeRoom(): void {
    if (this.bytes < this.options.maxBytes) return
    const candidates = [...this.all].filter((e) => e.kept && e.readers === 0 && e.state !== 'writing').sort((a, b) => a.createdAt - b.createdAt)
    for (const entry of candidates) {
      if (this.bytes < this.options.maxBytes) return
      this.stats.evicted += 1
      this.drop(entry)
    }
  }

  /** Stops every writer and removes this process's directory. */
  async close(): Promise<void> {
    this.closed = true
    clearInterval(this.sweeper)
    for (const entry of this.all) entry.stop()
    for (const entry of [...this.all]) this.drop(entry)
    if (this.dir !== null) {
      const dir = await this.dir.catch(() => null)
      if (dir !== null) await fs.rm(dir, { recursive: true, force: true })
    }
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Writes with backpressure; throws ChannelClosed when the hook's end is gone. */
function writeTo(socket: Duplex, chunk: Buffer): Promise<void> {
  if (socket.destroyed || !socket.writable) return Promise.reject(new ChannelClosed())
  if (socket.write(chunk)) return Promise.resolve()
  return new Promise((resolve, reject) => {
    const done = (err?: Error) => {
      socket.off('drain', drained)
      socket.off('close', closed)
      if (err === undefined) resolve()
      else reject(err)
    }
    const drained = () => done()
    const closed = () => done(new ChannelClosed())
    socket.once('drain', drained)
    socket.once('close', closed)
  })
}
