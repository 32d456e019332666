// `ingot admin jobs`: the operator's view of background jobs on the configured database, with or
// without processes working them: how many of each kind wait, run and are dead; the dead ones
// (failed their last attempt) with their errors; and retries of dead jobs, one or all. It goes
// through ctx.jobs as the processes do, on both engines; opening the queue works no job and starts
// no schedule (only `ingot web` and `ingot worker` call start()).
import type { AppContext } from '../context.js'
import type { JobState, JobSummary } from '../jobs/queue.js'
import { CommandFailed, UsageError, parseCommandLine, type Command, type CommandGroup } from './command.js'

const STATES: readonly JobState[] = ['waiting', 'running', 'dead']
const DEFAULT_LIMIT = 50
/** A payload can be large (a web hook's event): its start tells which job it is. */
const PAYLOAD_SHOWN = 200
const ERROR_SHOWN = 500

const showCommand: Omit<Command, 'name'> = {
  summary: 'count background jobs by kind and state, or list the dead ones (--dead)',
  help: `Usage: ingot admin jobs [--dead [--limit N]]
       ingot admin jobs retry (ID | --all-dead)

Without options: how many background jobs of each kind are waiting (due now or later, retries
included), running and dead, and how long the oldest due job has waited.
With --dead: the dead jobs (those that failed their last attempt, kept 30 days), oldest first:
id, kind, attempts, times, last error and payload (cut after ${PAYLOAD_SHOWN} characters).

Options:
  --dead         list the dead jobs
  --limit N      with --dead: at most N of them (default ${DEFAULT_LIMIT})
  -h, --help     show this help
`,
  async run(args, io) {
    const { values } = parseCommandLine(args, { dead: { type: 'boolean' }, limit: { type: 'string' } })
    if (values.limit !== undefined && values.dead !== true) throw new UsageError('--limit goes with --dead')
    const limit = values.limit === undefined ? DEFAULT_LIMIT : positiveInteger(values.limit, 'limit')
    const ctx = await io.context()
    const lines = values.dead === true ? await deadJobs(ctx, limit) : await jobCounts(ctx)
    for (const line of lines) io.print(line)
  },
}

const retryCommand: Command = {
  name: 'retry',
  summary: 'make a dead job (or every one: --all-dead) due again, with one more attempt',
  help: `Usage: ingot admin jobs retry ID
       ingot admin jobs retry --all-dead

Makes the dead job ID (as \`ingot admin jobs --dead\` lists it), or every dead job, wait again,
due now and allowed one more attempt; the next process working jobs runs it. Exits with 1 when
no dead job has the id ID (there is no such job, or it is not dead).

Options:
  --all-dead     retry every dead job, and print how many
  -h, --help     show this help
`,
  async run(args, io) {
    // Either an id or --all-dead: with --all-dead, an id too is an unexpected argument.
    const allDead = args.includes('--all-dead')
    const { positionals: [id = ''] } = parseCommandLine(args, { 'all-dead': { type: 'boolean' } }, allDead ? [] : ['ID'])
    const ctx = await io.context()
    if (allDead) {
      const retried = await ctx.jobs.retryAllDead()
      io.print(`Retried ${retried} dead ${retried === 1 ? 'job' : 'jobs'}.`)
      return
    }
    if (!await ctx.jobs.retryDead(id.trim())) throw new CommandFailed(`no dead job has the id "${id}"`)
    io.print(`Job ${id.trim()} is due again, with one more attempt.`)
  },
}

export const jobCommands: CommandGroup = {
  name: 'jobs',
  summary: 'Background jobs: how many wait, run and are dead; the dead ones; retries.',
  default: showCommand,
  commands: [retryCommand],
}

/** A table of kinds by state, with totals, and the oldest due job's wait. */
async function jobCounts(ctx: AppContext): Promise<string[]> {
  const { kinds, total } = await ctx.jobs.countsByKind()
  if (kinds.length === 0) return ['No background jobs are waiting, running or dead.']
  const rows: string[][] = [
    ['KIND', ...STATES.map((state) => state.toUpperCase())],
    ...kinds.map(([kind, row]) => [kind, ...STATES.map((state) => String(row[state]))]),
    ['total', ...STATES.map((state) => String(total[state]))],
  ]
  const width = Math.max(...rows.map(([kind = '']) => kind.length))
  const lines = rows.map(([kind = '', ...numbers]) => [kind.padEnd(width), ...numbers.map((n, i) => n.padStart(STATES[i]!.length))].join('  '))
  const ageMs = await ctx.jobs.oldestDueAgeMs()
  lines.push('', ageMs === null ? 'No job is due now.' : `The oldest due job has waited ${duration(ageMs)}.`)
  return lines
}

/** One block per dead job, oldest first, and how to retry them. */
async function deadJobs(ctx: AppContext, limit: number): Promise<string[]> {
  const dead: JobSummary[] = await ctx.jobs.list({ state: 'dead', limit })
  if (dead.length === 0) return ['No dead jobs.']
  const { total: { dead: total } } = await ctx.jobs.countsByKind()
  const lines = [total > dead.length ? `${total} dead jobs; the oldest ${dead.length}:` : `${total} dead ${total === 1 ? 'job' : 'jobs'}:`]
  for (const job of dead) {
    lines.push(
      '',
      `${job.id}  ${job.kind}`,
      `  attempts  ${job.attempts} of ${job.maxAttempts}`,
      `  created   ${new Date(job.createdAt).toISOString()}`,
      `  died      ${job.finishedAt === null ? '-' : new Date(job.finishedAt).toISOString()}`,
      `  error     ${cut(job.lastError ?? '-', ERROR_SHOWN)}`,
      `  payload   ${cut(JSON.stringify(job.payload) ?? 'null', PAYLOAD_SHOWN)}`,
    )
  }
  lines.push('', 'Retry one with `ingot admin jobs retry ID`, every one with `ingot admin jobs retry --all-dead`.')
  return lines
}

/** On one line (an error may span several), and at most `length` characters. */
function cut(text: string, length: number): string {
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length <= length ? line : `${line.slice(0, length)}…`
}

function duration(ms: number): string {
  const seconds = ms / 1000
  if (seconds < 60) return `${seconds.toFixed(1)} s`
  if (seconds < 3600) return `${(seconds / 60).toFixed(1)} min`
  return `${(seconds / 3600).toFixed(1)} h`
}

const MOST_LISTED = 100_000

function positiveInteger(value: string, option: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > MOST_LISTED) {
    throw new UsageError(`--${option} must be a whole number from 1 to ${MOST_LISTED}, not "${value}"`)
  }
  return Number(value)
}
