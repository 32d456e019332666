// Requests Ingot makes to URLs its users configure (webhooks, integrations). Such a URL must not
// reach the instance's own network unless the administrator allows it
// (allow_local_requests_from_hooks_and_services): the host is resolved and every address checked,
// a name that resolves to nothing is not sent to, and the connection always goes to the address
// that was checked, so a DNS answer that changes between the check and the connection cannot
// smuggle a request inside. Every request is bounded: one
// timeout for the whole exchange (waiting for a slot included), a cap on the response read, no
// redirects, and a process-wide cap on requests in flight, so slow receivers cannot exhaust us.
import dns from 'node:dns'
import http from 'node:http'
import https from 'node:https'
import net from 'node:net'
import type { Readable } from 'node:stream'
import type { AppContext } from '../../context.js'
import { COMPATIBLE_VERSION } from '../../revision.js'
import { getApplicationSettings } from '../settings.js'

export type OutboundFailure = 'blocked' | 'network' | 'timeout' | 'too-large'

/** A request that was refused or did not complete; `message` says why, safe to show and log. */
export class OutboundError extends Error {
  constructor(readonly kind: OutboundFailure, message: string) {
    super(message)
  }
}

/** The most of a response body that is read; the rest is refused. */
export const MAX_RESPONSE_BYTES = 64 * 1024
/** Requests in flight at once across the process; more wait for a slot (within their timeout). */
export const MAX_CONCURRENT_REQUESTS = 16

type Ctx = Pick<AppContext, 'db' | 'config'>

// ---- address rules --------------------------------------------------------------------------

type AddressClass = 'public' | 'localhost' | 'loopback' | 'local' | 'link-local'

function ipv4Bytes(address: string): number[] | null {
  const parts = address.split('.')
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return null
  return parts.map(Number)
}

function classifyIpv4([a, b]: number[]): AddressClass {
  if (a === 0) return 'localhost'
  if (a === 127) return 'loopback'
  if (a === 169 && b === 254) return 'link-local'
  if (a === 10 || (a === 172 && b! >= 16 && b! <= 31) || (a === 192 && b === 168)) return 'local'
  // Shared address space (carrier NAT), multicast, reserved and broadcast are never a public receiver.
  if ((a === 100 && b! >= 64 && b! <= 127) || a! >= 224) return 'local'
  return 'public'
}

/** The eight 16-bit groups of an IPv6 address (an embedded dotted IPv4 tail included). */
function ipv6Groups(address: string): number[] | null {
  let text = address.replace(/%.*$/, '')
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)
  if (dotted !== null) {
    const v4 = ipv4Bytes(dotted[1]!)
    if (v4 === null) return null
    text = `${text.slice(0, -dotted[1]!.length)}${((v4[0]! << 8) | v4[1]!).toString(16)}:${((v4[2]! << 8) | v4[3]!).toString(16)}`
  }
  const halves = text.split('::')
  if (halves.length > 2) return null
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => (/^[0-9a-f]{1,4}$/i.test(g) ? parseInt(g, 16) : NaN)))
  const head = parse(halves[0]!)
  const tail = halves.length === 2 ? parse(halves[1]!) : []
  const missing = 8 - head.length - tail.length
  if (halves.length === 1 ? missing !== 0 : missing < 0) return null
  const groups = [...head, ...new Array<number>(halves.length === 2 ? missing : 0).fill(0), ...tail]
  return groups.some(Number.isNaN) ? null : groups
}

function classifyIpv6(groups: number[]): AddressClass {
  const [g0, , , , , g5, g6, g7] = groups as [number, number, number, number, number, number, number, number]
  const zeroPrefix = (n: number) => groups.slice(0, n).every((g) => g === 0)
  if (zeroPrefix(8) || (zeroPrefix(7) && g7 === 1)) return 'localhost'
  // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) carry an IPv4 address.
  const embedded = [g6 >> 8, g6 & 0xff, g7 >> 8, g7 & 0xff]
  if (zeroPrefix(5) && (g5 === 0xffff || g5 === 0)) return classifyIpv4(embedded)
  if (g0 === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((g) => g === 0)) return classifyIpv4(embedded)
  if ((g0 & 0xffc0) === 0xfe80) return 'link-local'
  // Unique-local (fc00::/7), multicast (ff00::/8) and the deprecated site-local (fec0::/10).
  if ((g0 & 0xfe00) === 0xfc00 || (g0 & 0xff00) === 0xff00 || (g0 & 0xffc0) === 0xfec0) return 'local'
  return 'public'
}

function classifyAddress(address: string): AddressClass {
  // The original names the usual local addresses apart from the rest of the loopback range.
  if (['127.0.0.1', '0.0.0.0', '::1', '::'].includes(address)) return 'localhost'
  const v4 = net.isIPv4(address) ? ipv4Bytes(address) : null
  if (v4 !== null) return classifyIpv4(v4)
  const v6 = ipv6Groups(address)
  // An address that cannot be read is not trusted.
  return v6 === null ? 'local' : classifyIpv6(v6)
}

/** The original's wording for each refused class. */
const REFUSALS: Record<Exclude<AddressClass, 'public'>, string> = {
  localhost: 'Requests to localhost are not allowed',
  loopback: 'Requests to loopback addresses are not allowed',
  local: 'Requests to the local network are not allowed',
  'link-local': 'Requests to the link local network are not allowed',
}

interface Vetted {
  url: URL
  /**
   * The address the request connects to, pinned so that no second lookup happens; null for a name
   * that does not resolve, which may still be saved (it may resolve by the time it is used) but is
   * never sent to: letting the system resolve it again is how a rebinding name reaches inside.
   */
  address: { address: string; family: 4 | 6 } | null
}

/** The message for a name that resolves to nothing, the original's. */
const UNRESOLVED = 'Host cannot be resolved or invalid'

async function lookupAll(host: string): Promise<{ address: string; family: number }[]> {
  if (net.isIP(host) !== 0) return [{ address: host, family: net.isIP(host) }]
  try {
    return await dns.promises.lookup(host, { all: true, verbatim: true })
  } catch {
    return []
  }
}

/** Either the URL with the address to connect to, or the reason it is refused. */
async function vet(ctx: Ctx, rawUrl: string, allowLocal: boolean): Promise<Vetted | string> {
  let url: URL
  try {
    url = new URL(rawUrl)
  } catch {
    return 'URI is invalid'
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'Only allowed protocols are http, https'
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1')
  if (!/^[\p{L}\p{N}[:]/u.test(host)) return 'Hostname needs to start with an alphanumeric character'
  const local = allowLocal || (await getApplicationSettings(ctx.db)).allow_local_requests_from_hooks_and_services
  if (!local && (host.toLowerCase() === 'localhost' || host.toLowerCase().endsWith('.localhost'))) return REFUSALS.localhost
  const addresses = await lookupAll(host)
  if (addresses.length === 0) return { url, address: null }
  if (!local) {
    for (const { address } of addresses) {
      const kind = classifyAddress(address)
      if (kind !== 'public') return REFUSALS[kind]
    }
  }
  const first = addresses[0]!
  return { url, address: { address: first.address, family: first.family === 6 ? 6 : 4 } }
}

export interface OutboundOptions {
  /** Local addresses allowed whatever the setting (system hooks, which only administrators make). */
  allowLocal?: boolean
}

/** Null when Ingot may send to `url`; otherwise why not, in the original's words. */
export async function checkOutboundUrl(ctx: Ctx, url: string, options: OutboundOptions = {}): Promise<string | null> {
  const vetted = await vet(ctx, url, options.allowLocal ?? false)
  return typeof vetted === 'string' ? vetted : null
}

// ---- sending ----------------------------------------------------------------------------------

/** A counting semaphore: the process-wide cap on requests in flight. */
class Slots {
  private free: number
  private readonly waiting: (() => void)[] = []

  constructor(size: number) {
    this.free = size
  }

  /** Resolves when a slot is taken; `signal` gives up waiting (the slot is then not taken). */
  acquire(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(new OutboundError('timeout', 'Timed out waiting to send'))
    if (this.free > 0) {
      this.free -= 1
      return Promise.resolve()
    }
    return new Promise((resolve, reject) => {
      const grant = () => {
        signal.removeEventListener('abort', giveUp)
        resolve()
      }
      const giveUp = () => {
        const index = this.waiting.indexOf(grant)
        if (index !== -1) this.waiting.splice(index, 1)
        reject(new OutboundError('timeout', 'Timed out waiting to send'))
      }
      signal.addEventListener('abort', giveUp, { once: true })
      this.waiting.push(grant)
    })
  }

  release(): void {
    const next = this.waiting.shift()
    if (next === undefined) this.free += 1
    else next()
  }
}

const slots = new Slots(MAX_CONCURRENT_REQUESTS)

export interface OutboundRequest extends OutboundOptions {
  url: string
  body: unknown
  headers?: Record<string, string>
  /** Check the receiver's TLS certificate (default true). */
  verifyTls?: boolean
  /** Abandons the request early (the job sending it hit its time limit, or the process is stopping). */
  signal?: AbortSignal
}

/** Only the status: what a receiver says is never shown to whoever pointed Ingot at it. */
export interface OutboundResponse {
  status: number
}

type Pinned = Vetted & { address: NonNullable<Vetted['address']> }

function send(vetted: Pinned, request: OutboundRequest, payload: Buffer, signal: AbortSignal): Promise<OutboundResponse> {
  const { url, address } = vetted
  const secure = url.protocol === 'https:'
  // The connection goes to the address vetted, never to a second answer for the name.
  const lookup: net.LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all) callback(null, [address] as never)
    else callback(null, address.address, address.family)
  }
  const options: https.RequestOptions = {
    method: 'POST',
    headers: {
      ...request.headers,
      'Content-Type': 'application/json',
      'Content-Length': String(payload.length),
      'User-Agent': `Ingot/${COMPATIBLE_VERSION}`,
    },
    signal,
    agent: false,
    lookup,
    ...(secure ? { rejectUnauthorized: request.verifyTls ?? true } : {}),
  }
  return new Promise((resolve, reject) => {
    const req = (secure ? https : http).request(url, options, (res) => {
      // The answer is read to its end (so the exchange completes) and counted, not kept.
      let size = 0
      res.on('data', (chunk: Buffer) => {
        size += chunk.length
        if (size > MAX_RESPONSE_BYTES) {
          reject(new OutboundError('too-large', `Response is larger than ${MAX_RESPONSE_BYTES} bytes`))
          req.destroy()
        }
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0 }))
      res.on('error', (err) => reject(toOutboundError(err, signal, request.signal)))
    })
    req.on('error', (err) => reject(toOutboundError(err, signal, request.signal)))
    req.end(payload)
  })
}

function toOutboundError(err: Error, signal: AbortSignal, caller?: AbortSignal): OutboundError {
  if (err instanceof OutboundError) return err
  if (caller?.aborted) return new OutboundError('timeout', 'Request aborted')
  if (signal.aborted) return new OutboundError('timeout', 'Request timed out')
  const code = (err as { code?: unknown }).code
  return new OutboundError('network', typeof code === 'string' ? `${code}: ${err.message}` : err.message)
}

/**
 * POSTs `body` as JSON. The URL is checked again now (settings or DNS may have changed since it was
 * saved), a name that does not resolve is refused, and the connection goes to the address checked;
 * redirects are answered as they come, never followed. Throws OutboundError.
 */
export async function postJson(ctx: Ctx, request: OutboundRequest): Promise<OutboundResponse> {
  const timeout = AbortSignal.timeout(ctx.config.outboundTimeoutMs)
  const signal = request.signal === undefined ? timeout : AbortSignal.any([timeout, request.signal])
  const vetted = await vet(ctx, request.url, request.allowLocal ?? false)
  if (typeof vetted === 'string') throw new OutboundError('blocked', vetted)
  if (vetted.address === null) throw new OutboundError('blocked', UNRESOLVED)
  const pinned: Pinned = { ...vetted, address: vetted.address }
  const payload = Buffer.from(JSON.stringify(request.body ?? null))
  await slots.acquire(signal)
  try {
    return await send(pinned, request, payload, signal)
  } finally {
    slots.release()
  }
}

// ---- uploading a file ---------------------------------------------------------------------------

export interface OutboundUpload extends OutboundOptions {
  url: string
  method: 'PUT' | 'POST'
  /** The raw request body, streamed; `size` bytes long (sent as Content-Length). */
  body: Readable
  size: number
  contentType?: string
  /** The whole exchange's limit (a large file takes long); the configured outbound timeout when unset. */
  timeoutMs?: number
  signal?: AbortSignal
}

/** The receiver's answer to an upload: its status and reason, and the start of its body (for its error). */
export interface OutboundUploadResponse {
  status: number
  statusText: string
  /** At most MAX_RESPONSE_BYTES of the answer's body, as text. */
  body: string
}

/**
 * Sends a file as the raw body of a PUT or POST (the project export's upload to a URL its user
 * gave), under the same address rules as postJson: checked now, a name that does not resolve
 * refused, the connection pinned to the address checked, no redirects followed. The body stream is
 * always consumed or destroyed. Throws OutboundError.
 */
export async function uploadStream(ctx: Ctx, request: OutboundUpload): Promise<OutboundUploadResponse> {
  const timeout = AbortSignal.timeout(request.timeoutMs ?? ctx.config.outboundTimeoutMs)
  const signal = request.signal === undefined ? timeout : AbortSignal.any([timeout, request.signal])
  const vetted = await vet(ctx, request.url, request.allowLocal ?? false).catch((err: unknown) => { request.body.destroy(); throw err })
  if (typeof vetted === 'string' || vetted.address === null) {
    request.body.destroy()
    throw new OutboundError('blocked', typeof vetted === 'string' ? vetted : UNRESOLVED)
  }
  const { url } = vetted
  const address = vetted.address
  const secure = url.protocol === 'https:'
  const lookup: net.LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all) callback(null, [address] as never)
    else callback(null, address.address, address.family)
  }
  await slots.acquire(signal).catch((err: unknown) => { request.body.destroy(); throw err })
  try {
    return await new Promise<OutboundUploadResponse>((resolve, reject) => {
      const req = (secure ? https : http).request(url, {
        method: request.method,
        headers: {
          'Content-Type': request.contentType ?? 'application/octet-stream',
          'Content-Length': String(request.size),
          'User-Agent': `Ingot/${COMPATIBLE_VERSION}`,
        },
        signal,
        agent: false,
        lookup,
      }, (res) => {
        const kept: Buffer[] = []
        let size = 0
        res.on('data', (chunk: Buffer) => {
          if (size < MAX_RESPONSE_BYTES) kept.push(chunk.subarray(0, MAX_RESPONSE_BYTES - size))
          size += chunk.length
        })
        res.on('end', () => resolve({ status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', body: Buffer.concat(kept).toString('utf8') }))
        res.on('error', (err) => reject(toOutboundError(err, signal, request.signal)))
      })
      req.on('error', (err) => {
        request.body.destroy()
        reject(toOutboundError(err, signal, request.signal))
      })
      request.body.on('error', (err) => req.destroy(err))
      request.body.pipe(req)
    })
  } finally {
    // A receiver may answer before reading the whole body: the rest of the file is not sent, and its stream is closed.
    request.body.destroy()
    slots.release()
  }
}
