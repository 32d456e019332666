// `ingot admin jobs`, run as an operator runs it: a child process of the `ingot` command on the database
// of a test app (SQLite, or pg-boss on its own PostgreSQL database) holding real dead jobs, made
// by a kind whose attempts fail; the test's queue, another process as far as the command knows,
// then sees what the command did. The command works no job and schedules nothing.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import path from 'node:path'
import { sql } from 'kysely'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { runIngot, runNode, type NodeRun } from '../helpers/ingot-command.js'
import { openTestQueue } from '../helpers/jobs.js'
import { defineJobKind } from '../../src/jobs/kind.js'
import type { JobQueue } from '../../src/jobs/queue.js'
import { REFRESH_STATISTICS } from '../../src/services/projects/jobs.js'

type Run = NodeRun

const environmentOf = (t: TestApp) => ({ ...process.env, INGOT_DATA_DIR: t.ctx.config.dataDir, INGOT_DATABASE_URL: t.ctx.config.databaseUrl })

/** Runs `ingot admin jobs <args>` on the test app's database to its end. */
function jobs(t: TestApp, args: readonly string[]): Promise<Run> {
  return runIngot(['admin', 'jobs', ...args], environmentOf(t))
}

/** Runs node (with tsx) on these arguments, on the test app's database, to its end. */
function node(t: TestApp, args: readonly string[]): Promise<Run> {
  return runNode(['--import', 'tsx', ...args], environmentOf(t))
}

function assertSuccess(run: Run): void {
  assert.equal(run.code, 0, run.stderr)
  assert.equal(run.stderr, '', 'nothing on standard error')
}

/** A user error is one line that names the command, never a stack trace. */
function assertFailure(run: Run, code: number, message: RegExp): void {
  assert.equal(run.code, code, `${run.stdout}${run.stderr}`)
  assert.match(run.stderr, message)
  assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace')
  assert.equal(run.stdout, '')
}

const iso = (ms: number | null) => new Date(ms!).toISOString()

describe('ingot admin jobs', () => {
  let t: TestApp
  let queue: JobQueue
  let succeed = false
  const REFUSED = defineJobKind<{ url: string; body: string }>({
    name: 'test_cli.deliver', attempts: 2, timeLimitMs: 5_000, retryDelayMs: 1_000, concurrency: 1,
    async run() {
      if (!succeed) throw new Error('the receiver answered 503\nService Unavailable')
    },
  })
  const payload = (n: number) => ({ url: `http://receiver.test/${n}`, body: 'x'.repeat(300) })
  let deadIds: string[] = []

  before(async () => {
    t = await buildTestApp()
    queue = await openTestQueue(t, [REFUSED])
    await queue.enqueue(REFUSED, payload(1))
    await queue.enqueue(REFUSED, payload(2))
    assert.equal(await queue.runDue(), 2)
    assert.equal(await queue.runDue(Date.now() + 60_000), 2, 'each job\'s last attempt')
    deadIds = (await queue.list({ state: 'dead' })).map((job) => job.id)
    assert.equal(deadIds.length, 2)
    // Jobs of a real kind that no process works here: one due (the command must not run it), one later.
    await t.ctx.jobs.enqueue(REFRESH_STATISTICS, { projectId: 404_404 })
    await t.ctx.jobs.enqueue(REFRESH_STATISTICS, { projectId: 404_405 }, { runAt: Date.now() + 3_600_000 })
  })
  after(async () => {
    await queue.close()
    await t.close()
  })

  it('counts jobs by kind and state, with totals and the oldest due job\'s wait, and runs none of them', async () => {
    const run = await jobs(t, [])
    assertSuccess(run)
    const lines = run.stdout.trimEnd().split('\n')
    assert.deepEqual(lines.slice(0, 5).map((line) => line.trim().split(/ +/)), [
      ['KIND', 'WAITING', 'RUNNING', 'DEAD'],
      ['projects.refresh_statistics', '2', '0', '0'],
      ['test_cli.deliver', '0', '0', '2'],
      ['total', '2', '0', '2'],
      [''],
    ])
    assert.match(lines[5] ?? '', /^The oldest due job has waited \d+\.\d s\.$/)
    assert.equal(lines.length, 6)
    assert.deepEqual((await t.ctx.jobs.list({ kind: REFRESH_STATISTICS.name })).map((job) => job.state), ['waiting', 'waiting'])
    if (t.ctx.dialect === 'postgres') {
      const schedules = await sql<{ count: number }>`select count(*)::int as count from pgboss.schedule`.execute(t.ctx.db)
      assert.equal(schedules.rows[0]?.count, 0, 'no recurring kind was scheduled')
    }
  })

  it('leaves nothing running once done: without process.exit, its process ends by itself', async () => {
    // main.ts exits when the command returns; here nothing does, so a timer, a pg-boss loop or an
    // open connection left behind would keep the process alive until the spawn's time limit.
    const script = `import { runAdmin } from ${JSON.stringify(path.resolve('src/cli/admin.ts'))}
process.exitCode = await runAdmin(['jobs'])`
    const started = Date.now()
    const run = await node(t, ['--input-type=module', '--eval', script])
    assert.deepEqual([run.code, run.signal, run.stderr], [0, null, ''])
    assert.match(run.stdout, /^total +2 +0 +2$/m)
    assert.ok(Date.now() - started < 30_000, `ended after ${Date.now() - started} ms`)
  })

  it('lists the dead jobs, oldest first: id, kind, attempts, times, the last error on one line, the payload cut', async () => {
    const dead = await queue.list({ state: 'dead' })
    const [all, first] = await Promise.all([jobs(t, ['--dead']), jobs(t, ['--dead', '--limit', '1'])])
    assertSuccess(all)
    const body = JSON.stringify(payload(1))
    const block = (n: number) => {
      const job = dead[n]!
      return [
        '',
        `${job.id}  test_cli.deliver`,
        '  attempts  2 of 2',
        `  created   ${iso(job.createdAt)}`,
        `  died      ${iso(job.finishedAt)}`,
        '  error     the receiver answered 503 Service Unavailable',
        `  payload   ${JSON.stringify(payload(n + 1)).slice(0, 200)}…`,
      ]
    }
    assert.ok(body.length > 200)
    const retryHint = 'Retry one with `ingot admin jobs retry ID`, every one with `ingot admin jobs retry --all-dead`.'
    assert.deepEqual(all.stdout.trimEnd().split('\n'), ['2 dead jobs:', ...block(0), ...block(1), '', retryHint])
    assertSuccess(first)
    assert.deepEqual(first.stdout.trimEnd().split('\n'), ['2 dead jobs; the oldest 1:', ...block(0), '', retryHint])
  })

  it('answers --help at every level and refuses command lines it cannot read with exit 2', async () => {
    const helps = await Promise.all([['--help'], ['-h'], ['--dead', '--help'], ['retry', '--help']].map((args) => jobs(t, args)))
    for (const run of helps) assertSuccess(run)
    assert.match(helps[0]!.stdout, /^Usage: ingot admin jobs \[--dead \[--limit N\]\]\n {7}ingot admin jobs retry \(ID \| --all-dead\)\n/)
    assert.match(helps[0]!.stdout, /Commands:\n {2}retry +make a dead job/)
    assert.equal(helps[1]!.stdout, helps[0]!.stdout)
    assert.equal(helps[2]!.stdout, helps[0]!.stdout)
    assert.match(helps[3]!.stdout, /^Usage: ingot admin jobs retry ID\n[\s\S]*--all-dead/)

    const cases: [string[], RegExp][] = [
      [['--bogus'], /^ingot admin jobs: Unknown option '--bogus'\n/],
      [['--limit', '5'], /^ingot admin jobs: --limit goes with --dead\n/],
      [['--dead', '--limit', '0'], /--limit must be a whole number from 1 to 100000, not "0"/],
      [['--dead', '--limit', 'all'], /--limit must be a whole number/],
      [['frobnicate'], /^ingot admin jobs: unknown command "frobnicate"\n/],
      [['retry'], /^ingot admin jobs retry: ID is missing\n/],
      [['retry', deadIds[0]!, '--all-dead'], new RegExp(`^ingot admin jobs retry: unexpected argument "${deadIds[0]}"\\n`)],
      [['retry', deadIds[0]!, deadIds[1]!], /unexpected argument/],
    ]
    const runs = await Promise.all(cases.map(([args]) => jobs(t, args)))
    cases.forEach(([, message], i) => assertFailure(runs[i]!, 2, message))
    assert.equal((await queue.list({ state: 'dead' })).length, 2, 'nothing was retried')
  })

  it('retries one dead job by id: it waits again, due now, with one more attempt, and runs', async () => {
    const unknownId = t.ctx.dialect === 'postgres' ? randomUUID() : '987654321'
    const [retried, unknown, malformed] = await Promise.all([jobs(t, ['retry', deadIds[0]!]), jobs(t, ['retry', unknownId]), jobs(t, ['retry', 'x-1'])])
    assertSuccess(retried)
    assert.equal(retried.stdout, `Job ${deadIds[0]} is due again, with one more attempt.\n`)
    assertFailure(unknown, 1, new RegExp(`^ingot admin jobs retry: no dead job has the id "${unknownId}"\\n$`))
    assertFailure(malformed, 1, /^ingot admin jobs retry: no dead job has the id "x-1"\n$/)

    const [waiting] = await queue.list({ kind: REFUSED.name, state: 'waiting' })
    assert.deepEqual([waiting?.id, waiting?.attempts, waiting?.maxAttempts], [deadIds[0], 2, 3])
    assert.ok(waiting!.runAt <= Date.now())
    // A job that is no longer dead cannot be retried again.
    assertFailure(await jobs(t, ['retry', deadIds[0]!]), 1, /no dead job has the id/)

    succeed = true
    assert.equal(await queue.runDue(), 1)
    assert.deepEqual((await queue.list({ kind: REFUSED.name })).map((job) => [job.id, job.state]), [[deadIds[1], 'dead']])
  })

  it('retries every dead job with --all-dead and says how many', async () => {
    const run = await jobs(t, ['retry', '--all-dead'])
    assertSuccess(run)
    assert.equal(run.stdout, 'Retried 1 dead job.\n')
    assert.equal(await queue.runDue(), 1)
    assert.deepEqual(await queue.list({ kind: REFUSED.name }), [])

    const none = await jobs(t, ['retry', '--all-dead'])
    assertSuccess(none)
    assert.equal(none.stdout, 'Retried 0 dead jobs.\n')
    const [dead, counts] = await Promise.all([jobs(t, ['--dead']), jobs(t, [])])
    assert.equal(dead.stdout, 'No dead jobs.\n')
    assert.match(counts.stdout, /^total +2 +0 +0$/m)
  })
})
