// What every Ingot process shares whichever app or context it runs: memory, CPU, event loop and
// garbage collection (prom-client's default metrics), and the git processes it has running. Made
// once per process, as these facts are the process's own; the HTTP metrics are per app.
import { Gauge, Counter, Registry, collectDefaultMetrics } from 'prom-client'
import { gitProcessCounts } from '../git/processes.js'

let registry: Registry | null = null

export function processMetrics(): Registry {
  if (registry !== null) return registry
  registry = new Registry()
  collectDefaultMetrics({ register: registry })
  registerGitProcessMetrics(registry)
  return registry
}

/** Read from git/processes.ts when scraped, so spawning a child costs no metrics call. */
function registerGitProcessMetrics(registry: Registry): void {
  new Gauge({
    name: 'ingot_git_processes',
    help: 'Git processes running, by git command (cat-file readers, upload-pack, receive-pack, …)',
    labelNames: ['command'],
    registers: [registry],
    collect() {
      for (const [command, count] of gitProcessCounts()) this.set({ command }, count.running)
    },
  })
  new Gauge({
    name: 'ingot_git_processes_most',
    help: 'The most git processes running at once since the process started, by git command',
    labelNames: ['command'],
    registers: [registry],
    collect() {
      for (const [command, count] of gitProcessCounts()) this.set({ command }, count.most)
    },
  })
  new Counter({
    name: 'ingot_git_processes_started_total',
    help: 'Git processes started, by git command',
    labelNames: ['command'],
    registers: [registry],
    collect() {
      this.reset()
      for (const [command, count] of gitProcessCounts()) this.inc({ command }, count.started)
    },
  })
}
