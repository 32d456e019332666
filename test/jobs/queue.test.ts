// The job queue's promises, on whichever engine the suite runs on (our `jobs` table on SQLite,
// pg-boss on PostgreSQL): unique and exclusive keys, concurrency with per-kind caps and no kind
// starved, wake-ups within milliseconds (in the process and from another), time limits that abort
// the attempt, leases kept while a job runs, dead jobs listed and retried, recurring kinds run once
// across processes, and shutdown that finishes what it can and hands the rest back. Real child
// processes show that jobs are run exactly once by three processes at a time, and that a job that
// kills its process stops being retried.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { gate, openTestQueue, until } from '../helpers/jobs.js'
import { runGit, spawnGit } from '../../src/git/command.js'
import { defineJobKind, type RunningJob } from '../../src/jobs/kind.js'
import type { JobOutcome, JobQueue } from '../../src/jobs/queue.js'
import { COUNTED_JOB, SELF_KILLING_JOB } from './process-kinds.js'

describe('job queue', () => {
  let t: TestApp
  const queues: JobQueue[] = []
  /** A queue of these kinds, closed after the file's tests. */
  const open = async (...args: Parameters<typeof openTestQueue> extends [unknown, ...infer Rest] ? Rest : never) => {
    const queue = await openTestQueue(t, ...args)
    queues.push(queue)
    return queue
  }

  before(async () => { t = await buildTestApp() })
  after(async () => {
    for (const queue of queues) await queue.close()
    await t.close()
  })

  it('runs a keyed job once for enqueues while it waits, and again for one made while it runs', async () => {
    const runs: number[] = []
    let queue!: JobQueue
    const KEYED = defineJobKind<number>({
      name: 'test.keyed', attempts: 1, timeLimitMs: 5_000, concurrency: 1,
      async run(_ctx, n) {
        runs.push(n)
        if (n === 1) assert.notEqual(await queue.enqueue(KEYED, 3, { uniqueKey: 'k' }), null)
      },
    })
    queue = await open([KEYED])
    const first = await queue.enqueue(KEYED, 1, { uniqueKey: 'k' })
    assert.notEqual(first, null)
    assert.equal(await queue.enqueue(KEYED, 2, { uniqueKey: 'k' }), null)
    assert.equal(await queue.enqueue(KEYED, 4, { uniqueKey: 'other' }) === null, false)
    assert.equal(await queue.runDue(), 3)
    assert.deepEqual(runs, [1, 4, 3])
  })

  it('runs several jobs at once, no kind above its cap, and gives each kind with due jobs a slot before any gets a second', async () => {
    const waiting = new Map<string, (() => void)[]>()
    const running = new Map<string, number>()
    const most = new Map<string, number>()
    let mostInAll = 0
    const inAll = () => [...running.values()].reduce((a, b) => a + b, 0)
    const blocking = (name: string, concurrency: number) => defineJobKind<null>({
      name, attempts: 1, timeLimitMs: 30_000, concurrency,
      async run() {
        running.set(name, (running.get(name) ?? 0) + 1)
        most.set(name, Math.max(most.get(name) ?? 0, running.get(name)!))
        mostInAll = Math.max(mostInAll, inAll())
        await new Promise<void>((resolve) => waiting.set(name, [...waiting.get(name) ?? [], resolve]))
        running.set(name, running.get(name)! - 1)
      },
    })
    const finishOne = (kind: { name: string }) => waiting.get(kind.name)!.shift()!()
    const FLOOD = blocking('test.flood', 10)
    const CAPPED = blocking('test.capped', 1)
    const LATE = blocking('test.late', 10)
    const queue = await open([FLOOD, CAPPED, LATE], { pollMs: 60_000 })
    // In all, the test app's INGOT_JOB_CONCURRENCY (4).
    assert.equal(t.ctx.config.jobConcurrency, 4)
    await queue.enqueueMany(FLOOD, Array(8).fill(null))
    await queue.enqueueMany(CAPPED, Array(3).fill(null))
    await queue.start()
    await until(() => inAll() === 4, 'four jobs running')
    assert.equal(running.get(CAPPED.name), 1, 'the capped kind got its slot beside the flood')
    await queue.enqueue(LATE, null)
    await sleep(100)
    assert.equal(running.get(LATE.name) ?? 0, 0, 'every slot is taken')
    // The first slot to free goes to the kind with none running, not to the flood's next job.
    finishOne(FLOOD)
    await until(() => running.get(LATE.name) === 1, 'the late kind running')
    assert.equal(running.get(FLOOD.name), 2)
    finishOne(CAPPED)
    await until(() => running.get(CAPPED.name) === 1 && (waiting.get(CAPPED.name)?.length ?? 0) === 1, 'the next capped job running')
    await until(async () => {
      const next = [...waiting.values()].find((resolvers) => resolvers.length > 0)
      if (next !== undefined) next.shift()!()
      return next === undefined && (await queue.counts()).filter((count) => [FLOOD, CAPPED, LATE].some((kind) => kind.name === count.kind)).length === 0
    }, 'every job done')
    assert.deepEqual([mostInAll, most.get(CAPPED.name), most.get(LATE.name)], [4, 1, 1])
    await queue.stop()
  })

  it('starts a job enqueued to an idle runner at once, from this process or another', async () => {
    const started: number[] = []
    const WOKEN = defineJobKind<{ at: number }>({
      name: 'test.woken', attempts: 1, timeLimitMs: 5_000, concurrency: 4,
      async run(_ctx, { at }) { started.push(Date.now() - at) },
    })
    // A poll far longer than the bound: only a wake-up starts the job in time.
    const worker = await open([WOKEN], { pollMs: 60_000 })
    const elsewhere = await open([WOKEN])
    await worker.start()
    await sleep(300)
    await worker.enqueue(WOKEN, { at: Date.now() })
    await until(() => started.length === 1, 'the job enqueued here', 5_000)
    await sleep(300)
    await elsewhere.enqueue(WOKEN, { at: Date.now() })
    await until(() => started.length === 2, 'the job enqueued by another queue', 5_000)
    // Milliseconds when the machine is idle; the bound leaves room for a busy one.
    assert.ok(started.every((ms) => ms < 1_000), `started after ${started.join(', ')} ms`)
    await worker.stop()
  })

  it('aborts an attempt at its time limit and counts it failed; dead after the last, kept, listed and retried', async () => {
    const outcomes: [string, JobOutcome][] = []
    const enqueued: string[] = []
    let succeed = false
    const seen: RunningJob[] = []
    const SLOW = defineJobKind<{ n: number }>({
      name: 'test.slow', attempts: 2, timeLimitMs: 200, retryDelayMs: 1_000, concurrency: 1,
      async run(_ctx, _payload, job) {
        seen.push(job)
        if (succeed) return
        // Waits until the time limit aborts it, as git or an outbound request handed the signal would.
        await new Promise((_resolve, reject) => job.signal.addEventListener('abort', () => reject(job.signal.reason), { once: true }))
      },
    })
    const queue = await open([SLOW])
    queue.observe({ enqueued: (kind) => enqueued.push(kind), finished: (kind, outcome) => outcomes.push([kind, outcome]) })
    const id = await queue.enqueue(SLOW, { n: 1 }, { requestId: 'req-42' })
    assert.ok(id !== null)
    const started = Date.now()
    assert.equal(await queue.runDue(), 1)
    assert.ok(Date.now() - started < 3_000)
    assert.equal(seen[0]!.signal.aborted, true)
    assert.deepEqual([seen[0]!.attempt, seen[0]!.attempts, seen[0]!.requestId], [1, 2, 'req-42'])
    const [waiting] = await queue.list({ kind: SLOW.name })
    assert.equal(waiting?.state, 'waiting')
    assert.equal(waiting?.attempts, 1)
    assert.match(waiting?.lastError ?? '', /time limit of 200 ms/)
    assert.ok(waiting!.runAt >= Date.now() + 500, 'the retry waits its delay')

    assert.equal(await queue.runDue(Date.now() + 60_000), 1)
    const [dead] = await queue.list({ kind: SLOW.name, state: 'dead' })
    assert.deepEqual(
      [dead?.id, dead?.kind, dead?.payload, dead?.attempts, dead?.maxAttempts, dead?.requestId],
      [id, SLOW.name, { n: 1 }, 2, 2, 'req-42'],
    )
    assert.match(dead?.lastError ?? '', /time limit/)
    assert.ok(dead!.finishedAt !== null && dead!.createdAt <= dead!.finishedAt)
    assert.deepEqual((await queue.counts()).filter((count) => count.kind === SLOW.name), [{ kind: SLOW.name, state: 'dead', count: 1 }])
    assert.equal(await queue.runDue(Date.now() + 3_600_000), 0, 'a dead job is not retried by itself')

    succeed = true
    assert.equal(await queue.retryDead('999999999'), false)
    assert.equal(await queue.retryDead(id), true)
    assert.deepEqual((await queue.list({ kind: SLOW.name })).map((job) => [job.state, job.maxAttempts]), [['waiting', 3]])
    assert.equal(await queue.runDue(), 1)
    assert.deepEqual(seen.map((job) => job.attempt), [1, 2, 3])
    assert.deepEqual(await queue.list({ kind: SLOW.name }), [])
    assert.deepEqual(enqueued, [SLOW.name])
    assert.deepEqual(outcomes.map(([, outcome]) => outcome), ['retry', 'dead', 'done'])

    succeed = false
    await queue.enqueueMany(SLOW, [{ n: 2 }, { n: 3 }])
    await queue.runDue(Date.now() + 60_000)
    await queue.runDue(Date.now() + 60_000)
    assert.equal((await queue.list({ kind: SLOW.name, state: 'dead' })).length, 2)
    assert.ok((await queue.oldestDueAgeMs()) === null)
    succeed = true
    assert.equal(await queue.retryAllDead(), 2)
    assert.ok((await queue.oldestDueAgeMs())! >= 0)
    assert.equal(await queue.runDue(), 2)
    assert.deepEqual((await queue.counts()).filter((count) => count.kind === SLOW.name), [])
  })

  it('kills the git command of an attempt past its time limit; gives up on a handler that ignores the abort', async () => {
    const gitDir = path.join(t.ctx.config.dataDir, 'time-limit.git')
    await runGit(['init', '--bare', '-q', gitDir])
    const exits: (string | null)[] = []
    const GIT_FOREVER = defineJobKind<null>({
      name: 'test.git_forever', attempts: 1, timeLimitMs: 300, concurrency: 1,
      async run(_ctx, _payload, job) {
        // cat-file --batch reads its standard input, which stays open: it never ends by itself.
        const { child } = spawnGit(['cat-file', '--batch'], { gitDir, signal: job.signal })
        child.on('error', () => {})
        exits.push(await new Promise<string | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal))))
        throw new Error('git stopped')
      },
    })
    const DEAF = defineJobKind<null>({
      name: 'test.deaf', attempts: 1, timeLimitMs: 200, concurrency: 1,
      run: () => new Promise(() => {}),
    })
    const queue = await open([GIT_FOREVER, DEAF])
    await queue.enqueue(GIT_FOREVER, null)
    assert.equal(await queue.runDue(), 1)
    assert.deepEqual(exits, ['SIGTERM'])
    const [killed] = await queue.list({ kind: GIT_FOREVER.name, state: 'dead' })
    assert.match(killed?.lastError ?? '', /time limit of 300 ms/)

    await queue.enqueue(DEAF, null)
    const started = Date.now()
    assert.equal(await queue.runDue(), 1)
    const took = Date.now() - started
    assert.ok(took >= 5_000 && took < 10_000, `given up after ${took} ms`)
    const [deaf] = await queue.list({ kind: DEAF.name, state: 'dead' })
    assert.match(deaf?.lastError ?? '', /time limit of 200 ms/)
  })

  it('keeps a running job to its runner past its lease: another runner does not take it', async () => {
    let runs = 0
    const LONG = defineJobKind<null>({
      name: 'test.long', attempts: 3, timeLimitMs: 10_000, concurrency: 1,
      async run() {
        runs += 1
        await sleep(1_500)
      },
    })
    const first = await open([LONG], { leaseMs: 300 })
    const second = await open([LONG], { leaseMs: 300 })
    await first.enqueue(LONG, null)
    const working = first.runDue()
    await until(() => runs === 1, 'the job running')
    // The lease runs out five times over while the job runs; the other runner keeps looking.
    const deadline = Date.now() + 1_200
    while (Date.now() < deadline) {
      assert.equal(await second.runDue(), 0)
      await sleep(50)
    }
    assert.equal(await working, 1)
    assert.equal(runs, 1)
    assert.deepEqual(await first.list({ kind: LONG.name }), [])
  })

  it('runs a job once when its own process claims it again after the event loop kept its renewals back past the lease', async () => {
    let runs = 0
    const BLOCKING = defineJobKind<null>({
      name: 'test.blocking', attempts: 3, timeLimitMs: 10_000, concurrency: 2,
      async run() {
        runs += 1
        // Synchronous work (a long parse, a large synchronous query) holds the event loop past the lease.
        const until = Date.now() + 800
        while (Date.now() < until) { /* busy */ }
        await sleep(600)
      },
    })
    const queue = await open([BLOCKING], { leaseMs: 300, pollMs: 20 })
    const outcomes: JobOutcome[] = []
    queue.observe({ finished: (_kind, outcome) => { outcomes.push(outcome) } })
    await queue.enqueue(BLOCKING, null)
    await queue.start()
    await until(() => outcomes.length > 0, 'the job finished')
    await sleep(200)
    assert.equal(runs, 1)
    assert.deepEqual(outcomes, ['done'])
    assert.deepEqual(await queue.list({ kind: BLOCKING.name }), [])
    await queue.stop()
  })

  it('runs one job per exclusive key at a time; other keys run meanwhile; a second one waits its turn', async () => {
    const gates = new Map<string, ReturnType<typeof gate>>()
    const running: string[] = []
    const ran: string[] = []
    const EXCLUSIVE = defineJobKind<{ name: string }>({
      name: 'test.exclusive', attempts: 1, timeLimitMs: 30_000, concurrency: 4, exclusive: true,
      async run(_ctx, { name }) {
        running.push(name)
        ran.push(name)
        await gates.get(name)?.opened
        running.splice(running.indexOf(name), 1)
      },
    })
    const queue = await open([EXCLUSIVE], { pollMs: 100 })
    await assert.rejects(queue.enqueue(EXCLUSIVE, { name: 'no key' }), /exclusive/)
    for (const name of ['a1', 'a2', 'b1']) gates.set(name, gate())
    await queue.enqueue(EXCLUSIVE, { name: 'a1' }, { uniqueKey: 'a' })
    await queue.start()
    await until(() => running.includes('a1'), 'a1 running')
    assert.notEqual(await queue.enqueue(EXCLUSIVE, { name: 'a2' }, { uniqueKey: 'a' }), null)
    assert.equal(await queue.enqueue(EXCLUSIVE, { name: 'a3' }, { uniqueKey: 'a' }), null, 'one waits per key')
    await queue.enqueue(EXCLUSIVE, { name: 'b1' }, { uniqueKey: 'b' })
    await until(() => running.includes('b1'), 'b1 running beside a1')
    await sleep(300)
    assert.deepEqual(running.sort(), ['a1', 'b1'])
    gates.get('a1')!.open()
    await until(() => running.includes('a2'), 'a2 running once a1 is done')
    gates.get('a2')!.open()
    gates.get('b1')!.open()
    await until(async () => (await queue.list({ kind: EXCLUSIVE.name })).length === 0, 'every job done')
    assert.deepEqual(ran, ['a1', 'b1', 'a2'])
    await queue.stop()
  })

  it('runs a recurring kind at its cron times, once across the processes working jobs', async () => {
    const runs: number[] = []
    const EVERY_MINUTE = defineJobKind<null>({
      name: 'test.every_minute', attempts: 1, timeLimitMs: 5_000, concurrency: 1, cron: '* * * * *',
      async run(_ctx, payload) {
        assert.equal(payload, null)
        runs.push(Date.now())
      },
    })
    const started = Date.now()
    const one = await open([EVERY_MINUTE], { pollMs: 200, cronPollSeconds: 1 })
    const other = await open([EVERY_MINUTE], { pollMs: 200, cronPollSeconds: 1 })
    await one.start()
    await other.start()
    // A run missed by less than a minute (this one) is still made.
    await until(() => runs.length >= 1, 'the first run', 20_000)
    await sleep(1_500)
    await one.stop()
    await other.stop()
    const minutes = Math.floor(Date.now() / 60_000) - Math.floor(started / 60_000) + 1
    assert.ok(runs.length <= minutes, `${runs.length} runs within ${minutes} cron minutes`)
    if (t.ctx.dialect === 'sqlite') {
      const [next] = await one.list({ kind: EVERY_MINUTE.name })
      assert.equal(next?.uniqueKey, 'recurring')
      assert.ok(next!.runAt > Date.now() - 60_000 && next!.runAt % 60_000 === 0)
    }
  })

  it('stops claiming on stop, lets running jobs finish by the deadline, and hands back the rest uncounted', async () => {
    const ran: string[] = []
    let slowAttempts: number[] = []
    let slowFinishes = false
    const QUICK = defineJobKind<null>({
      name: 'test.quick', attempts: 1, timeLimitMs: 10_000, concurrency: 2,
      async run() {
        await sleep(200)
        ran.push('quick')
      },
    })
    const SLOW = defineJobKind<null>({
      name: 'test.until_aborted', attempts: 3, timeLimitMs: 30_000, concurrency: 1,
      async run(_ctx, _payload, job) {
        slowAttempts.push(job.attempt)
        if (slowFinishes) return void ran.push('slow')
        await new Promise((_resolve, reject) => job.signal.addEventListener('abort', () => reject(job.signal.reason), { once: true }))
      },
    })
    const stopping = await open([QUICK, SLOW], { pollMs: 100 })
    await stopping.enqueue(QUICK, null)
    await stopping.enqueue(SLOW, null)
    await stopping.start()
    await until(() => slowAttempts.length === 1, 'both running')
    const started = Date.now()
    const stopped = stopping.stop(600)
    await stopping.enqueue(QUICK, null)
    await stopped
    const took = Date.now() - started
    assert.ok(took >= 550 && took < 5_000, `stopped after ${took} ms`)
    assert.deepEqual(ran, ['quick'], 'the quick one finished; the one enqueued after stop was not taken')
    const left = [...await stopping.list({ kind: QUICK.name }), ...await stopping.list({ kind: SLOW.name })]
    assert.deepEqual(left.map((job) => [job.kind, job.state, job.attempts]), [[QUICK.name, 'waiting', 0], [SLOW.name, 'waiting', 0]])

    // Another process runs it again, as its first attempt still.
    const elsewhere = await open([QUICK, SLOW])
    slowFinishes = true
    slowAttempts = []
    assert.equal(await elsewhere.runDue(), 2)
    assert.deepEqual(slowAttempts, [1])
    assert.deepEqual(ran.sort(), ['quick', 'quick', 'slow'])
  })

  it('opens at once from several processes, each kind set up once (on PostgreSQL, a pg-boss queue)', async () => {
    const kinds = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'].map((name) => defineJobKind<null>({
      name: `test_opening.${name}`, attempts: 1, timeLimitMs: 1_000, concurrency: 1, async run() {},
    }))
    const opened = await Promise.all([open(kinds), open(kinds), open(kinds)])
    for (const [index, queue] of opened.entries()) assert.notEqual(await queue.enqueue(kinds[index]!, null), null)
    assert.equal(await opened[0]!.runDue(), 3)
  })

  describe('in child processes', () => {
    const worker = path.resolve('test/jobs/worker-process.ts')
    const children: ChildProcess[] = []
    after(() => { for (const child of children) child.kill('SIGKILL') })

    /** A worker process on the test app's database; its output lines as they come. */
    const startWorker = (env: Record<string, string> = {}) => {
      const child = spawn(process.execPath, ['--import', 'tsx', worker], {
        env: { ...process.env, INGOT_DATA_DIR: t.ctx.config.dataDir, INGOT_DATABASE_URL: t.ctx.config.databaseUrl, ...env },
        stdio: ['ignore', 'pipe', 'inherit'],
      })
      children.push(child)
      const lines: string[] = []
      let buffered = ''
      child.stdout!.on('data', (chunk: Buffer) => {
        buffered += chunk.toString('utf8')
        const complete = buffered.split('\n')
        buffered = complete.pop()!
        lines.push(...complete)
      })
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
      return { child, lines, exited, ready: until(() => lines.includes('ready'), 'the worker process ready', 60_000) }
    }

    it('runs each of hundreds of jobs exactly once with three processes working them at once', async () => {
      const queue = await open([COUNTED_JOB])
      const workers = [startWorker(), startWorker(), startWorker()]
      await Promise.all(workers.map((w) => w.ready))
      const total = 300
      for (let start = 0; start < total; start += 50) {
        await queue.enqueueMany(COUNTED_JOB, Array.from({ length: 50 }, (_, i) => ({ n: start + i })))
      }
      const runs = () => workers.flatMap((w) => w.lines.filter((line) => line.startsWith('ran ')))
      await until(() => runs().length >= total, `${total} runs`, 60_000)
      for (const w of workers) w.child.kill('SIGTERM')
      assert.deepEqual(await Promise.all(workers.map((w) => w.exited)), [0, 0, 0])
      const counts = new Map<string, number>()
      for (const line of runs()) counts.set(line.split(' ')[1]!, (counts.get(line.split(' ')[1]!) ?? 0) + 1)
      assert.equal(counts.size, total)
      assert.ok([...counts.values()].every((count) => count === 1), 'no job ran twice')
      const busy = workers.filter((w) => w.lines.some((line) => line.startsWith('ran '))).length
      assert.ok(busy >= 2, `${busy} of the processes ran jobs`)
      assert.deepEqual(await queue.list({ kind: COUNTED_JOB.name }), [])
    })

    it('stops retrying a job whose attempts killed their process: dead once its attempts are used up', async () => {
      // The lease (pg-boss: past the time limit) every process uses, the job's too.
      const queue = await open([SELF_KILLING_JOB], { leaseMs: 500 })
      const id = await queue.enqueue(SELF_KILLING_JOB, null)
      const env = { TEST_JOBS_LEASE_MS: '500' }
      for (let attempt = 1; attempt <= 2; attempt++) {
        const doomed = startWorker(env)
        // SIGKILL: no graceful stop, no hand-back; only the lease (or pg-boss's expiry) tells.
        assert.equal(await Promise.race([doomed.exited, sleep(60_000, 'alive', { ref: false })]), null, doomed.lines.join('\n'))
        assert.deepEqual(doomed.lines.filter((line) => line.startsWith('started ')).length, 1, `attempt ${attempt} started`)
      }
      const survivor = startWorker(env)
      await survivor.ready
      await until(async () => (await queue.list({ kind: SELF_KILLING_JOB.name, state: 'dead' })).length === 1, 'the job dead', 30_000)
      survivor.child.kill('SIGTERM')
      assert.equal(await survivor.exited, 0)
      assert.deepEqual(survivor.lines.filter((line) => line.startsWith('started ')), [], 'the third process did not run it')
      const [dead] = await queue.list({ kind: SELF_KILLING_JOB.name, state: 'dead' })
      assert.deepEqual([dead?.id, dead?.attempts], [id, 2])
      assert.match(dead?.lastError ?? '', /lease|timeout/)
    })
  })
})
