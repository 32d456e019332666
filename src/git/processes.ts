// How many git processes this process has running and has started, by git command (`cat-file`,
// `upload-pack`, `repack`, …), for the metrics (metrics/process.ts reads them when scraped). Every
// child is spawned in command.ts, which calls countGitProcess; counting is two integer updates.
import type { ChildProcess } from 'node:child_process'

interface ProcessCount {
  running: number
  started: number
  /** The most running at once since this process started: what the limits on git work let through. */
  most: number
}

const counts = new Map<string, ProcessCount>()

/** The counts by git command; commands seen once stay in the map, at zero running when idle. */
export function gitProcessCounts(): ReadonlyMap<string, Readonly<ProcessCount>> {
  return counts
}

/**
 * The git command an argument list runs, after the global options (`-c name=value`, `-C dir`,
 * `--git-dir dir`). Our argument lists name it as a literal, so the set of commands stays small.
 */
function commandOf(args: readonly string[]): string {
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] as string
    if (arg === '-c' || arg === '-C' || arg === '--git-dir' || arg === '--shallow-file') i += 1
    else if (!arg.startsWith('-')) return arg
  }
  return 'git'
}

/** Counts a child git process as running from now until it exits (or fails to start). */
export function countGitProcess(child: ChildProcess, args: readonly string[]): void {
  const command = commandOf(args)
  let count = counts.get(command)
  if (count === undefined) counts.set(command, count = { running: 0, started: 0, most: 0 })
  count.running += 1
  count.started += 1
  count.most = Math.max(count.most, count.running)
  let ended = false
  const end = () => {
    if (ended) return
    ended = true
    count.running -= 1
  }
  child.once('exit', end)
  // 'error' also reports a failed kill of a running child: only a child that never started has no pid.
  child.once('error', () => { if (child.pid === undefined) end() })
}
