// `ingot admin`, run as an operator runs it: a child process of the `ingot` command on the database of a
// test app (SQLite in its data directory, or its own PostgreSQL database), which then sees what
// the command did: users checked as the API checks them, passwords, tokens that authenticate.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { runIngot, type NodeRun } from '../helpers/ingot-command.js'
import { passwordMatches } from '../../src/auth/secrets.js'
import { startSession } from '../../src/services/sessions/sign-in.js'
import { isoDateOf } from '../../src/db/values.js'
import { accountKey } from '../../src/services/throttles/sign-in-bans.js'


type Run = NodeRun

/** Runs `ingot <args>` on the test app's database to its end, with `stdin` as its standard input. */
function ingot(t: TestApp, args: readonly string[], stdin = ''): Promise<Run> {
  return runIngot(args, { ...process.env, INGOT_DATA_DIR: t.ctx.config.dataDir, INGOT_DATABASE_URL: t.ctx.config.databaseUrl }, stdin)
}

const admin = (t: TestApp, args: readonly string[], stdin?: string) => ingot(t, ['admin', ...args], stdin)

function lastLine(text: string): string {
  return text.trimEnd().split('\n').at(-1) ?? ''
}

/** A user error is one line that names the command, never a stack trace. */
function assertFailure(run: Run, code: number, message: RegExp): void {
  assert.equal(run.code, code, `${run.stdout}${run.stderr}`)
  assert.match(run.stderr, message)
  assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace')
  assert.equal(run.stdout, '')
}

async function userRow(t: TestApp, username: string) {
  return t.ctx.db.selectFrom('users').selectAll().where('username_lower', '=', username.toLowerCase()).executeTakeFirst()
}

describe('ingot admin', () => {
  let t: TestApp
  before(async () => { t = await buildTestApp() })
  after(() => t.close())

  it('answers --help for itself, each group and each command; `ingot --help` names it', async () => {
    const runs = await Promise.all([['--help'], ['user', '--help'], ['user', 'create', '--help'], ['token', 'create', '-h']]
      .map(async (args) => ({ args, run: await admin(t, args) })))
    for (const { args, run } of runs) {
      assert.equal(run.code, 0, args.join(' '))
      assert.match(run.stdout, /^Usage: ingot admin/, args.join(' '))
    }
    assert.match(runs[0]?.run.stdout ?? '', /user create[\s\S]*user password[\s\S]*token create/)
    assert.match(runs[1]?.run.stdout ?? '', /create[\s\S]*password/)
    assert.match(runs[2]?.run.stdout ?? '', /--username[\s\S]*--email[\s\S]*--name[\s\S]*--admin[\s\S]*--password-stdin/)
    assert.match(runs[3]?.run.stdout ?? '', /--scopes[\s\S]*--name[\s\S]*--expires/)
    const main = await ingot(t, ['--help'])
    assert.match(main.stdout, /admin +create users and tokens/)
  })

  it('refuses a command line it cannot read with exit 2 and the usage', async () => {
    const cases: [string[], RegExp][] = [
      [[], /Usage: ingot admin <group> <command>/],
      [['frobnicate'], /unknown command "frobnicate"/],
      [['user', 'delete', 'x'], /unknown command "delete"/],
      [['user', 'create', '--username', 'u1', '--email', 'u1@example.com'], /--name is required/],
      [['user', 'create', '--username', 'u1', '--email', 'u1@example.com', '--name', 'U', '--bogus'], /Unknown option '--bogus'/],
      [['token', 'create', '--scopes', 'api'], /USERNAME is missing/],
      [['token', 'create', 'root', '--scopes', 'api', '--expires', '2030-02-30'], /--expires must be a date as YYYY-MM-DD/],
      [['token', 'create', 'root', '--scopes', 'api', '--expires', '2001-01-01'], /--expires must be a date after today/],
    ]
    const runs = await Promise.all(cases.map(([args]) => admin(t, args)))
    cases.forEach(([args, message], i) => {
      const run = runs[i] as Run
      assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`)
      assert.match(run.stderr, message, args.join(' '))
      assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace')
    })
    assert.equal(await userRow(t, 'u1'), undefined)
  })

  it('creates a user with a generated password it prints once', async () => {
    const run = await admin(t, ['user', 'create', '--username', 'Grace', '--email', 'grace@example.com', '--name', 'Grace Hopper'])
    assert.equal(run.code, 0, run.stderr)
    const user = await userRow(t, 'grace')
    assert.ok(user)
    assert.equal(user.username, 'Grace')
    assert.equal(user.admin, 0)
    assert.match(run.stdout, new RegExp(`^Created user "Grace" \\(id ${user.id}\\)\\.\\n`))
    const password = /^Password: (\S+)$/m.exec(run.stdout)?.[1] ?? ''
    assert.ok(await passwordMatches(user.password_digest, password))
    // The namespace the API's user creation makes comes with it.
    const namespace = await t.api('GET', '/namespaces/Grace')
    assert.equal(namespace.status, 200)
    assert.equal(namespace.body.kind, 'user')
  })

  it('creates an administrator with the password read from standard input', async () => {
    const run = await admin(t, ['user', 'create', '--username', 'linus', '--email', 'linus@example.com', '--name', 'Linus', '--admin', '--password-stdin'],
      'chosen-password-1\n')
    assert.equal(run.code, 0, run.stderr)
    assert.doesNotMatch(run.stdout, /Password/)
    assert.match(run.stdout, /administrator/)
    const user = await userRow(t, 'linus')
    assert.equal(user?.admin, 1)
    assert.ok(await passwordMatches(user?.password_digest ?? null, 'chosen-password-1'))
  })

  it('refuses a user as the API refuses it, with exit 1 and its message', async () => {
    const api = await t.api('POST', '/users', { body: { username: 'fresh', email: 'not-an-email', name: 'Fresh', password: 'long-enough-1' } })
    assert.deepEqual(api.body, { message: { email: ['is invalid'] } })
    const [badEmail, takenName] = await Promise.all([
      admin(t, ['user', 'create', '--username', 'fresh', '--email', 'not-an-email', '--name', 'Fresh']),
      admin(t, ['user', 'create', '--username', 'GRACE', '--email', 'other@example.com', '--name', 'Other']),
    ])
    assertFailure(badEmail, 1, /^ingot admin user create: email is invalid\n$/)
    assertFailure(takenName, 1, /Username has already been taken/)
    assert.equal(await userRow(t, 'fresh'), undefined)
  })

  it("sets a user's password, generated or read from standard input, signing them out everywhere", async () => {
    const grace = await userRow(t, 'grace')
    await startSession(t.ctx.db, grace!.id)
    const chosen = await admin(t, ['user', 'password', 'GRACE', '--password-stdin'], 'a-new-password-2\r\n')
    assert.equal(chosen.code, 0, chosen.stderr)
    assert.equal(await t.ctx.db.selectFrom('sessions').select('id').where('user_id', '=', grace!.id).executeTakeFirst(), undefined)
    assert.equal(chosen.stdout, 'Set the password of "Grace".\n')
    assert.ok(await passwordMatches((await userRow(t, 'grace'))?.password_digest ?? null, 'a-new-password-2'))

    const [generated, short, empty, nobody] = await Promise.all([
      admin(t, ['user', 'password', 'grace']),
      admin(t, ['user', 'password', 'linus', '--password-stdin'], 'short'),
      admin(t, ['user', 'password', 'linus', '--password-stdin'], ''),
      admin(t, ['user', 'password', 'nobody-here']),
    ])
    assert.equal(generated.code, 0, generated.stderr)
    const password = /^Password: (\S+)$/m.exec(generated.stdout)?.[1] ?? ''
    assert.ok(await passwordMatches((await userRow(t, 'grace'))?.password_digest ?? null, password))
    assertFailure(short, 1, /password is too short \(minimum is 8 characters\)/)
    assertFailure(empty, 1, /standard input held no password/)
    assertFailure(nobody, 1, /^ingot admin user password: there is no user "nobody-here"\n$/)
    assert.ok(await passwordMatches((await userRow(t, 'linus'))?.password_digest ?? null, 'chosen-password-1'), 'a refused password changes nothing')
  })

  it('creates a token that authenticates API calls within its scopes, printed alone on the last line', async () => {
    const expires = isoDateOf(Date.now() + 30 * 86_400_000)
    const run = await admin(t, ['token', 'create', 'GRACE', '--scopes', 'api,read_user', '--name', 'deploy', '--expires', expires])
    assert.equal(run.code, 0, run.stderr)
    const token = lastLine(run.stdout)
    assert.match(token, /^[A-Za-z0-9_-]{20}$/)
    assert.equal(run.stdout.split(token).length, 2, 'the token is printed once')
    assert.match(run.stdout, new RegExp(`"deploy" .*"Grace": scopes api, read_user; expires ${expires}`))

    const me = await t.api('GET', '/user', { token })
    assert.equal(me.status, 200)
    assert.equal(me.body.username, 'Grace')
    assert.equal((await t.api('POST', '/projects', { token, body: { name: 'made-with-cli-token' } })).status, 201)

    const readOnly = lastLine((await admin(t, ['token', 'create', 'grace', '--scopes', 'read_user'])).stdout)
    assert.equal((await t.api('GET', '/user', { token: readOnly })).status, 200)
    assert.equal((await t.api('POST', '/projects', { token: readOnly, body: { name: 'refused' } })).status, 403)
  })

  it('refuses a token it cannot make with exit 1', async () => {
    const [unknownUser, badScope] = await Promise.all([
      admin(t, ['token', 'create', 'nobody-here', '--scopes', 'api']),
      admin(t, ['token', 'create', 'root', '--scopes', 'api,everything']),
    ])
    assertFailure(unknownUser, 1, /there is no user "nobody-here"/)
    assertFailure(badScope, 1, /scopes can only contain available scopes/)
  })

  it('lists the bans failed sign-ins earned and lifts them, the address then free to come back', async () => {
    const bans = t.ctx.throttles.signInBans
    // Failures until all four are banned: 10 in one window (a minute's end between them takes more).
    for (let i = 0; i < 30 && (await bans.list()).length < 4; i += 1) {
      await bans.failed({ address: '10.7.0.1', account: accountKey(null, 'Ghost-Login') })
      await bans.failed({ address: '10.7.0.2', account: accountKey(t.root.user.id, 'root') })
    }
    const listed = await admin(t, ['ban', 'list'])
    assert.equal(listed.code, 0, listed.stderr)
    const targets = listed.stdout.trimEnd().split('\n').map((line) => line.split('\t')[0]).sort()
    assert.deepEqual(targets, ['address:10.7.0.1', 'address:10.7.0.2', 'login:ghost-login', 'user:root'])
    assert.match(listed.stdout, /\tuntil \d{4}-\d{2}-\d{2}T/)
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/v4/projects', remoteAddress: '10.7.0.1' })).statusCode, 403)

    for (const target of ['address:10.7.0.1', 'user:root', 'login:Ghost-Login']) {
      const lifted = await admin(t, ['ban', 'lift', target])
      assert.equal(lifted.code, 0, lifted.stderr)
      assert.match(lifted.stdout, new RegExp(`Lifted the ban of ${target}`))
    }
    assert.deepEqual((await bans.list()).map((ban) => ban.key), ['address:10.7.0.2'])
    // (This process would see the lift after its read cache's time to live; its own lift at once.)
    await bans.lift('address:10.7.0.1')
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/v4/projects', remoteAddress: '10.7.0.1' })).statusCode, 200)
    assertFailure(await admin(t, ['ban', 'lift', 'address:10.7.0.9']), 1, /address:10\.7\.0\.9 is not banned/)
    assertFailure(await admin(t, ['ban', 'lift', '10.7.0.2']), 2, /TARGET must be address:ADDRESS/)
  })
})
