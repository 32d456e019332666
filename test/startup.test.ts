// Configuration is validated with messages naming the variable; the first start seeds root (a
// generated password goes to a file, never to the log); a second start on the same data migrates
// nothing new and keeps everything; the `ingot` command line answers --help and refuses bad values;
// `ingot web --no-jobs` leaves jobs to `ingot worker`, and both stop gracefully on SIGTERM.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile, spawn } from 'node:child_process'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { Writable } from 'node:stream'
import { pino } from 'pino'
import { ConfigError, loadConfig } from '../src/config.js'
import { openContext } from '../src/context.js'
import { seedRoot, INITIAL_ROOT_PASSWORD_FILE } from '../src/services/users/seed-root.js'
import { passwordMatches, tokenDigest } from '../src/auth/secrets.js'
import { setTimeout as sleep } from 'node:timers/promises'
import { REFRESH_STATISTICS } from '../src/services/projects/jobs.js'
import { buildTestApp, createTestDatabase, ROOT_PASSWORD, testDatabaseServer, type TestApp } from './helpers/app.js'
import { until } from './helpers/jobs.js'
import { freePort } from './helpers/ports.js'
import { SIGNING_KEY_FILE } from '../src/services/oauth/signing-key.js'
import { ingotMain } from './helpers/ingot-command.js'

const run = promisify(execFile)

describe('configuration', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({})
    assert.equal(config.port, 8080)
    assert.equal(config.host, '127.0.0.1')
    assert.equal(config.dataDir, path.resolve('./data'))
    assert.equal(config.databaseUrl, '')
    assert.equal(config.externalUrl, 'http://localhost:8080')
    assert.equal(loadConfig({ INGOT_PORT: '9000' }).externalUrl, 'http://localhost:9000')
    assert.equal(loadConfig({ INGOT_EXTERNAL_URL: 'https://git.example.com/' }).externalUrl, 'https://git.example.com')
    assert.equal(config.smtpUrl, null)
    assert.deepEqual([config.jobConcurrency, config.webJobs, config.shutdownTimeoutMs], [4, true, 30_000])
    assert.equal(loadConfig({ INGOT_WEB_JOBS: 'false' }).webJobs, false)
    assert.equal(loadConfig({ INGOT_WEB_JOBS: '0' }).webJobs, false)
    assert.equal(loadConfig({ INGOT_JOB_CONCURRENCY: '16' }).jobConcurrency, 16)
    assert.equal(loadConfig({ INGOT_SHUTDOWN_TIMEOUT_MS: '0' }).shutdownTimeoutMs, 0)
    assert.equal(loadConfig({ INGOT_EXTERNAL_URL: 'https://git.example.com:8443/forge' }).emailFrom, 'Ingot <ingot@git.example.com>')
    assert.equal(loadConfig({ INGOT_SMTP_URL: 'smtps://u:p@mail.example.com:465' }).smtpUrl, 'smtps://u:p@mail.example.com:465')
    assert.deepEqual(
      [config.requestTimeoutMs, config.headersTimeoutMs, config.connectionTimeoutMs, config.keepAliveTimeoutMs],
      [3_600_000, 60_000, 120_000, 72_000],
    )
    assert.deepEqual(
      [config.gitServiceTimeoutMs, config.gitServiceIdleTimeoutMs, config.gitServicesMax, config.gitServicesPerClient],
      [3_600_000, 300_000, 32, 8],
    )
    // The built-in CI runner: on with the embedded database, off with PostgreSQL unless asked for.
    assert.deepEqual(config.builtinRunner, { enabled: true, concurrency: 2, unsandboxed: false })
    assert.equal(loadConfig({ INGOT_DATABASE_URL: 'postgres://db/ingot' }).builtinRunner.enabled, false)
    assert.equal(loadConfig({ INGOT_DATABASE_URL: 'postgres://db/ingot', INGOT_BUILTIN_RUNNER: 'true' }).builtinRunner.enabled, true)
    assert.equal(loadConfig({ INGOT_BUILTIN_RUNNER: 'false' }).builtinRunner.enabled, false)
    assert.deepEqual(loadConfig({ INGOT_RUNNER_CONCURRENCY: '8', INGOT_RUNNER_UNSANDBOXED: 'true' }).builtinRunner, { enabled: true, concurrency: 8, unsandboxed: true })
  })

  it('gives the server its time limits', async () => {
    const t = await buildTestApp({
      env: { INGOT_REQUEST_TIMEOUT_MS: '600000', INGOT_HEADERS_TIMEOUT_MS: '20000', INGOT_CONNECTION_TIMEOUT_MS: '90000', INGOT_KEEP_ALIVE_TIMEOUT_MS: '5000' },
    })
    try {
      const server = t.app.server
      assert.deepEqual([server.requestTimeout, server.headersTimeout, server.timeout, server.keepAliveTimeout], [600_000, 20_000, 90_000, 5000])
    } finally {
      await t.close()
    }
  })

  it('refuses bad values with a message naming the variable', () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ INGOT_PORT: 'eighty' }, /INGOT_PORT/],
      [{ INGOT_PORT: '70000' }, /INGOT_PORT/],
      [{ INGOT_DATABASE_URL: 'mysql://x' }, /INGOT_DATABASE_URL/],
      [{ INGOT_EXTERNAL_URL: 'ftp://x' }, /INGOT_EXTERNAL_URL/],
      [{ INGOT_ROOT_PASSWORD: 'short' }, /INGOT_ROOT_PASSWORD/],
      [{ INGOT_ROOT_TOKEN: 'tiny' }, /INGOT_ROOT_TOKEN/],
      [{ INGOT_LOG_LEVEL: 'loud' }, /INGOT_LOG_LEVEL/],
      [{ INGOT_SMTP_URL: 'http://mail.example.com' }, /INGOT_SMTP_URL/],
      [{ INGOT_SMTP_URL: 'not a url' }, /INGOT_SMTP_URL/],
      [{ INGOT_EMAIL_FROM: 'nobody' }, /INGOT_EMAIL_FROM/],
      [{ INGOT_JOB_CONCURRENCY: '0' }, /INGOT_JOB_CONCURRENCY/],
      [{ INGOT_JOB_CONCURRENCY: 'many' }, /INGOT_JOB_CONCURRENCY/],
      [{ INGOT_JOB_CONCURRENCY: '1000' }, /INGOT_JOB_CONCURRENCY/],
      [{ INGOT_WEB_JOBS: 'maybe' }, /INGOT_WEB_JOBS/],
      [{ INGOT_SHUTDOWN_TIMEOUT_MS: '-1' }, /INGOT_SHUTDOWN_TIMEOUT_MS/],
      [{ INGOT_SHUTDOWN_TIMEOUT_MS: '1.5' }, /INGOT_SHUTDOWN_TIMEOUT_MS/],
      [{ INGOT_REQUEST_TIMEOUT_MS: '0' }, /INGOT_REQUEST_TIMEOUT_MS/],
      [{ INGOT_REQUEST_TIMEOUT_MS: '5000', INGOT_HEADERS_TIMEOUT_MS: '10000' }, /INGOT_HEADERS_TIMEOUT_MS/],
      [{ INGOT_CONNECTION_TIMEOUT_MS: 'soon' }, /INGOT_CONNECTION_TIMEOUT_MS/],
      [{ INGOT_KEEP_ALIVE_TIMEOUT_MS: '-5' }, /INGOT_KEEP_ALIVE_TIMEOUT_MS/],
      [{ INGOT_GIT_SERVICE_TIMEOUT_MS: '10' }, /INGOT_GIT_SERVICE_TIMEOUT_MS/],
      [{ INGOT_GIT_SERVICE_IDLE_TIMEOUT_MS: 'x' }, /INGOT_GIT_SERVICE_IDLE_TIMEOUT_MS/],
      [{ INGOT_GIT_SERVICES_MAX: '0' }, /INGOT_GIT_SERVICES_MAX/],
      [{ INGOT_GIT_SERVICES_PER_CLIENT: '0' }, /INGOT_GIT_SERVICES_PER_CLIENT/],
      [{ INGOT_BUILTIN_RUNNER: 'sometimes' }, /INGOT_BUILTIN_RUNNER/],
      [{ INGOT_RUNNER_CONCURRENCY: '0' }, /INGOT_RUNNER_CONCURRENCY/],
      [{ INGOT_RUNNER_UNSANDBOXED: 'yes please' }, /INGOT_RUNNER_UNSANDBOXED/],
    ]
    for (const [env, message] of cases) assert.throws(() => loadConfig(env), (err: unknown) => err instanceof ConfigError && message.test(err.message))
  })
})

describe('first and second start', () => {
  let dataDir: string
  before(async () => { dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ingot-start-')) })
  after(async () => { await fs.rm(dataDir, { recursive: true, force: true }) })

  it('seeds root with a generated password kept out of the log, then keeps everything on restart', async (t) => {
    if (testDatabaseServer() !== null) return t.skip('the embedded database is what a first start on a laptop uses')
    const lines: string[] = []
    const log = pino({ level: 'trace' }, new Writable({ write(chunk, _encoding, done) { lines.push(String(chunk)); done() } }))
    const config = loadConfig({ INGOT_DATA_DIR: dataDir, INGOT_ROOT_TOKEN: 'first-start-token-0123456789' })

    const first = await openContext(config, log)
    await seedRoot(first)
    const password = (await fs.readFile(path.join(dataDir, INITIAL_ROOT_PASSWORD_FILE), 'utf8')).trim()
    const root = await first.db.selectFrom('users').selectAll().where('username', '=', 'root').executeTakeFirstOrThrow()
    assert.equal(root.id, 1)
    assert.equal(root.admin, 1)
    assert.ok(await passwordMatches(root.password_digest, password))
    const token = await first.db.selectFrom('access_tokens').selectAll()
      .where('token_digest', '=', tokenDigest('first-start-token-0123456789')).executeTakeFirstOrThrow()
    assert.deepEqual(JSON.parse(token.scopes), ['api', 'read_user', 'sudo'])
    await first.db.updateTable('users').set({ name: 'Renamed Administrator' }).where('id', '=', 1).execute()
    await first.close()
    assert.ok(!lines.join('').includes(password), 'the generated password must not be logged')

    const second = await openContext(loadConfig({ INGOT_DATA_DIR: dataDir, INGOT_ROOT_PASSWORD: 'another-password-123' }), log)
    await seedRoot(second)
    const users = await second.db.selectFrom('users').select(['id', 'name', 'password_digest']).execute()
    assert.deepEqual(users.map((u) => [u.id, u.name]), [[1, 'Renamed Administrator']])
    assert.ok(await passwordMatches(users[0]?.password_digest ?? null, password), 'a later start does not reset the password')
    await second.close()
    assert.equal(lines.filter((line) => line.includes('database migrated')).length, 1, 'only the first start migrates')
  })

  it('seeds root once when several processes start at once on an empty database', async () => {
    const server = testDatabaseServer()
    const database = server === null ? null : await createTestDatabase(server)
    const startDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ingot-start-'))
    const config = loadConfig({ INGOT_DATA_DIR: startDir, INGOT_DATABASE_URL: database?.url ?? '', INGOT_ROOT_PASSWORD: ROOT_PASSWORD })
    const log = pino({ level: 'silent' })
    const contexts = [await openContext(config, log), await openContext(config, log), await openContext(config, log)]
    try {
      await Promise.all(contexts.map((ctx) => seedRoot(ctx)))
      const users = await contexts[0]!.db.selectFrom('users').select(['id', 'username']).execute()
      assert.deepEqual(users.map((u) => u.username), ['root'])
    } finally {
      for (const ctx of contexts) await ctx.close()
      await fs.rm(startDir, { recursive: true, force: true })
      await database?.drop()
    }
  })
})

describe('the ingot command', () => {
  it('answers --help and refuses an unknown command or a bad setting', async () => {
    const help = await run(process.execPath, [ingotMain(), '--help'])
    assert.match(help.stdout, /Usage: ingot <command>/)
    await assert.rejects(run(process.execPath, [ingotMain(), 'frobnicate']), (err: { code?: number; stderr?: string }) =>
      err.code === 2 && /unknown command "frobnicate"/.test(err.stderr ?? ''))
    await assert.rejects(run(process.execPath, [ingotMain(), 'migrate'], { env: { ...process.env, INGOT_PORT: 'x' } }),
      (err: { code?: number; stderr?: string }) => err.code === 2 && /INGOT_PORT/.test(err.stderr ?? ''))
    await assert.rejects(run(process.execPath, [ingotMain(), 'worker', '--no-jobs']), (err: { code?: number; stderr?: string }) =>
      err.code === 2 && /unknown option "--no-jobs" for worker/.test(err.stderr ?? ''))
    assert.match(help.stdout, /--no-jobs/)
    assert.match(help.stdout, /INGOT_WEB_JOBS/)
  })

  it('refuses to start with a git older than the fixes of CVE-2022-41903 and CVE-2022-23521, before touching its data', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ingot-old-git-'))
    try {
      // A `git` first on the PATH that answers as an unpatched release of the newest branch would.
      const bin = path.join(dir, 'bin')
      await fs.mkdir(bin)
      await fs.writeFile(path.join(bin, 'git'), '#!/bin/sh\necho "git version 2.39.0"\n', { mode: 0o755 })
      const dataDir = path.join(dir, 'data')
      const env = { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}`, INGOT_DATA_DIR: dataDir, INGOT_DATABASE_URL: '' }
      for (const command of ['web', 'worker', 'migrate']) {
        await assert.rejects(run(process.execPath, [ingotMain(), command], { env }),
          (err: { code?: number; stderr?: string }) => {
            assert.equal(err.code, 2, `${command}: ${err.stderr}`)
            assert.match(err.stderr ?? '', /^ingot: git 2\.39\.0 is too old: Ingot needs git 2\.39\.1 or newer/)
            return true
          })
      }
      await assert.rejects(fs.access(dataDir), { code: 'ENOENT' })
    } finally {
      await fs.rm(dir, { recursive: true, force: true })
    }
  })

  describe('web --no-jobs beside a worker', () => {
    let t: TestApp
    before(async () => { t = await buildTestApp() })
    after(async () => { await t.close() })

    /** `ingot <args>` on the test app's database and data directory (web: on `port`); `ready` resolves once its output matches. */
    const start = (args: string[], ready: RegExp, port = 0, env: Record<string, string> = {}) => {
      const child = spawn(process.execPath, [ingotMain(), ...args], {
        env: {
          ...process.env, INGOT_DATA_DIR: t.ctx.config.dataDir, INGOT_DATABASE_URL: t.ctx.config.databaseUrl,
          INGOT_ROOT_PASSWORD: ROOT_PASSWORD, INGOT_LOG_LEVEL: 'info', INGOT_BUILTIN_RUNNER: 'false', INGOT_SSH_PORT: '0', ...(port === 0 ? {} : { INGOT_PORT: String(port) }), ...env,
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      })
      let output = ''
      child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString('utf8') })
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
      return { child, exited, output: () => output, ready: until(() => ready.test(output), `ingot ${args.join(' ')} started`, 60_000) }
    }

    it('serves without working jobs, and the worker works them; both stop on SIGTERM', async () => {
      const web = start(['web', '--no-jobs'], /Ingot is serving/, await freePort())
      try {
        await web.ready
        // The OpenID Connect signing key is made at the start, readable by Ingot alone.
        assert.equal((await fs.stat(path.join(t.ctx.config.dataDir, SIGNING_KEY_FILE))).mode & 0o777, 0o600)
        const id = await t.ctx.jobs.enqueue(REFRESH_STATISTICS, { projectId: 404_404 })
        await sleep(1_500)
        assert.deepEqual((await t.ctx.jobs.list({ kind: REFRESH_STATISTICS.name })).map((job) => [job.id, job.state]), [[id, 'waiting']])
        const worker = start(['worker'], /worker started/)
        try {
          await worker.ready
          await until(async () => (await t.ctx.jobs.list({ kind: REFRESH_STATISTICS.name })).length === 0, 'the job done by the worker')
        } finally {
          worker.child.kill('SIGTERM')
        }
        assert.equal(await worker.exited, 0)
        assert.match(worker.output(), /"msg":"shutting down"/)
      } finally {
        web.child.kill('SIGTERM')
      }
      assert.equal(await web.exited, 0)
    })

    it('stops in order on a SIGTERM that comes while it is still starting', async () => {
      // The SSH server starts after the HTTP listener answers (making its host keys on a first
      // start), so a signal sent at the first answer comes while the start goes on.
      const port = await freePort()
      const web = start(['web', '--no-jobs'], /Ingot is serving/, port, { INGOT_SSH_PORT: String(await freePort()) })
      web.ready.catch(() => {})
      await until(async () => await fetch(`http://127.0.0.1:${port}/api/v4/version`).then(() => true, () => false), 'the first answer', 60_000)
      web.child.kill('SIGTERM')
      assert.equal(await web.exited, 0)
      assert.match(web.output(), /"msg":"shutting down"/)
    })
  })
})
