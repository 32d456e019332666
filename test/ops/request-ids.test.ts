// Request ids: a short, plain X-Request-Id is kept, any other is replaced by a generated one; every
// answer carries the id (errors, unknown URLs, unreadable URLs and git's answers included), and so
// does every log line of the request, the request line among them, and the jobs the request causes
// (and the jobs those cause) with their log lines.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { pino } from 'pino'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { startHookReceiver } from '../helpers/hook-receiver.js'
import { makeProject } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import { projectFullPath } from '../helpers/projects.js'

const GENERATED = /^[0-9a-f]{16}$/

describe('request ids', () => {
  let t: TestApp
  const lines: Record<string, unknown>[] = []
  before(async () => {
    const log = pino({ level: 'info' }, new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n')) if (line !== '') lines.push(JSON.parse(line) as Record<string, unknown>)
        done()
      },
    }))
    t = await buildTestApp({ log })
  })
  after(() => t.close())

  const idOf = (res: { headers: Record<string, unknown> }) => String(res.headers['x-request-id'])

  it('keeps a plain incoming X-Request-Id', async () => {
    for (const given of ['abc', 'Req-1.2_3', 'x'.repeat(128), '0123456789abcdef0123456789abcdef']) {
      const res = await t.api('GET', '/user', { headers: { 'x-request-id': given } })
      assert.equal(res.status, 200)
      assert.equal(idOf(res), given)
    }
  })

  it('replaces one that is too long or holds other characters, and makes one when none came', async () => {
    const refused = ['x'.repeat(129), 'has space', 'semi;colon', 'new\tline', 'ünïcode', '"quoted"', '']
    const seen = new Set<string>()
    for (const given of refused) {
      const res = await t.api('GET', '/user', { headers: { 'x-request-id': given } })
      assert.match(idOf(res), GENERATED, JSON.stringify(given))
      seen.add(idOf(res))
    }
    for (let i = 0; i < 5; i += 1) seen.add(idOf(await t.api('GET', '/user')))
    assert.equal(seen.size, refused.length + 5, 'every generated id is new')
  })

  it('is on errors, unknown URLs and URLs the router cannot read', async () => {
    const answers = [
      await t.api('GET', '/projects/999999'), // 404 from a route
      await t.api('GET', '/user', { token: 'not-a-token' }), // 401
      await t.api('POST', '/projects', { body: {} }), // 400 from validation
      await t.api('GET', '/-/no-such-page'), // no route
    ]
    for (const res of answers) assert.match(idOf(res), GENERATED, `${res.status} ${res.text}`)
    const unreadable = await t.app.inject({ url: '/api/v4/projects/%zz', headers: { 'x-request-id': 'bad-url-1' } })
    assert.equal(unreadable.statusCode, 400)
    assert.equal(idOf(unreadable), 'bad-url-1')
  })

  it("is on git's answers over smart HTTP", async () => {
    const project = await makeProject(t, null, { visibility: 'public' })
    await commitFiles(t, project.id, { 'README.md': '# hello\n' })
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 })
    const url = `${address}/${await projectFullPath(t, project)}.git/info/refs?service=git-upload-pack`
    const advertised = await fetch(url, { headers: { 'x-request-id': 'git-refs-1' } })
    assert.equal(advertised.status, 200)
    assert.match((await advertised.text()), /# service=git-upload-pack/)
    assert.equal(advertised.headers.get('x-request-id'), 'git-refs-1')
    const refused = await fetch(url.replace('git-upload-pack', 'git-receive-pack'))
    assert.equal(refused.status, 401)
    assert.match(String(refused.headers.get('x-request-id')), GENERATED)
  })

  it('is in every log line of the request, the request line among them', async () => {
    lines.length = 0
    await t.api('GET', '/projects/999999', { headers: { 'x-request-id': 'logged-1' } })
    await t.app.inject({ url: '/api/v4/projects/%zz', headers: { 'x-request-id': 'logged-2' } })
    const requestLine = lines.find((line) => line.msg === 'request' && line.request_id === 'logged-1')
    assert.ok(requestLine, JSON.stringify(lines))
    assert.equal(requestLine.path, '/api/v4/projects/999999')
    assert.equal(requestLine.status, 404)
    assert.ok(lines.some((line) => line.msg === 'request' && line.request_id === 'logged-2' && line.status === 400))
  })

  it('is on the log lines of a request that failed', async () => {
    // A database that fails every query the routes make: an error no handler expects, a 500.
    const working = t.ctx.db
    t.ctx.db = working.withPlugin({
      transformQuery: () => { throw new Error('the database is gone') },
      transformResult: async (args) => args.result,
    })
    lines.length = 0
    try {
      const res = await t.api('GET', '/projects/1', { headers: { 'x-request-id': 'failed-1' } })
      assert.equal(res.status, 500)
      assert.equal(idOf(res), 'failed-1')
    } finally {
      t.ctx.db = working
    }
    const failure = lines.filter((line) => line.request_id === 'failed-1')
    assert.ok(failure.some((line) => line.msg === 'request failed' && (line.err as { message?: string }).message === 'the database is gone'),
      JSON.stringify(lines))
    assert.ok(failure.some((line) => line.msg === 'request' && line.status === 500))
  })

  it('follows the request into the jobs it causes, the jobs those cause, and their log lines', async () => {
    const receiver = await startHookReceiver()
    try {
      assert.equal((await t.api('PUT', '/application/settings', { body: { allow_local_requests_from_hooks_and_services: true } })).status, 200)
      const project = await makeProject(t, null, { visibility: 'private' })
      const hook = await t.api('POST', `/projects/${project.id}/hooks`, { body: { url: `${receiver.url}/issues`, issues_events: true } })
      assert.equal(hook.status, 201, hook.text)
      await t.ctx.jobs.runDue()
      const created = await t.api('POST', `/projects/${project.id}/issues`, { body: { title: 'Traced' }, headers: { 'x-request-id': 'caused-1' } })
      assert.equal(created.status, 201, created.text)
      // The issue's activity enqueued the web hooks' fan-out under the request's id…
      const fanOut = (await t.ctx.jobs.list({ kind: 'web_hooks.fan_out' })).filter((job) => job.requestId === 'caused-1')
      assert.equal(fanOut.length, 1, JSON.stringify(await t.ctx.jobs.list()))
      lines.length = 0
      while (await t.ctx.jobs.runDue() > 0) { /* the fan-out, then the delivery it enqueues */ }
      assert.equal(receiver.received.length, 1)
      // …and the delivery the fan-out enqueued carries it on, each job's log lines with it.
      const jobsLogged = new Set(lines.filter((line) => line.request_id === 'caused-1' && line.msg === 'job done').map((line) => line.job))
      assert.deepEqual([...jobsLogged].sort(), ['web_hooks.deliver', 'web_hooks.fan_out'], JSON.stringify(lines))
    } finally {
      await receiver.close()
    }
  })
})
