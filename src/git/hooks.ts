// The hooks `git receive-pack` runs for Ingot, and Ingot's side of their conversation. Ingot starts
// receive-pack with two extra pipes (fds 3 and 4) and `core.hooksPath` naming the directory below:
// the pre-receive script writes the push's ref updates and quarantine variables to fd 3, then reads
// a verdict from fd 4 (default deny: no answer is a refusal); the post-receive script writes the
// updates that took effect and waits until Ingot has handled them. One `sh` per hook and nothing
// else (shell builtins only), and no process of Ingot's own per push.
import fs from 'node:fs/promises'
import path from 'node:path'
import { StringDecoder } from 'node:string_decoder'
import type { Readable, Writable } from 'node:stream'

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

// Waiting for Ingot's acknowledgement keeps receive-pack, and so the client's push, from ending
// before Ingot has recorded what the push did.
const POST_RECEIVE = `#!/bin/sh
# Installed by Ingot: tells Ingot which ref updates took effect.
{
  echo post-receive
  while IFS= read -r update; do printf '%s\\n' "$update"; done
  echo .
} >&${HOOK_REQUEST_FD} || exit 0
IFS= read -r recorded <&${HOOK_VERDICT_FD}
exit 0
`

/** Writes the hook scripts into `dir` (replacing outdated ones atomically) and returns `dir`. */
export async function installHooks(dir: string): Promise<string> {
  await fs.mkdir(dir, { recursive: true })
  for (const [name, script] of [['pre-receive', PRE_RECEIVE], ['post-receive', POST_RECEIVE]] as const) {
    const file = path.join(dir, name)
    const current = await fs.readFile(file, 'utf8').catch(() => null)
    if (current === script) continue
    // A receive-pack running meanwhile executes either the old script or the new one, never half of one.
    const temporary = `${file}.${process.pid}.tmp`
    await fs.writeFile(temporary, script, { mode: 0o755 })
    await fs.rename(temporary, file)
  }
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
  /** The updates that took effect; the push ends once this settles. */
  postReceive(updates: HookRefUpdate[]): Promise<void>
  /** A handler failed or a hook spoke out of turn (a failed pre-receive check refuses the push). */
  onError(err: unknown): void
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
 * Serves the hooks of one receive-pack: reads their requests from `fromHooks` (the child's fd 3)
 * and answers pre-receive on `toHooks` (fd 4).
 */
export function serveHooks(fromHooks: Readable, toHooks: Writable, handlers: HookHandlers): void {
  const decoder = new StringDecoder('utf8')
  let pending = ''
  let message: string[] | null = null
  toHooks.on('error', () => {}) // the hook may be gone (killed push); its exit status tells receive-pack

  const answer = (verdict: Verdict) => {
    const lines = [verdict.allow ? 'allow' : 'deny', ...verdict.messages.flatMap(relayable), '.']
    toHooks.write(`${lines.join('\n')}\n`)
  }

  const finish = (lines: string[]) => {
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
      handlers.preReceive({ updates: updates as HookRefUpdate[], env }).then(answer, (err: unknown) => {
        handlers.onError(err)
        answer(FAILED_CHECK)
      })
    } else if (hook === 'post-receive') {
      handlers.postReceive(rest.map(parseUpdate).filter((u): u is HookRefUpdate => u !== null))
        .catch((err: unknown) => handlers.onError(err))
        .finally(() => toHooks.write('recorded\n'))
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
        finish(lines)
      } else {
        message.push(line)
      }
    }
    pending = pending.slice(start)
  })
  fromHooks.on('error', (err) => handlers.onError(err))
}
