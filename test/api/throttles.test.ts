// The request throttles (application settings throttle_*, the original's Rack::Attack throttles):
// defaults and validation, 429 `Retry later` over the limit, which requests each throttle counts
// and by what (address, token user, session user), settings taking effect at once, and counts
// shared by two processes on one database.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { pino } from 'pino'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeUser, type TestUser } from '../helpers/factories.js'
import { openContext, type AppContext } from '../../src/context.js'
import { buildApp } from '../../src/app.js'
import { Browser } from '../web/browser.js'

const DAY = {
  throttle_unauthenticated_period_in_seconds: 86400,
  throttle_authenticated_api_period_in_seconds: 86400,
  throttle_authenticated_web_period_in_seconds: 86400,
}

const OFF = {
  throttle_unauthenticated_enabled: false,
  throttle_authenticated_api_enabled: false,
  throttle_authenticated_web_enabled: false,
}

describe('Request throttles', () => {
  let t: TestApp
  let alice: TestUser
  let bob: TestUser
  before(async () => {
    t = await buildTestApp()
    alice = await makeUser(t, { username: 'alice' })
    bob = await makeUser(t, { username: 'bob' })
  })
  after(async () => { await t.close() })

  const settings = async (body: Record<string, unknown>) => {
    const res = await t.api('PUT', '/application/settings', { body })
    assert.equal(res.status, 200, res.text)
  }
  /** A GET from `address`, with a Private-Token when `token` is given. */
  const get = (url: string, address: string, token?: string, app: FastifyInstance = t.app) => app.inject({
    method: 'GET', url, remoteAddress: address, headers: token === undefined ? {} : { 'private-token': token },
  })
  /**
   * Each throttle starts over: its counters of earlier tests are forgotten. Periods are a day, so
   * that a test's requests do not fall on both sides of a window's end (windows are aligned).
   */
  const fresh = async (body: Record<string, unknown>) => {
    await settings({ ...OFF, ...DAY, ...body })
    await t.ctx.db.deleteFrom('throttle_counters').execute()
  }

  it("has the original's settings, off, with 11.5's numbers", async () => {
    const res = await t.api('GET', '/application/settings')
    assert.deepEqual(Object.fromEntries(Object.entries(res.body).filter(([name]) => name.startsWith('throttle_'))), {
      throttle_unauthenticated_enabled: false,
      throttle_unauthenticated_requests_per_period: 3600,
      throttle_unauthenticated_period_in_seconds: 3600,
      throttle_authenticated_api_enabled: false,
      throttle_authenticated_api_requests_per_period: 7200,
      throttle_authenticated_api_period_in_seconds: 3600,
      throttle_authenticated_web_enabled: false,
      throttle_authenticated_web_requests_per_period: 7200,
      throttle_authenticated_web_period_in_seconds: 3600,
    })
  })

  it('keeps changed numbers and refuses numbers that are not above 0', async () => {
    await settings({ throttle_authenticated_api_requests_per_period: 50, throttle_authenticated_web_period_in_seconds: 120 })
    const res = await t.api('GET', '/application/settings')
    assert.equal(res.body.throttle_authenticated_api_requests_per_period, 50)
    assert.equal(res.body.throttle_authenticated_web_period_in_seconds, 120)
    const zero = await t.api('PUT', '/application/settings', { body: { throttle_unauthenticated_period_in_seconds: 0 } })
    assert.equal(zero.status, 400)
    assert.deepEqual(zero.body, { message: { throttle_unauthenticated_period_in_seconds: ['must be greater than 0'] } })
    assert.equal((await t.api('PUT', '/application/settings', { body: { throttle_authenticated_api_period_in_seconds: 'x' } })).status, 400)
  })

  it('counts requests without a user per address: over the limit, 429 Retry later with Retry-After', async () => {
    await fresh({ throttle_unauthenticated_enabled: true, throttle_unauthenticated_requests_per_period: 3 })
    try {
      for (let i = 0; i < 3; i += 1) assert.equal((await get('/api/v4/projects', '10.1.0.1')).statusCode, 200)
      const over = await get('/api/v4/projects', '10.1.0.1')
      assert.equal(over.statusCode, 429)
      assert.equal(over.body, 'Retry later\n')
      assert.match(String(over.headers['content-type']), /^text\/plain/)
      assert.equal(over.headers['retry-after'], '86400')
      // Web pages and unknown URLs count against the address too.
      assert.equal((await get('/users/sign_in', '10.1.0.1')).statusCode, 429)
      assert.equal((await get('/api/v4/projects', '10.1.0.2')).statusCode, 200, 'another address has its own count')
      assert.equal((await get('/api/v4/projects', '10.1.0.1', alice.token)).statusCode, 200, 'a user is not counted by this throttle')
    } finally {
      await settings(OFF)
    }
  })

  it('counts refused credentials and git over HTTP against the address', async () => {
    await fresh({ throttle_unauthenticated_enabled: true, throttle_unauthenticated_requests_per_period: 2 })
    try {
      assert.equal((await get('/api/v4/user', '10.2.0.1', 'not-a-token')).statusCode, 401)
      const basic = `Basic ${Buffer.from('alice:password1234').toString('base64')}`
      const git = await t.app.inject({ method: 'GET', url: '/alice/nothing.git/info/refs?service=git-upload-pack', remoteAddress: '10.2.0.1', headers: { authorization: basic } })
      assert.notEqual(git.statusCode, 429)
      assert.equal((await get('/api/v4/user', '10.2.0.1', 'not-a-token')).statusCode, 429)
    } finally {
      await settings(OFF)
    }
  })

  it('counts API requests with a user per user, whatever the address', async () => {
    await fresh({ throttle_authenticated_api_enabled: true, throttle_authenticated_api_requests_per_period: 2 })
    try {
      assert.equal((await get('/api/v4/user', '10.3.0.1', alice.token)).statusCode, 200)
      assert.equal((await get('/api/v4/user', '10.3.0.2', alice.token)).statusCode, 200)
      const over = await get('/api/v4/user', '10.3.0.3', alice.token)
      assert.equal(over.statusCode, 429)
      assert.equal(over.body, 'Retry later\n')
      assert.equal((await get('/api/v4/user', '10.3.0.1', bob.token)).statusCode, 200, 'another user has their own count')
      assert.equal((await get('/api/v4/projects', '10.3.0.1')).statusCode, 200, 'requests without a user are not counted here')
    } finally {
      await settings(OFF)
    }
  })

  it('counts web requests of a signed-in user per user, apart from their API requests', async () => {
    const browser = new Browser(t, '10.4.0.1')
    await browser.signIn('alice')
    await fresh({ throttle_authenticated_web_enabled: true, throttle_authenticated_web_requests_per_period: 2 })
    try {
      assert.equal((await browser.get('/help')).status, 200)
      assert.equal((await get('/api/v4/user', '10.4.0.1', alice.token)).statusCode, 200, 'API requests are not counted here')
      assert.equal((await browser.get('/help')).status, 200)
      const over = await browser.get('/help')
      assert.equal(over.status, 429)
      assert.equal(over.text, 'Retry later\n')
      assert.equal((await new Browser(t, '10.4.0.1').get('/help')).status, 200, 'an anonymous visitor from the address is not counted here')
    } finally {
      await settings(OFF)
    }
  })

  it('takes changed settings at once: a higher limit, then off', async () => {
    await fresh({ throttle_unauthenticated_enabled: true, throttle_unauthenticated_requests_per_period: 1 })
    try {
      assert.equal((await get('/api/v4/projects', '10.5.0.1')).statusCode, 200)
      assert.equal((await get('/api/v4/projects', '10.5.0.1')).statusCode, 429)
      await settings({ throttle_unauthenticated_requests_per_period: 5 })
      assert.equal((await get('/api/v4/projects', '10.5.0.1')).statusCode, 200)
      await settings({ throttle_unauthenticated_requests_per_period: 1 })
      assert.equal((await get('/api/v4/projects', '10.5.0.1')).statusCode, 429)
      await settings(OFF)
      assert.equal((await get('/api/v4/projects', '10.5.0.1')).statusCode, 200)
    } finally {
      await settings(OFF)
    }
  })

  it('counts the requests of every process on the database together', async () => {
    const other: AppContext = await openContext(t.ctx.config, pino({ level: 'silent' }))
    const otherApp = await buildApp(other)
    try {
      await fresh({ throttle_authenticated_api_enabled: true, throttle_authenticated_api_requests_per_period: 3 })
      assert.equal((await get('/api/v4/user', '10.6.0.1', bob.token)).statusCode, 200)
      assert.equal((await get('/api/v4/user', '10.6.0.1', bob.token, otherApp)).statusCode, 200)
      assert.equal((await get('/api/v4/user', '10.6.0.1', bob.token)).statusCode, 200)
      assert.equal((await get('/api/v4/user', '10.6.0.1', bob.token, otherApp)).statusCode, 429)
    } finally {
      await settings(OFF)
      await otherApp.close()
      await other.close()
    }
  })
})
