// receive-pack's report to its client (report-status, report-status-v2), read from its output on
// the way to the client — inside band 1 of side-band-64k when the client asked for the side band:
// which ref updates took effect (`ok <ref>`; `ng <ref> <reason>` did not). Ingot records a push
// from it, where a post-receive hook would cost a shell and a round trip per push.
import { packetsIn, type Packet } from './pkt-line.js'

/** The side band a packet travels on: 1 data, 2 progress, 3 a fatal error. */
const DATA_BAND = 1
const ERROR_BAND = 3

export class ReportStatusReader {
  /** Output not yet parsed as packets. */
  private outer: Buffer = Buffer.alloc(0)
  /** Band 1's bytes not yet parsed as the report's own packets (with the side band only). */
  private inner: Buffer = Buffer.alloc(0)
  /** Whether the output is side-banded; unknown until its first packet. */
  private sideBand: boolean | null = null
  private readonly okRefs = new Set<string>()
  /** The report began (its `unpack` line came). */
  private reported = false
  /** The report ended, or the output is not one this reader understands: nothing more is read. */
  private done = false

  /** Each chunk of receive-pack's stdout, in order. */
  observe(chunk: Buffer): void {
    if (this.done) return
    try {
      this.outer = this.take(this.outer.length === 0 ? chunk : Buffer.concat([this.outer, chunk]), (packet) => this.outerPacket(packet))
    } catch {
      // Not pkt-lines: there is no report to read (refs() then says so).
      this.done = true
      this.reported = false
    }
  }

  /** The refs reported updated; null when no whole report was read (the client asked for none). */
  refs(): ReadonlySet<string> | null {
    return this.reported && this.done ? this.okRefs : null
  }

  /** Hands each complete packet of `bytes` to `handle`; returns the incomplete rest. */
  private take(bytes: Buffer, handle: (packet: Packet) => void): Buffer {
    const { packets, consumed } = packetsIn(bytes)
    for (const packet of packets) {
      if (this.done) break
      handle(packet)
    }
    return bytes.subarray(consumed)
  }

  private outerPacket(packet: Packet): void {
    if (typeof packet === 'string') {
      // A flush ends the report sent without the side band; with it, the report's own flush does.
      if (this.sideBand === false && this.reported) this.done = true
      return
    }
    this.sideBand ??= packet.length > 0 && packet[0]! >= DATA_BAND && packet[0]! <= ERROR_BAND
    if (!this.sideBand) return this.reportPacket(packet)
    if (packet[0] === DATA_BAND) {
      this.inner = this.take(this.inner.length === 0 ? packet.subarray(1) : Buffer.concat([this.inner, packet.subarray(1)]), (inner) => this.reportPacket(inner))
    } else if (packet[0] === ERROR_BAND) {
      this.done = true
    }
  }

  private reportPacket(packet: Packet): void {
    if (typeof packet === 'string') {
      if (this.reported) this.done = true
      return
    }
    const line = packet.toString('utf8').replace(/\n$/, '')
    if (line.startsWith('unpack ')) this.reported = true
    else if (line.startsWith('ok ')) this.okRefs.add(line.slice(3))
  }
}
