// A job's trace on its way to the server: output is kept here and appended to the server's copy
// with `PATCH /jobs/:id/trace` about once a second, or at once when 64 KiB wait, never per write.
// The server's size is the truth: a 416 (or a 202 whose `Range` disagrees) moves the offset to
// the server's and sends again from there. While a job writes nothing, it is touched (PUT running,
// as newer runners do) every few seconds instead. A 403, or a `Job-Status` that is not running, in
// either answer means the job was canceled (or failed) on the server: the job is told and stops.
// Secret values are masked as they are written (mask.ts), so no append ever carries one.
import type { JobAnswer, TraceAnswer } from './client.js'
import { SecretMasker } from './mask.js'

export interface TraceOptions {
  /** Appends `bytes` at `start` of the server's trace. */
  send(start: number, bytes: Buffer): Promise<TraceAnswer>
  /** Tells the server the job still runs, when there was nothing to append for a while. */
  touch(): Promise<JobAnswer>
  /** The server no longer wants the job run (canceled, or failed there). */
  onAbandoned(jobStatus: string): void
  intervalMs?: number
  /** How long without an append before a touch. */
  touchIntervalMs?: number
  /** Waiting bytes that make the next append go at once. */
  eagerBytes?: number
  /** The most a trace keeps; past it, output is dropped and the trace says so once (the original runner's `output_limit`). */
  limitBytes?: number
  /** Values written as [MASKED] (mask.ts). */
  secrets?: readonly string[]
}

const STATUSES_THAT_STOP = new Set(['canceled', 'canceling', 'failed'])
/** The most bytes one append carries. */
const MAX_APPEND_BYTES = 1024 * 1024

export class TraceBuffer {
  private data = Buffer.alloc(64 * 1024)
  private length = 0
  /** Bytes the server has. */
  private sent = 0
  private flushing: Promise<void> | null = null
  private timer: NodeJS.Timeout | null = null
  private truncated = false
  private abandoned = false
  /** When the server last heard of the job. */
  private lastContact = Date.now()
  private readonly options: Required<TraceOptions>
  private readonly masker: SecretMasker

  constructor(options: TraceOptions) {
    this.options = { intervalMs: 1000, touchIntervalMs: 3000, eagerBytes: 64 * 1024, limitBytes: 16 * 1024 * 1024, secrets: [], ...options }
    this.masker = new SecretMasker(this.options.secrets)
    this.timer = setInterval(() => void this.tick(), this.options.intervalMs)
    this.timer.unref()
  }

  /** The trace written so far. */
  text(): string {
    return this.data.subarray(0, this.length).toString('utf8')
  }

  write(chunk: Buffer | string): void {
    this.keep(this.masker.write(typeof chunk === 'string' ? Buffer.from(chunk) : chunk))
  }

  private keep(masked: Buffer): void {
    let bytes = masked
    if (this.truncated) return
    const room = this.options.limitBytes - this.length
    if (bytes.length > room) {
      this.truncated = true
      bytes = Buffer.concat([bytes.subarray(0, Math.max(room, 0)), Buffer.from(`\n\x1b[31;1mJob's log exceeded limit of ${this.options.limitBytes} bytes.\x1b[0;m\n`)])
    }
    this.append(bytes)
    if (this.length - this.sent >= this.options.eagerBytes) void this.flush()
  }

  /** Sends what waits, one append at a time. */
  flush(): Promise<void> {
    this.flushing ??= this.sendWaiting().finally(() => { this.flushing = null })
    return this.flushing
  }

  /** Stops the timer and sends the rest (a few tries); true when the server has it all. */
  async close(): Promise<boolean> {
    this.keep(this.masker.end())
    if (this.timer !== null) clearInterval(this.timer)
    this.timer = null
    for (let attempt = 0; attempt < 5 && this.sent < this.length && !this.abandoned; attempt += 1) {
      await this.flush()
      if (this.sent < this.length) await new Promise((resolve) => setTimeout(resolve, 200 * (attempt + 1)))
    }
    return this.sent >= this.length
  }

  private async tick(): Promise<void> {
    if (this.sent < this.length || this.flushing !== null) {
      await this.flush()
      return
    }
    if (this.abandoned || Date.now() - this.lastContact < this.options.touchIntervalMs) return
    this.lastContact = Date.now()
    const answer = await this.options.touch().catch(() => null)
    if (answer !== null) this.heard(answer)
  }

  /** Whether the answer lets the job go on; if not, the job is abandoned. */
  private heard(answer: JobAnswer): boolean {
    if (answer.status === 403 || (answer.jobStatus !== null && STATUSES_THAT_STOP.has(answer.jobStatus))) {
      this.abandoned = true
      this.options.onAbandoned(answer.jobStatus ?? 'canceled')
      return false
    }
    return true
  }

  private append(bytes: Buffer): void {
    if (this.length + bytes.length > this.data.length) {
      const grown = Buffer.alloc(Math.max(this.data.length * 2, this.length + bytes.length))
      this.data.copy(grown, 0, 0, this.length)
      this.data = grown
    }
    bytes.copy(this.data, this.length)
    this.length += bytes.length
  }

  private async sendWaiting(): Promise<void> {
    while (this.sent < this.length && !this.abandoned) {
      const start = this.sent
      const bytes = Buffer.from(this.data.subarray(start, Math.min(this.length, start + MAX_APPEND_BYTES)))
      let answer: TraceAnswer
      try {
        answer = await this.options.send(start, bytes)
      } catch {
        return // the network: the next tick tries again
      }
      if (!this.heard(answer)) return
      if (answer.status === 202) {
        this.lastContact = Date.now()
        this.sent = answer.remoteSize ?? start + bytes.length
      } else if (answer.status === 416 && answer.remoteSize !== null) {
        this.sent = answer.remoteSize
      } else {
        return // a server error: the next tick tries again
      }
      // A server that has more than was written cannot be caught up with by appending.
      if (this.sent > this.length) this.sent = this.length
    }
  }
}
