// A step of a job as the original runner's bash shell runs it: one script, `set -eo pipefail`,
// each command echoed to the trace as `$ command` (green) before it runs, so the first command
// that fails ends the step with its exit status. The step runs as a process group of its own (in
// the sandbox when there is one), killed whole at its time limit or when the job is canceled.
import { spawn } from 'node:child_process'
import fs from 'node:fs/promises'
import path from 'node:path'
import type { JobDirs, Sandbox } from './sandbox.js'

export type StepOutcome = 'success' | 'failed' | 'timeout' | 'aborted'

export interface StepRun {
  sandbox: Sandbox
  dirs: JobDirs
  /** The working directory as the job sees it. */
  cwd: string
  env: Record<string, string>
  commands: readonly string[]
  /** A name for the script file. */
  name: string
  timeoutMs: number
  signal: AbortSignal
  output(chunk: Buffer): void
}

/** The bash script of a step. */
export function stepScript(commands: readonly string[]): string {
  const lines = ['set -eo pipefail', 'set +o noclobber']
  for (const command of commands) {
    lines.push(`echo ${ansiC(`\x1b[32;1m$ ${command}\x1b[0;m`)}`, command)
  }
  return `${lines.join('\n')}\n`
}

/** `text` quoted for bash as $'…', control characters escaped. */
export function ansiC(text: string): string {
  const escaped = text.replace(/[\\'\x00-\x1f\x7f]/g, (char) => {
    if (char === '\\') return '\\\\'
    if (char === "'") return "\\'"
    if (char === '\n') return '\\n'
    return `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`
  })
  return `$'${escaped}'`
}

/** Runs the commands as one bash script; how the step ended. */
export async function runStep(run: StepRun): Promise<{ outcome: StepOutcome; exitCode: number | null }> {
  // The script is a file in the job's own tmp: no size limit on arguments, nothing in `ps`.
  const scriptName = `.ingot-${run.name}.sh`
  await fs.writeFile(path.join(run.dirs.tmp, scriptName), stepScript(run.commands), { mode: 0o600 })
  const insideScript = path.join(run.sandbox.inside(run.dirs).tmp, scriptName)
  const command = run.sandbox.command(run.dirs, run.cwd, ['/bin/bash', '--noprofile', '--norc', insideScript])
  if (run.signal.aborted) return { outcome: 'aborted', exitCode: null }
  return new Promise((resolve) => {
    const child = spawn(command.file, command.args, { cwd: command.cwd, env: run.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
    let stopped: StepOutcome | null = null
    const killGroup = () => {
      try {
        process.kill(-child.pid!, 'SIGKILL')
      } catch {
        // already gone
      }
    }
    const stop = (why: StepOutcome) => {
      stopped ??= why
      killGroup()
    }
    const timer = setTimeout(() => stop('timeout'), run.timeoutMs)
    const onAbort = () => stop('aborted')
    run.signal.addEventListener('abort', onAbort, { once: true })
    child.stdout.on('data', run.output)
    child.stderr.on('data', run.output)
    let settled = false
    const finish = (exitCode: number | null) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      run.signal.removeEventListener('abort', onAbort)
      resolve({ outcome: stopped ?? (exitCode === 0 ? 'success' : 'failed'), exitCode })
    }
    child.on('error', (err) => {
      run.output(Buffer.from(`${err.message}\n`))
      finish(null)
    })
    // 'close' waits for the output to end. Processes the script left behind die with it, and one
    // that escaped the group while holding the output open does not hold the step.
    child.on('close', (code) => finish(code))
    child.on('exit', (code) => {
      killGroup()
      setTimeout(() => finish(code), 1000).unref()
    })
  })
}
