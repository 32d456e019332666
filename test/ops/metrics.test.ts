// /-/metrics: requests counted by route pattern (never the raw URL) and status, with durations;
// the scrape left out of what it reports; the process's own metrics, its git processes and, on
// PostgreSQL, the connection pool; and who may read it (INGOT_METRICS_ALLOW, relayed clients).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, testDatabaseServer, type TestApp } from '../helpers/app.js'
import { makeProject } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import { AddressAllowList } from '../../src/metrics/allow-list.js'
import { ConfigError, loadConfig } from '../../src/config.js'
import { sample } from '../helpers/metrics.js'

async function scrape(t: TestApp, remoteAddress = '127.0.0.1', headers: Record<string, string> = {}) {
  return t.app.inject({ url: '/-/metrics', remoteAddress, headers })
}

describe('GET /-/metrics', () => {
  let t: TestApp
  before(async () => { t = await buildTestApp() })
  after(() => t.close())

  it('counts requests by route pattern, method and status, with their durations', async () => {
    const project = await makeProject(t, null)
    assert.equal((await t.api('GET', `/projects/${project.id}`)).status, 200)
    assert.equal((await t.api('GET', '/projects/999999')).status, 404)
    assert.equal((await t.api('GET', '/projects/888888')).status, 404)
    assert.equal((await t.app.inject({ url: '/-/no/such/page' })).statusCode, 404)
    assert.equal((await t.app.inject({ url: `/api/v4/another/${Date.now()}` })).statusCode, 404)

    const res = await scrape(t)
    assert.equal(res.statusCode, 200)
    assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/)
    const route = '/api/v4/projects/:id'
    assert.equal(sample(res.body, 'ingot_http_requests_total', { route, method: 'GET', status: '200' }), 1)
    assert.equal(sample(res.body, 'ingot_http_requests_total', { route, method: 'GET', status: '404' }), 2)
    assert.equal(sample(res.body, 'ingot_http_requests_total', { route: 'unmatched', method: 'GET', status: '404' }), 2)
    assert.equal(sample(res.body, 'ingot_http_request_duration_seconds_count', { route, method: 'GET' }), 3)
    assert.ok((sample(res.body, 'ingot_http_request_duration_seconds_sum', { route, method: 'GET' }) ?? 0) > 0)
    assert.equal(sample(res.body, 'ingot_http_request_duration_seconds_bucket', { route, method: 'GET', le: '+Inf' }), 3)
    assert.ok(!res.body.includes('/-/no/such/page') && !res.body.includes('/projects/999999'), 'no raw URL becomes a label')
  })

  it('leaves its own requests out of the request metrics', async () => {
    await scrape(t)
    await scrape(t, '10.9.9.9')
    const res = await scrape(t)
    assert.ok(!res.body.includes('route="/-/metrics"'))
  })

  it("has the process's metrics: memory, CPU, event loop", async () => {
    const res = await scrape(t)
    for (const name of ['process_resident_memory_bytes', 'process_cpu_seconds_total', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_seconds']) {
      assert.ok((sample(res.body, name) ?? -1) >= 0, name)
    }
  })

  it('counts the git processes running and started, by git command', async () => {
    const project = await makeProject(t, null)
    // Writing a commit reads objects through the long-lived cat-file readers, which stay open a while.
    await commitFiles(t, project.id, { 'README.md': '# hello\n' })
    const res = await scrape(t)
    assert.ok((sample(res.body, 'ingot_git_processes', { command: 'cat-file' }) ?? 0) >= 1)
    assert.ok((sample(res.body, 'ingot_git_processes_started_total', { command: 'cat-file' }) ?? 0) >= 1)
    assert.ok((sample(res.body, 'ingot_git_processes_started_total', { command: 'init' }) ?? 0) >= 1)
    // Short commands are counted while they run only: none is running now.
    assert.equal(sample(res.body, 'ingot_git_processes', { command: 'init' }), 0)
  })

  it('reports the PostgreSQL connection pool, and nothing of the kind on SQLite', async () => {
    const res = await scrape(t)
    if (testDatabaseServer() === null) {
      assert.ok(!res.body.includes('ingot_db_pool'))
      return
    }
    const total = sample(res.body, 'ingot_db_pool_connections')
    const idle = sample(res.body, 'ingot_db_pool_idle_connections')
    assert.ok(total !== undefined && total >= 1 && total <= 10, `total ${total}`)
    assert.ok(idle !== undefined && idle <= total)
    assert.equal(sample(res.body, 'ingot_db_pool_waiting_queries'), 0)
  })

  it('answers this machine by default (IPv4, IPv6 and IPv4-mapped) and nobody else, as an unknown URL', async () => {
    for (const address of ['127.0.0.1', '127.3.2.1', '::1', '::ffff:127.0.0.1']) {
      assert.equal((await scrape(t, address)).statusCode, 200, address)
    }
    const unknown = await t.app.inject({ url: '/-/no-such-page', remoteAddress: '10.0.0.1' })
    for (const address of ['10.0.0.1', '192.168.1.20', '2001:db8::1', '::ffff:10.0.0.1']) {
      const res = await scrape(t, address)
      assert.equal(res.statusCode, 404, address)
      assert.deepEqual(res.json(), unknown.json())
    }
  })

  it('refuses a request a proxy relays for a client outside the list', async () => {
    const refused: Record<string, string>[] = [
      { 'x-forwarded-for': '203.0.113.7' },
      { 'x-forwarded-for': '127.0.0.1, 203.0.113.7' },
      { 'x-real-ip': '203.0.113.7' },
      { forwarded: 'for=203.0.113.7;proto=https' },
      { forwarded: 'for="[2001:db8::7]:4711"' },
      { forwarded: 'for=unknown' },
      { 'x-forwarded-for': 'not an address' },
    ]
    for (const headers of refused) assert.equal((await scrape(t, '127.0.0.1', headers)).statusCode, 404, JSON.stringify(headers))
    const allowed: Record<string, string>[] = [{ 'x-forwarded-for': '127.0.0.5' }, { forwarded: 'for="[::1]:80", for=127.0.0.2' }, { 'x-real-ip': '::1' }]
    for (const headers of allowed) assert.equal((await scrape(t, '127.0.0.1', headers)).statusCode, 200, JSON.stringify(headers))
  })

  it('answers over a real socket from the loopback address', async () => {
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 })
    const res = await fetch(`${address}/-/metrics`)
    assert.equal(res.status, 200)
    assert.match(await res.text(), /^# HELP /m)
  })
})

describe('INGOT_METRICS_ALLOW', () => {
  it('defaults to this machine, and is read as a comma list', () => {
    assert.deepEqual(loadConfig({}).metricsAllow, ['127.0.0.0/8', '::1'])
    assert.deepEqual(loadConfig({ INGOT_METRICS_ALLOW: ' 10.0.0.0/8 ,2001:db8::/32, 192.0.2.1,' }).metricsAllow,
      ['10.0.0.0/8', '2001:db8::/32', '192.0.2.1'])
  })

  it('refuses what is not an address or a range, naming the variable', () => {
    for (const value of ['localhost', '10.0.0.0/33', '::1/129', '10.0.0.0/8/8', '10.0.0.0/x', '10.0.0.0/', ' , ']) {
      assert.throws(() => loadConfig({ INGOT_METRICS_ALLOW: value }),
        (err: unknown) => err instanceof ConfigError && err.message.includes('INGOT_METRICS_ALLOW'), value)
    }
  })

  let t: TestApp
  before(async () => { t = await buildTestApp({ env: { INGOT_METRICS_ALLOW: '10.1.0.0/16, 2001:db8::/32,192.0.2.7' } }) })
  after(() => t.close())

  it('replaces the default: the ranges and addresses named, and only those', async () => {
    for (const address of ['10.1.2.3', '2001:db8::99', '192.0.2.7', '::ffff:10.1.0.1']) {
      assert.equal((await scrape(t, address)).statusCode, 200, address)
    }
    for (const address of ['127.0.0.1', '::1', '10.2.0.1', '192.0.2.8']) {
      assert.equal((await scrape(t, address)).statusCode, 404, address)
    }
  })
})

describe('AddressAllowList', () => {
  it('holds addresses and ranges of both families', () => {
    const list = new AddressAllowList(['10.0.0.0/8', '192.0.2.1', 'fd00::/8', '::1'])
    assert.equal(list.allows('10.255.0.1'), true)
    assert.equal(list.allows('11.0.0.1'), false)
    assert.equal(list.allows('192.0.2.1'), true)
    assert.equal(list.allows('192.0.2.2'), false)
    assert.equal(list.allows('fd12::1'), true)
    assert.equal(list.allows('fe80::1'), false)
    assert.equal(list.allows('::1'), true)
    assert.equal(list.allows(undefined), false)
    assert.equal(list.allows('localhost'), false)
  })
})
