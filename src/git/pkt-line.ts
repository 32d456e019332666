// git's pkt-line framing (Documentation/technical/protocol-common.txt): four hex digits giving the
// length of the line with themselves, then its bytes; `0000` is a flush, and protocol v2 adds
// `0001` (delim: arguments follow) and `0002` (response-end).

const LENGTH_BYTES = 4
const LENGTH_FIELD = /^[0-9a-f]{4}$/

/** A packet's payload, or which special packet it is. */
export type Packet = Buffer | 'flush' | 'delim' | 'response-end'

const SPECIAL_PACKETS: readonly Packet[] = ['flush', 'delim', 'response-end']

/** `text` as one pkt-line. */
export function pktLine(text: string): string {
  return `${(Buffer.byteLength(text) + LENGTH_BYTES).toString(16).padStart(LENGTH_BYTES, '0')}${text}`
}

/** The packets complete in `bytes`, and where the first incomplete one starts; throws for bytes that are no pkt-lines. */
export function packetsIn(bytes: Buffer): { packets: Packet[]; consumed: number } {
  const packets: Packet[] = []
  let at = 0
  while (bytes.length - at >= LENGTH_BYTES) {
    const field = bytes.toString('latin1', at, at + LENGTH_BYTES)
    if (!LENGTH_FIELD.test(field)) throw new Error('not a pkt-line stream')
    const length = Number.parseInt(field, 16)
    if (length < LENGTH_BYTES) {
      const special = SPECIAL_PACKETS[length]
      if (special === undefined) throw new Error('not a pkt-line stream')
      packets.push(special)
      at += LENGTH_BYTES
      continue
    }
    if (bytes.length - at < length) break
    packets.push(bytes.subarray(at + LENGTH_BYTES, at + length))
    at += length
  }
  return { packets, consumed: at }
}

/** The text of the first pkt-line in `bytes` ('' for a special packet or no pkt-line); null until it is all there. */
export function firstPktLine(bytes: Buffer): string | null {
  if (bytes.length < LENGTH_BYTES) return null
  const length = Number.parseInt(bytes.subarray(0, LENGTH_BYTES).toString('latin1'), 16)
  if (!(length >= LENGTH_BYTES)) return ''
  if (bytes.length < length) return null
  return bytes.subarray(LENGTH_BYTES, length).toString('latin1')
}
