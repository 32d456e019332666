// The git side of the smart HTTP protocol (as `git http-backend` speaks it): `upload-pack` and
// `receive-pack` in --stateless-rpc mode, their ref advertisements with the `# service=` preamble
// (left out for protocol v2), content types and the headers that keep proxies from caching.
// receive-pack's advertisement is Ingot's own where refs-reader.ts can read the refs exactly (and
// so is protocol v2's ls-refs request, in ls-refs.ts).
// Streams only: packs pass through and are never held in memory.
import type { Duplex } from 'node:stream'
import { spawnGit, type GitProcess } from './command.js'
import { HOOK_REQUEST_FD, HOOK_VERDICT_FD } from './hooks.js'
import { PACK_OBJECTS_CONTROL_FD, PACK_OBJECTS_DATA_FD, PACK_OBJECTS_PROGRESS_FD, hookCommandOf, type PackObjectsChannels } from './pack-objects-cache.js'
import { firstPktLine, pktLine } from './pkt-line.js'
import { readRefs, type Ref } from './refs-reader.js'
import { NULL_OID } from './repository.js'

export type GitService = 'git-upload-pack' | 'git-receive-pack'
export function isGitService(value: unknown): value is GitService {
  return value === 'git-upload-pack' || value === 'git-receive-pack'
}

export const advertisementType = (service: GitService) => `application/x-${service}-advertisement`
export const requestType = (service: GitService) => `application/x-${service}-request`
export const resultType = (service: GitService) => `application/x-${service}-result`

/** What git http-backend sends so that no cache keeps a ref advertisement or a pack. */
export const NO_CACHE_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'no-cache, max-age=0, must-revalidate',
  pragma: 'no-cache',
  expires: 'Fri, 01 Jan 1980 00:00:00 GMT',
}

/** Namespaces Ingot keeps for itself: invisible to pushes, so nobody can write them. */
const HIDDEN_FROM_PUSHES = ['refs/merge-requests', 'refs/keep-around', 'refs/environments', 'refs/pipelines', 'refs/tmp']

/** What receive.hideRefs hides for each of HIDDEN_FROM_PUSHES: the name itself and the names under it. */
function isHiddenFromPushes(name: string): boolean {
  return HIDDEN_FROM_PUSHES.some((prefix) => name === prefix || name.startsWith(`${prefix}/`))
}

/**
 * The value of a client's `Git-Protocol` header for the GIT_PROTOCOL variable, as git http-backend
 * passes it (`version=2`, keys joined by `:`); null when absent or when it holds anything else.
 */
export function gitProtocolOf(header: string | string[] | undefined): string | null {
  const value = Array.isArray(header) ? header.join(':') : header
  if (value === undefined || value === '' || value.length > 256 || !/^[A-Za-z0-9=:._-]+$/.test(value)) return null
  return value
}

export function isProtocolV2(protocol: string | null): boolean {
  return protocol !== null && protocol.split(':').includes('version=2')
}

export interface ServiceOptions {
  gitDir: string
  /** GIT_PROTOCOL for git, from gitProtocolOf. */
  protocol: string | null
  /** For receive-pack: the directory installHooks filled. */
  hooksDir?: string
  /**
   * For upload-pack: the pack-objects cache's hook (pack-objects-cache.ts), run by upload-pack in
   * place of pack-objects and talking with Ingot over fds 3 to 5; absent to pack without it.
   */
  packObjectsHook?: string
  /** For receive-pack: the largest pack it takes, in bytes (receive.maxInputSize); 0 for any. */
  maxInputBytes?: number
  /** git is stopped at this time limit… */
  timeoutMs: number
  /** …and when no data moved (see the service's `touch`) for this long. */
  idleTimeoutMs: number
}

function serviceArgs(service: GitService, options: ServiceOptions): string[] {
  if (service === 'git-upload-pack') {
    // Only protected configuration (the command line's included) may name the hook: git ignores it in a repository's.
    return options.packObjectsHook === undefined ? ['upload-pack'] : ['-c', `uploadpack.packObjectsHook=${hookCommandOf(options.packObjectsHook)}`, 'upload-pack']
  }
  if (options.hooksDir === undefined) throw new Error('receive-pack needs the hooks directory')
  // A pack over maxInputSize is refused by git itself, with its own words to the pusher
  // ("fatal: pack exceeds maximum allowed size"), before it is stored.
  const maxInput = options.maxInputBytes !== undefined && options.maxInputBytes > 0 ? ['-c', `receive.maxInputSize=${options.maxInputBytes}`] : []
  return [
    // No `gc --auto` after each push: it would run before the push's answer ends, and housekeeping
    // jobs (counted per push) keep the repository packed.
    '-c', `core.hooksPath=${options.hooksDir}`, '-c', 'receive.autogc=false',
    ...HIDDEN_FROM_PUSHES.flatMap((prefix) => ['-c', `receive.hideRefs=${prefix}`]),
    ...maxInput,
    'receive-pack',
  ]
}

/** The extra fds a service gets: receive-pack's hook pipes, the pack-objects cache's sockets. */
function extraFdsOf(service: ConnectedService, options: ServiceOptions): number {
  if (service === 'git-receive-pack') return 2
  return service === 'git-upload-pack' && options.packObjectsHook !== undefined ? 3 : 0
}

function serviceEnv(options: ServiceOptions): Record<string, string> {
  return options.protocol === null ? {} : { GIT_PROTOCOL: options.protocol }
}

/** The exit code of a child, once it has exited (null when killed by a signal). */
function exitOf(child: GitProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode)
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)))
}

/** A service that failed before it wrote a byte of its answer. */
export class ServiceFailedError extends Error {}

/**
 * The stdout of a started service as a response body, with `preamble` before its first byte. A
 * git that fails before answering throws ServiceFailedError before any byte (so the request can
 * still be answered with an error); one that fails midway throws, cutting the response short, so
 * a failure never passes for a complete answer. An abandoned body stops git.
 */
export async function* outputOf(service: ServiceProcess, preamble: Buffer | null = null): AsyncGenerator<Buffer> {
  const { child } = service
  let answered = false
  try {
    for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
      service.touch()
      yield answered || preamble === null ? chunk : Buffer.concat([preamble, chunk])
      answered = true
    }
    const code = await exitOf(child)
    if (code !== 0) {
      const stopped = service.stoppedBy()
      const message = `git ${service.args.join(' ')} failed (${stopped ?? code ?? 'killed'}): ${service.stderrText().trim()}`
      throw answered ? new Error(message) : new ServiceFailedError(message)
    }
    // A service that says nothing and succeeds (receive-pack given no commands): the preamble alone.
    if (!answered && preamble !== null) yield preamble
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill()
  }
}

/**
 * upload-pack's protocol v2 advertisement: its capabilities, no refs, the same bytes for every
 * repository under one git (its version and configuration; every repository here is SHA-1). Asked
 * of git once per process, then answered from memory: a clone or fetch starts one git less.
 */
let uploadPackCapabilities: Buffer | null = null

async function* remembered(advertisement: AsyncGenerator<Buffer>): AsyncGenerator<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of advertisement) {
    chunks.push(chunk)
    yield chunk
  }
  // Only a whole answer: outputOf throws for a git that failed or was cut short.
  uploadPackCapabilities = Buffer.concat(chunks)
}

async function* answered(bytes: Buffer): AsyncGenerator<Buffer> {
  yield bytes
}

/**
 * The answer to `GET …/info/refs?service=…`: the preamble, then the advertisement, streamed;
 * `onExit` hears when git is gone (at once when no git was needed).
 */
export function advertiseRefs(service: GitService, options: ServiceOptions, onExit: () => void = () => {}): AsyncGenerator<Buffer> {
  const v2 = isProtocolV2(options.protocol) && service === 'git-upload-pack'
  if (v2 && uploadPackCapabilities !== null) {
    onExit()
    return answered(uploadPackCapabilities)
  }
  // A push's client sends no Git-Protocol (receive-pack speaks v0 only); any other is git's to answer.
  if (service === 'git-receive-pack' && options.protocol === null) {
    return pushAdvertisement(options, onExit)
  }
  const advertisement = advertisementOfGit(service, options, onExit)
  return v2 ? remembered(advertisement) : advertisement
}

function serviceAnnouncement(service: GitService): Buffer {
  return Buffer.from(`${pktLine(`# service=${service}\n`)}0000`)
}

/** git's own advertisement, from a `--advertise-refs` run. */
function advertisementOfGit(service: GitService, options: ServiceOptions, onExit: () => void): AsyncGenerator<Buffer> {
  const started = spawnGit([...serviceArgs(service, options), '--stateless-rpc', '--advertise-refs', options.gitDir], {
    env: serviceEnv(options), timeoutMs: options.timeoutMs, idleTimeoutMs: options.idleTimeoutMs,
  })
  started.child.stdin.end()
  started.child.once('exit', onExit)
  started.child.once('error', onExit)
  const v2 = isProtocolV2(options.protocol) && service === 'git-upload-pack'
  return v2 ? outputOf(started) : outputOf(started, serviceAnnouncement(service))
}

/**
 * receive-pack's capabilities (the first line's, after its NUL), by what they depend on: git's
 * version, the options serviceArgs gives it and the repository's configuration. Learnt from git's
 * own advertisements: the first push per configuration runs git.
 */
const pushCapabilities = new Map<string, string>()
const MAX_PUSH_CAPABILITIES = 64

function pushCapabilitiesKey(options: ServiceOptions, configText: string): string {
  return `${serviceArgs('git-receive-pack', options).join('\0')}\0\0${configText}`
}

function rememberPushCapabilities(key: string, capabilities: string): void {
  // A push certificate's nonce and a session id change with every run: never the same twice.
  if (/(?:^| )(?:push-cert|session-id)=/.test(capabilities)) return
  if (pushCapabilities.size >= MAX_PUSH_CAPABILITIES) pushCapabilities.delete(pushCapabilities.keys().next().value as string)
  pushCapabilities.set(key, capabilities)
}

/**
 * receive-pack's advertisement (`write_head_info` in git's builtin/receive-pack.c) from Ingot's own
 * reading of the refs, or git's when the reading leaves it to git or the capabilities are not
 * known yet. Started at once, so that `onExit` is heard even if the answer is never read.
 */
function pushAdvertisement(options: ServiceOptions, onExit: () => void): AsyncGenerator<Buffer> {
  const answer = ownPushAdvertisement(options).then(({ advertisement, capabilitiesKey }) => {
    if (advertisement !== null) {
      onExit()
      return answered(advertisement)
    }
    const ofGit = advertisementOfGit('git-receive-pack', options, onExit)
    return capabilitiesKey === null ? ofGit : learnCapabilities(ofGit, capabilitiesKey)
  }, (err: unknown) => {
    onExit()
    throw err
  })
  // Heard by the body when read; a body never read must not leave the failure unhandled.
  answer.catch(() => {})
  return (async function* () { yield* await answer })()
}

async function ownPushAdvertisement(options: ServiceOptions): Promise<{ advertisement: Buffer | null; capabilitiesKey: string | null }> {
  const snapshot = readRefs(options.gitDir)
  // Hidden refs configured in the repository would be git's to apply.
  if (snapshot === null || /hiderefs/i.test(snapshot.configText)) return { advertisement: null, capabilitiesKey: null }
  const capabilitiesKey = pushCapabilitiesKey(options, snapshot.configText)
  const capabilities = pushCapabilities.get(capabilitiesKey)
  return { advertisement: capabilities === undefined ? null : pushAdvertisementOf(snapshot.refs, capabilities), capabilitiesKey }
}

/** Every ref but hidden ones, the first with the capabilities (a placeholder line when there is none), then a flush. */
function pushAdvertisementOf(refs: readonly Ref[], capabilities: string): Buffer {
  const shown = refs.filter((ref) => !isHiddenFromPushes(ref.name))
  const lines = shown.length === 0
    ? [`${NULL_OID} capabilities^{}\0${capabilities}\n`]
    : shown.map((ref, index) => (index === 0 ? `${ref.oid} ${ref.name}\0${capabilities}\n` : `${ref.oid} ${ref.name}\n`))
  return Buffer.concat([serviceAnnouncement('git-receive-pack'), Buffer.from(`${lines.map(pktLine).join('')}0000`, 'latin1')])
}

/** Passes git's advertisement on, and remembers the capabilities of its first line under `key`. */
async function* learnCapabilities(advertisement: AsyncGenerator<Buffer>, key: string): AsyncGenerator<Buffer> {
  const skipped = serviceAnnouncement('git-receive-pack').length
  let head: Buffer | null = Buffer.alloc(0)
  let capabilities: string | null = null
  for await (const chunk of advertisement) {
    if (head !== null) {
      head = Buffer.concat([head, chunk])
      const line = firstPktLine(head.subarray(skipped))
      if (line !== null) {
        const nul = line.indexOf('\0')
        capabilities = nul !== -1 && line.endsWith('\n') ? line.slice(nul + 1, -1) : null
        head = null
      }
    }
    yield chunk
  }
  // Only from a whole answer: outputOf throws for a git that failed or was cut short.
  if (capabilities !== null) rememberPushCapabilities(key, capabilities)
}

/**
 * Starts a service for one request of the client: its stdin takes the request body, its stdout is
 * the response body. receive-pack also gets the hook pipes (fds 3 and 4, see hooksOf). The caller
 * calls `touch()` as request bytes reach git (outputOf does for its answer).
 */
export function startService(service: GitService, options: ServiceOptions) {
  return spawnGit([...serviceArgs(service, options), '--stateless-rpc', options.gitDir], {
    env: serviceEnv(options), extraFds: extraFdsOf(service, options),
    timeoutMs: options.timeoutMs, idleTimeoutMs: options.idleTimeoutMs,
  })
}

export type ServiceProcess = ReturnType<typeof startService>

/** What git over SSH runs: the two services, and upload-archive (`git archive --remote`). */
export type ConnectedService = GitService | 'git-upload-archive'

/**
 * Starts a service that talks with its client over one full-duplex stream for the whole exchange,
 * as over SSH (no --stateless-rpc): stdin from the client, stdout to it. receive-pack gets the
 * hook pipes as startService's.
 */
export function startConnectedService(service: ConnectedService, options: ServiceOptions): ServiceProcess {
  const args = service === 'git-upload-archive' ? ['upload-archive'] : serviceArgs(service, options)
  return spawnGit([...args, options.gitDir], {
    env: serviceEnv(options), extraFds: extraFdsOf(service, options),
    timeoutMs: options.timeoutMs, idleTimeoutMs: options.idleTimeoutMs,
  })
}

/** The hook pipes of a receive-pack started by startService, for serveHooks. */
export function hookPipesOf(service: ServiceProcess): { fromHooks: Duplex; toHooks: Duplex } {
  const stdio = service.child.stdio as unknown as readonly (Duplex | null | undefined)[]
  const fromHooks = stdio[HOOK_REQUEST_FD]
  const toHooks = stdio[HOOK_VERDICT_FD]
  if (!fromHooks || !toHooks) throw new Error('receive-pack was started without its hook pipes')
  return { fromHooks, toHooks }
}

/** The pack-objects cache's sockets of an upload-pack started with `packObjectsHook`, Ingot's ends. */
export function packObjectsChannelsOf(service: ServiceProcess): PackObjectsChannels {
  const stdio = service.child.stdio as unknown as readonly (Duplex | null | undefined)[]
  const [control, data, progress] = [stdio[PACK_OBJECTS_CONTROL_FD], stdio[PACK_OBJECTS_DATA_FD], stdio[PACK_OBJECTS_PROGRESS_FD]]
  if (!control || !data || !progress) throw new Error('upload-pack was started without the pack-objects cache\'s sockets')
  return { control, data, progress }
}
