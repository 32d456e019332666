// The hook `git receive-pack` runs for Ingot, and Ingot's side of a push. Ingot starts receive-pack
// with two extra pipes (fds 3 and 4) and `core.hooksPath` naming the directory below: the
// pre-receive script writes the push's ref updates and quarantine variables to fd 3, then reads a
// verdict from fd 4 (default deny: no answer is a refusal). One `sh` and nothing else (shell
// builtins only), and no process of Ingot's own per push. What took effect is read from
// receive-pack's report to its client (git/report-status.ts), and recorded before the push's
// answer ends, so that the client's push does not end before Ingot has recorded what it did.
import fs from 'node:fs/promises'
import path from 'node:path'
import { StringDecoder } from 'node:string_decoder'
import type { Readable, Writable } from 'node:stream'
import { ReportStatusReader } from './report-status.js'

/** The child's fd the hooks write to, and the one they read verdicts from. */
export const HOOK_REQUEST_FD = 3
export const HOOK_VERDICT_FD = 4

const PRE_RECEIVE = `#!/bin/sh
# Installed by Ingot: asks Ingot whether this push may move its refs.
{
  echo pre-receive
  echo "Q=$GIT_QUARANTINE_PATH"
  echo "O=$GIT_OBJECT_DIRECTORY"
  echo "A=$GIT_ALTERNATE_OBJECT_DIRECTORIES"
  while IFS= read -r update; do printf '%s\\n' "$update"; done
  echo .
} >&${HOOK_REQUEST_FD} || exit 1
IFS= read -r verdict <&${HOOK_VERDICT_FD} || exit 1
while IFS= read -r line <&${HOOK_VERDICT_FD} && [ "$line" != . ]; do printf '%s\\n' "$line" >&2; done
[ "$verdict" = allow ]
`

/**
 * Writes the hook script into `dir` (replacing an outdated one atomically), removes the
 * post-receive hook earlier versions installed, and returns `dir`.
 */
export async function installHooks(dir: string): Promise<string> {
  await fs.mkdir(dir, { recursive: true })
  await fs.rm(path.join(dir, 'post-receive'), { force: true })
  const file = path.join(dir, 'pre-receive')
  const current = await fs.readFile(file, 'utf8').catch(() => null)
  if (current === PRE_RECEIVE) return dir
  // A receive-pack running meanwhile executes either the old script or the new one, never half of one.
  const temporary = `${file}.${process.pid}.tmp`
  await fs.writeFile(temporary, PRE_RECEIVE, { mode: 0o755 })
  await fs.rename(temporary, file)
  return dir
}

export interface HookRefUpdate {
  /** Full ref name. */
  ref: string
  oldId: string
  newId: string
}

export interface PreReceiveRequest {
  updates: HookRefUpdate[]
  /** The variables git gives the hook, so that objects still in quarantine are found. */
  env: { GIT_QUARANTINE_PATH: string; GIT_OBJECT_DIRECTORY: string; GIT_ALTERNATE_OBJECT_DIRECTORIES: string }
}

export interface Verdict {
  allow: boolean
  /** Lines shown on the client's terminal (`remote: …`). */
  messages: readonly string[]
}

export interface HookHandlers {
  preReceive(request: PreReceiveRequest): Promise<Verdict>
  /**
   * The allowed updates that took effect, called once receive-pack's report is whole (or, with no
   * report, once it has exited); the push's answer ends once this settles.
   */
  pushed(updates: HookRefUpdate[]): Promise<void>
  /**
   * The object a ref names now (null: no such ref), for a client that asked for no report: then
   * an allowed update took effect when its ref names its new id.
   */
  refTarget(ref: string): Promise<string | null>
  /** A handler failed or the hook spoke out of turn (a failed pre-receive check refuses the push). */
  onError(err: unknown): void
}

/** One receive-pack's push, as Ingot follows it. */
export interface PushWatch {
  /** Each chunk of receive-pack's stdout, in order, as it goes to the client. */
  observe(chunk: Buffer): void
  /**
   * Records what took effect, once: begun by observe as soon as the report is whole, or else
   * called once receive-pack has exited and all its output was observed; settles when recorded.
   */
  finish(): Promise<void>
}

/** The verdict given when deciding failed: never allow what was not checked. */
const FAILED_CHECK: Verdict = { allow: false, messages: ['The push could not be checked. Please try again later.'] }

function parseUpdate(line: string): HookRefUpdate | null {
  const match = /^([0-9a-f]{40,64}) ([0-9a-f]{40,64}) (\S+)$/.exec(line)
  return match === null ? null : { oldId: match[1]!, newId: match[2]!, ref: match[3]! }
}

/** A message line the hook can relay: one line, never the end marker. */
function relayable(message: string): string[] {
  return message.split(/\r?\n/).map((line) => (line === '.' ? '. ' : line))
}

/**
 * Serves the hook of one receive-pack: reads its requests from `fromHooks` (the child's fd 3) and
 * answers on `toHooks` (fd 4); and learns what took effect from receive-pack's output.
 */
export function serveHooks(fromHooks: Readable, toHooks: Writable, handlers: HookHandlers): PushWatch {
  const decoder = new StringDecoder('utf8')
  const report = new ReportStatusReader()
  let allowed: HookRefUpdate[] = []
  let pending = ''
  let message: string[] | null = null
  toHooks.on('error', () => {}) // the hook may be gone (killed push); its exit status tells receive-pack

  const answer = (verdict: Verdict) => {
    const lines = [verdict.allow ? 'allow' : 'deny', ...verdict.messages.flatMap(relayable), '.']
    toHooks.write(`${lines.join('\n')}\n`)
  }

  const finishMessage = (lines: string[]) => {
    const [hook, ...rest] = lines
    if (hook === 'pre-receive') {
      const variables = new Map(rest.slice(0, 3).map((line) => [line.slice(0, 2), line.slice(2)]))
      const updates = rest.slice(3).map(parseUpdate)
      if (updates.some((u) => u === null) || !['Q=', 'O=', 'A='].every((key) => variables.has(key))) {
        handlers.onError(new Error('malformed pre-receive request'))
        answer(FAILED_CHECK)
        return
      }
      const env = {
        GIT_QUARANTINE_PATH: variables.get('Q=') ?? '',
        GIT_OBJECT_DIRECTORY: variables.get('O=') ?? '',
        GIT_ALTERNATE_OBJECT_DIRECTORIES: variables.get('A=') ?? '',
      }
      handlers.preReceive({ updates: updates as HookRefUpdate[], env }).then((verdict) => {
        if (verdict.allow) allowed = updates as HookRefUpdate[]
        answer(verdict)
      }, (err: unknown) => {
        handlers.onError(err)
        answer(FAILED_CHECK)
      })
    } else if (hook === 'post-receive') {
      // The script of an earlier version, still installed by one running meanwhile: let it end.
      toHooks.write('recorded\n')
    } else {
      handlers.onError(new Error(`unknown hook request ${JSON.stringify(hook)}`))
    }
  }

  fromHooks.on('data', (chunk: Buffer) => {
    pending += decoder.write(chunk)
    let start = 0
    for (let end = pending.indexOf('\n'); end !== -1; end = pending.indexOf('\n', start)) {
      const line = pending.slice(start, end)
      start = end + 1
      if (message === null) message = []
      if (line === '.' && message.length > 0) {
        const lines = message
        message = null
        finishMessage(lines)
      } else {
        message.push(line)
      }
    }
    pending = pending.slice(start)
  })
  fromHooks.on('error', (err) => handlers.onError(err))

  const tookEffect = async (): Promise<HookRefUpdate[]> => {
    const reported = report.refs()
    if (reported !== null) return allowed.filter((update) => reported.has(update.ref))
    const now = await Promise.all(allowed.map((update) => handlers.refTarget(update.ref)))
    // A deletion (a new id of zeros) took effect when the ref is gone.
    return allowed.filter((update, i) => (now[i] ?? null) === null ? /^0+$/.test(update.newId) : now[i] === update.newId)
  }

  let finished: Promise<void> | null = null
  const finish = () => (finished ??= (async () => {
    if (allowed.length === 0) return
    const updates = await tookEffect()
    if (updates.length > 0) await handlers.pushed(updates)
  })().catch((err: unknown) => handlers.onError(err)))
  return {
    observe: (chunk) => {
      report.observe(chunk)
      // The refs have moved once the report is whole: recording starts while receive-pack exits.
      if (report.refs() !== null) void finish()
    },
    finish,
  }
}
