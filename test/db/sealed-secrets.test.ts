// Secrets at rest: hook tokens and integration settings are sealed (AES-256-GCM, a key per
// purpose) with the key in the data directory (made at first start, mode 0600) or INGOT_SECRET_KEY;
// the migration seals what an older Ingot stored in plain text (and its down migration opens it
// again); after a key rotation every start reseals what the previous key sealed.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { Migrator, sql } from 'kysely'
import { pino } from 'pino'
import { ConfigError, loadConfig, type Config } from '../../src/config.js'
import { openContext, type AppContext } from '../../src/context.js'
import { SECRET_KEY_FILE, SecretBox, SecretBoxError } from '../../src/common/secret-box.js'
import { migrations } from '../../src/db/migrations/index.js'
import { createTestDatabase, testDatabaseServer, type TestApp } from '../helpers/app.js'
import { startHookReceiver, type HookReceiver } from '../helpers/hook-receiver.js'
import { makeProject, makeUser } from '../helpers/factories.js'
import { createSystemHook } from '../../src/services/hooks/web-hooks.js'
import { saveIntegration } from '../../src/services/integrations/integrations.js'
import { integrationSlug } from '../../src/services/integrations/catalog.js'
import { deliver } from '../../src/services/hooks/deliveries.js'

const KEY_A = 'a'.repeat(16) + 'key-number-one-for-tests'
const KEY_B = 'b'.repeat(16) + 'key-number-two-for-tests'

describe('the secret box', () => {
  const box = new SecretBox(KEY_A)

  it('seals with a fresh nonce and opens only for the same purpose, unaltered', () => {
    const sealed = box.seal('web_hooks.token', 'hunter2')
    assert.notEqual(box.seal('web_hooks.token', 'hunter2'), sealed)
    assert.doesNotMatch(sealed, /hunter2/)
    assert.equal(box.open('web_hooks.token', sealed), 'hunter2')
    assert.throws(() => box.open('integrations.secrets', sealed), SecretBoxError)
    const altered = `${sealed.slice(0, -2)}${sealed.endsWith('AA') ? 'AB' : 'AA'}`
    assert.throws(() => box.open('web_hooks.token', altered), SecretBoxError)
    assert.throws(() => box.open('web_hooks.token', 'hunter2'), SecretBoxError)
    assert.throws(() => new SecretBox(KEY_B).open('web_hooks.token', sealed), /a key Ingot does not have/)
  })

  it('opens what a previous key sealed, and says it should be resealed', () => {
    const old = box.seal('web_hooks.token', 'kept')
    const rotated = new SecretBox(KEY_B, [KEY_A])
    assert.equal(rotated.open('web_hooks.token', old), 'kept')
    assert.equal(rotated.sealedWithPreviousKey(old), true)
    assert.equal(rotated.sealedWithPreviousKey(rotated.seal('web_hooks.token', 'new')), false)
  })

  it('refuses keys shorter than 32 characters', () => {
    assert.throws(() => loadConfig({ INGOT_SECRET_KEY: 'short' }), ConfigError)
    assert.throws(() => loadConfig({ INGOT_SECRET_KEY: KEY_A, INGOT_PREVIOUS_SECRET_KEYS: `${KEY_B},short` }), ConfigError)
  })
})

describe('secrets at rest', () => {
  let dataDir: string
  let database: Awaited<ReturnType<typeof createTestDatabase>> | null = null
  let receiver: HookReceiver
  let ctx: AppContext | null = null

  const configWith = (env: Record<string, string> = {}): Config =>
    loadConfig({ INGOT_DATA_DIR: dataDir, INGOT_DATABASE_URL: database?.url ?? '', INGOT_ROOT_PASSWORD: 'root-password', ...env })
  const reopen = async (env: Record<string, string> = {}, log = pino({ level: 'silent' })) => {
    await ctx?.close()
    ctx = await openContext(configWith(env), log)
    return ctx
  }
  const rawSecrets = async (c: AppContext) => ({
    tokens: (await sql<{ v: string | null }>`select encrypted_token as v from web_hooks order by id`.execute(c.db)).rows.map((r) => r.v),
    properties: (await sql<{ v: string | null }>`select encrypted_properties as v from integrations order by id`.execute(c.db)).rows.map((r) => r.v),
  })

  before(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ingot-secrets-'))
    const server = testDatabaseServer()
    database = server === null ? null : await createTestDatabase(server)
    receiver = await startHookReceiver()
  })
  after(async () => {
    await ctx?.close()
    await receiver.close()
    await fs.rm(dataDir, { recursive: true, force: true })
    await database?.drop()
  })

  it('keeps the key in the data directory, readable by the owner only, made at first start', async () => {
    const c = await reopen()
    const stat = await fs.stat(path.join(dataDir, SECRET_KEY_FILE))
    assert.equal(stat.mode & 0o777, 0o600)
    const key = await fs.readFile(path.join(dataDir, SECRET_KEY_FILE), 'utf8')
    await reopen()
    assert.equal(await fs.readFile(path.join(dataDir, SECRET_KEY_FILE), 'utf8'), key)
    assert.ok(c.secrets instanceof SecretBox)
  })

  it('seals what an older Ingot kept in plain text, and sends it as before', async () => {
    const c = await reopen()
    const hook = await createSystemHook(c, { url: `${receiver.url}/system`, token: 'plain-token', events: {} })
    // The factories need only a context.
    const t = { ctx: c } as TestApp
    const project = await makeProject(t, await makeUser(t))
    await saveIntegration(c, project.id, integrationSlug('collaboration-inbox')!.kind, { settings: { token: 'plain-integration-token' }, events: {} })

    // Back to the schema before sealing: the down migration opens the values into plain columns.
    const migrator = new Migrator({ db: c.db, provider: { getMigrations: async () => migrations({ secrets: c.secrets }) } })
    assert.equal((await migrator.migrateTo('0011_job_states')).error, undefined)
    const plain = await sql<{ token: string }>`select token from web_hooks where id = ${hook.id}`.execute(c.db)
    assert.equal(plain.rows[0]!.token, 'plain-token')
    const properties = await sql<{ properties: string }>`select properties from integrations`.execute(c.db)
    assert.equal(JSON.parse(properties.rows[0]!.properties).token, 'plain-integration-token')

    const upgraded = await reopen()
    const raw = await rawSecrets(upgraded)
    assert.ok(!JSON.stringify(raw).includes('plain-'))
    const stored = await upgraded.db.selectFrom('integrations').selectAll().executeTakeFirstOrThrow()
    assert.equal(JSON.parse(upgraded.secrets.open('integrations.secrets', stored.encrypted_properties!)).token, 'plain-integration-token')
    const row = await upgraded.db.selectFrom('web_hooks').selectAll().where('id', '=', hook.id).executeTakeFirstOrThrow()
    receiver.clear()
    assert.equal((await deliver(upgraded, row, 'System Hook', {})).status, 200)
    assert.equal(receiver.received[0]?.headers['x-service-token'], 'plain-token')
  })

  it('reseals at start what a previous key sealed, after which the previous key may go', async () => {
    const generated = (await fs.readFile(path.join(dataDir, SECRET_KEY_FILE), 'utf8')).trim()
    const sealedWithFile = await rawSecrets(await reopen())
    // From the generated key to a configured one, then to another.
    const sealedWithA = await rawSecrets(await reopen({ INGOT_SECRET_KEY: KEY_A, INGOT_PREVIOUS_SECRET_KEYS: generated }))
    const sealedWithB = await rawSecrets(await reopen({ INGOT_SECRET_KEY: KEY_B, INGOT_PREVIOUS_SECRET_KEYS: KEY_A }))
    for (const [from, to] of [[sealedWithFile, sealedWithA], [sealedWithA, sealedWithB]] as const) {
      assert.equal(to.tokens.length, 1)
      assert.equal(to.properties.length, 1)
      assert.ok(to.tokens[0] !== from.tokens[0] && to.properties[0] !== from.properties[0])
    }
    const alone = await reopen({ INGOT_SECRET_KEY: KEY_B })
    const row = await alone.db.selectFrom('web_hooks').selectAll().executeTakeFirstOrThrow()
    assert.equal(alone.secrets.open('web_hooks.token', row.encrypted_token!), 'plain-token')
  })

  it('says at start when stored secrets are sealed with a key it does not have', async () => {
    const lines: string[] = []
    const log = pino({ level: 'error' }, { write: (line: string) => { lines.push(line) } })
    await reopen({ INGOT_SECRET_KEY: 'c'.repeat(40) }, log)
    assert.equal(lines.length, 1)
    assert.match(JSON.parse(lines[0]!).msg, /sealed with a key Ingot does not have/)
    lines.length = 0
    await reopen({ INGOT_SECRET_KEY: KEY_B }, log)
    assert.deepEqual(lines, [])
  })
})
