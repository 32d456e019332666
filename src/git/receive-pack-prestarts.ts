// A push over HTTP is two requests: the ref advertisement (GET …/info/refs?service=git-receive-pack)
// and, once the client has built its pack, the POST that runs receive-pack. Starting a process
// forks the whole server (2–3 ms of blocked event loop), so an authorized push's advertisement
// starts the POST's receive-pack once it is answered, while the client packs, and the POST takes
// it. receive-pack reads nothing of the push before its stdin brings the commands, so starting it
// early changes nothing it does. One not taken in time is stopped; few wait at once, so that
// advertisements alone cannot pile up processes.
import { startService, type ServiceOptions, type ServiceProcess } from './smart-http.js'

/** How long a started receive-pack waits for its POST: a client builds a large pack for longer. */
export const PRESTART_KEEP_MS = 10_000
/** How many wait at once, over all repositories. */
export const PRESTART_LIMIT = 4

interface Waiting {
  service: ServiceProcess
  timer: NodeJS.Timeout
}

/** Everything that makes two receive-packs interchangeable: the arguments and the environment. */
function keyOf(options: ServiceOptions): string {
  return JSON.stringify([options.gitDir, options.hooksDir, options.maxInputBytes ?? 0, options.protocol, options.timeoutMs, options.idleTimeoutMs])
}

function hasExited(service: ServiceProcess): boolean {
  return service.child.exitCode !== null || service.child.signalCode !== null
}

export class ReceivePackPrestarts {
  /** At most one per kind: a second pusher of the same repository meanwhile starts its own. */
  private readonly waiting = new Map<string, Waiting>()

  constructor(private readonly limit = PRESTART_LIMIT, private readonly keepMs = PRESTART_KEEP_MS) {}

  /** Starts the receive-pack a POST with these options runs, unless one waits already or too many do. */
  prestart(options: ServiceOptions): void {
    const key = keyOf(options)
    if (this.waiting.has(key) || this.waiting.size >= this.limit) return
    let service: ServiceProcess
    try {
      service = startService('git-receive-pack', options)
    } catch {
      return // (the POST starts its own, and answers for a failure)
    }
    // Taken after waiting up to half its idle limit, it still has the other half to be given data.
    const timer = setTimeout(() => this.stop(key, service), Math.min(this.keepMs, options.idleTimeoutMs / 2)).unref()
    const forget = () => this.forget(key, service)
    service.child.once('exit', forget)
    // A failed start is told by 'error'; a listener keeps it from being thrown.
    service.child.once('error', forget)
    this.waiting.set(key, { service, timer })
  }

  /** The waiting receive-pack for these options, now the caller's to run; null when none waits. */
  take(options: ServiceOptions): ServiceProcess | null {
    const key = keyOf(options)
    const entry = this.waiting.get(key)
    if (entry === undefined) return null
    this.forget(key, entry.service)
    return hasExited(entry.service) || entry.service.child.pid === undefined ? null : entry.service
  }

  /** Stops every waiting receive-pack (the server closes). */
  close(): void {
    for (const [key, { service }] of [...this.waiting]) this.stop(key, service)
  }

  private stop(key: string, service: ServiceProcess): void {
    this.forget(key, service)
    if (!hasExited(service)) service.child.kill()
  }

  /** No longer waiting: `service` if it still holds the place of `key`. */
  private forget(key: string, service: ServiceProcess): void {
    const entry = this.waiting.get(key)
    if (entry?.service !== service) return
    clearTimeout(entry.timer)
    this.waiting.delete(key)
  }
}
