// Tells runners' held job requests (the long poll of POST /jobs/request) that jobs became pending
// in this process: transitions.ts and create-pipeline.ts notify once their transaction has
// committed, and each held request wakes and looks for a job at once. Jobs made pending by another
// process are not heard here; held requests also look again every second (runner-protocol/).
export class PendingJobsSignal {
  private waiters = new Set<() => void>()
  private closed = false

  /** Wakes every held request. */
  notify(): void {
    const waiters = [...this.waiters]
    this.waiters.clear()
    for (const wake of waiters) wake()
  }

  /**
   * Resolves at the next notify, after `ms`, when `abort` fires, or at once once closed; true when
   * woken by a notify.
   */
  wait(ms: number, abort?: AbortSignal): Promise<boolean> {
    if (this.closed || abort?.aborted === true) return Promise.resolve(false)
    return new Promise((resolve) => {
      const done = (notified: boolean) => {
        clearTimeout(timer)
        this.waiters.delete(onNotify)
        abort?.removeEventListener('abort', onAbort)
        resolve(notified)
      }
      const onNotify = () => done(true)
      const onAbort = () => done(false)
      const timer = setTimeout(() => done(false), ms)
      this.waiters.add(onNotify)
      abort?.addEventListener('abort', onAbort, { once: true })
    })
  }

  /** Whether the process is closing: held requests answer now, and none is held any more. */
  get isClosed(): boolean {
    return this.closed
  }

  /** At shutdown: every held request answers at once, and none waits from now on. */
  close(): void {
    this.closed = true
    this.notify()
  }
}
