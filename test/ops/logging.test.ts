// INGOT_LOG_FORMAT, its default and refusals, and the two log formats as `ingot` writes them: JSON
// lines, or readable lines from pino-pretty, which the JSON path never loads.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import fs from 'node:fs/promises'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { ConfigError, loadConfig } from '../../src/config.js'
import { createLogger, logFormatFor } from '../../src/logger.js'
import { testDatabaseServer } from '../helpers/app.js'
import { ingotMain } from '../helpers/ingot-command.js'

const run = promisify(execFile)

describe('INGOT_LOG_FORMAT', () => {
  it('defaults to the format that suits the output', () => {
    assert.equal(loadConfig({}).logFormat, 'auto')
    assert.equal(loadConfig({ INGOT_LOG_FORMAT: 'json' }).logFormat, 'json')
    assert.equal(logFormatFor({ logFormat: 'pretty' }), 'pretty')
    assert.equal(logFormatFor({ logFormat: 'json' }), 'json')
    // The test runner reads this process's output through a pipe: no terminal, so JSON.
    assert.equal(logFormatFor({ logFormat: 'auto' }), 'json')
  })

  it('refuses another value, naming the variable', () => {
    assert.throws(() => loadConfig({ INGOT_LOG_FORMAT: 'fancy' }), (err: unknown) => err instanceof ConfigError && err.message.includes('INGOT_LOG_FORMAT'))
  })
})

describe('log formats', () => {
  it('loads pino-pretty only for readable lines', async () => {
    const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((file) => file.includes(`${path.sep}pino-pretty${path.sep}`))
    await createLogger({ logFormat: 'json', logLevel: 'info' })
    assert.equal(loaded(), false)
    await createLogger({ logFormat: 'pretty', logLevel: 'info' }, { fd: 2 })
    assert.equal(loaded(), true)
  })

  it('writes JSON lines or readable ones, as INGOT_LOG_FORMAT says', async (t) => {
    if (testDatabaseServer() !== null) return t.skip('a first start on the embedded database is enough to see the lines')
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ingot-logs-'))
    try {
      const migrate = (format: string) => run(process.execPath, [ingotMain(), 'migrate'], {
        env: { ...process.env, INGOT_DATA_DIR: path.join(dataDir, format), INGOT_LOG_FORMAT: format }, timeout: 60_000,
      })
      const [json, pretty] = await Promise.all([migrate('json'), migrate('pretty')])
      const line = JSON.parse(json.stdout.trim().split('\n')[0] ?? '') as { msg?: string; level?: number }
      assert.equal(line.msg, 'database migrated')
      assert.equal(line.level, 30)
      assert.match(pretty.stdout, /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: database migrated \{"migrations":\["0001_initial"/)
    } finally {
      await fs.rm(dataDir, { recursive: true, force: true })
    }
  })
})
