// Webhook deliveries end to end: real changes through the API (pushes, tags, issues, merge
// requests, notes, wiki pages) reach a real HTTP listener as background jobs with the right
// headers and payloads; nothing is enqueued without a hook; failures are retried with backoff; a
// receiver that never answers holds the queue no longer than the outbound timeout; local
// addresses are refused at delivery once the setting is off; and the address rules themselves.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import dns from 'node:dns'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { startHookReceiver, type HookReceiver, type ReceivedHook } from '../helpers/hook-receiver.js'
import { MAINTAINER } from '../../src/policies/access-levels.js'
import type { ProjectRow } from '../../src/db/schema.js'
import { checkOutboundUrl, OutboundError, postJson } from '../../src/services/outbound/outbound-http.js'
import { branchFilterMatches } from '../../src/services/hooks/deliveries.js'
import { DELIVER_WEB_HOOK } from '../../src/services/hooks/jobs.js'

async function drain(t: TestApp, now?: number): Promise<void> {
  while (await t.ctx.jobs.runDue(now ?? Date.now()) > 0) { /* until no job is due */ }
}

const ALL_EVENTS = {
  push_events: true, tag_push_events: true, issues_events: true, merge_requests_events: true, note_events: true, wiki_page_events: true,
}

describe('Web hook deliveries', () => {
  let t: TestApp
  let receiver: HookReceiver
  let owner: TestUser
  let project: ProjectRow
  let path: string

  const setLocal = async (allowed: boolean) => {
    assert.equal((await t.api('PUT', '/application/settings', { body: { allow_local_requests_from_hooks_and_services: allowed } })).status, 200)
  }
  const addHook = async (projectId: number, body: Record<string, unknown>) => {
    const res = await t.api('POST', `/projects/${projectId}/hooks`, { body })
    assert.equal(res.status, 201, res.text)
    return res.body as { id: number }
  }
  const byEvent = (event: string): ReceivedHook[] => receiver.received.filter((r) => r.headers['x-service-event'] === event)

  before(async () => {
    t = await buildTestApp()
    receiver = await startHookReceiver()
    await setLocal(true)
    owner = await makeUser(t, { name: 'Owner Person' })
    project = await makeProject(t, owner, { path: 'hooked', visibility: 'private' })
    path = `${owner.user.username}/hooked`
    await addHook(project.id, { url: `${receiver.url}/all`, token: 'hook-token', ...ALL_EVENTS })
  })
  after(async () => {
    await receiver.close()
    await t.close()
  })

  it('sends a push (an API commit) as a Push Hook with the original payload, after the request', async () => {
    receiver.clear()
    const first = await t.api('POST', `/projects/${project.id}/repository/commits`, {
      token: owner.token,
      body: { branch: 'master', commit_message: 'First commit', actions: [{ action: 'create', file_path: 'README.md', content: 'hello\n' }] },
    })
    assert.equal(first.status, 201, first.text)
    assert.equal(receiver.received.length, 0, 'nothing is delivered inside the request')
    await drain(t)
    receiver.clear()
    const second = await t.api('POST', `/projects/${project.id}/repository/commits`, {
      token: owner.token,
      body: {
        branch: 'master', commit_message: 'Second commit',
        actions: [{ action: 'update', file_path: 'README.md', content: 'changed\n' }, { action: 'create', file_path: 'docs/new.md', content: 'new\n' }],
      },
    })
    assert.equal(second.status, 201)
    await drain(t)
    const [push] = byEvent('Push Hook')
    assert.ok(push, 'a Push Hook arrived')
    assert.equal(push.path, '/all')
    assert.equal(push.headers['x-service-token'], 'hook-token')
    // The original's names too, which receivers written for it check.
    assert.equal(push.headers['x-gitlab-event'], 'Push Hook')
    assert.equal(push.headers['x-gitlab-token'], 'hook-token')
    assert.equal(push.headers['content-type'], 'application/json')
    const body = push.body
    assert.equal(body.object_kind, 'push')
    assert.equal(body.event_name, 'push')
    assert.equal(body.before, first.body.id)
    assert.equal(body.after, second.body.id)
    assert.equal(body.ref, 'refs/heads/master')
    assert.equal(body.checkout_sha, second.body.id)
    assert.equal(body.user_id, owner.user.id)
    assert.equal(body.user_name, 'Owner Person')
    assert.equal(body.user_username, owner.user.username)
    assert.equal(body.user_email, owner.user.email)
    assert.equal(body.project_id, project.id)
    assert.equal(body.project.path_with_namespace, path)
    assert.equal(body.project.web_url, `http://ingot.test/${path}`)
    assert.equal(body.project.git_http_url, `http://ingot.test/${path}.git`)
    assert.equal(body.project.git_ssh_url, `ssh://git@ingot.test:2222/${path}.git`)
    assert.equal(body.project.homepage, undefined, 'push payloads carry the project without the old names')
    assert.equal(body.total_commits_count, 1)
    assert.equal(body.commits.length, 1)
    const [commit] = body.commits
    assert.equal(commit.id, second.body.id)
    assert.equal(commit.message, 'Second commit')
    assert.equal(commit.url, `http://ingot.test/${path}/commit/${second.body.id}`)
    assert.deepEqual(commit.author, { name: 'Owner Person', email: owner.user.email })
    assert.match(commit.timestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/)
    assert.deepEqual({ added: commit.added, modified: commit.modified, removed: commit.removed }, { added: ['docs/new.md'], modified: ['README.md'], removed: [] })
    assert.deepEqual(Object.keys(body.repository).sort(), ['description', 'git_http_url', 'git_ssh_url', 'homepage', 'name', 'url', 'visibility_level'])
  })

  it('sends a new tag as a Tag Push Hook, and honours push_events_branch_filter', async () => {
    const filtered = await addHook(project.id, { url: `${receiver.url}/release-only`, push_events_branch_filter: 'release/*' })
    receiver.clear()
    const tag = await t.api('POST', `/projects/${project.id}/repository/tags`, { token: owner.token, body: { tag_name: 'v1.0', ref: 'master', message: 'Release 1.0' } })
    assert.equal(tag.status, 201, tag.text)
    const branch = await t.api('POST', `/projects/${project.id}/repository/branches`, { token: owner.token, body: { branch: 'release/1.0', ref: 'master' } })
    assert.equal(branch.status, 201, branch.text)
    await drain(t)
    const [tagPush] = byEvent('Tag Push Hook')
    assert.equal(tagPush?.body.object_kind, 'tag_push')
    assert.equal(tagPush?.body.ref, 'refs/tags/v1.0')
    assert.equal(tagPush?.body.checkout_sha, tag.body.commit.id)
    assert.equal(tagPush?.body.message, 'Release 1.0')
    assert.equal(tagPush?.body.total_commits_count, 1)
    const releasePushes = byEvent('Push Hook').filter((r) => r.path === '/release-only')
    assert.equal(releasePushes.length, 1)
    assert.equal(releasePushes[0]!.body.ref, 'refs/heads/release/1.0')
    assert.equal(releasePushes[0]!.body.before, '0000000000000000000000000000000000000000')
    receiver.clear()
    await t.api('POST', `/projects/${project.id}/repository/commits`, {
      token: owner.token, body: { branch: 'master', commit_message: 'Third', actions: [{ action: 'create', file_path: 'c.txt', content: 'c' }] },
    })
    await drain(t)
    assert.equal(receiver.received.filter((r) => r.path === '/release-only').length, 0, 'master is filtered out')
    assert.equal(byEvent('Push Hook').length, 1)
    await t.api('DELETE', `/projects/${project.id}/hooks/${filtered.id}`)
  })

  it('sends issue changes as Issue Hooks with action, labels, assignees and changes', async () => {
    receiver.clear()
    const created = await t.api('POST', `/projects/${project.id}/issues`, {
      token: owner.token, body: { title: 'Broken', description: 'It is', labels: 'bug', assignee_ids: [owner.user.id] },
    })
    assert.equal(created.status, 201, created.text)
    const iid = created.body.iid
    // Payloads are built when the fan-out job runs, so each step is delivered before the next.
    await drain(t)
    assert.equal((await t.api('PUT', `/projects/${project.id}/issues/${iid}`, { token: owner.token, body: { title: 'Very broken' } })).status, 200)
    await drain(t)
    assert.equal((await t.api('PUT', `/projects/${project.id}/issues/${iid}`, { token: owner.token, body: { state_event: 'close' } })).status, 200)
    await drain(t)
    const hooks = byEvent('Issue Hook').map((r) => r.body)
    assert.deepEqual(hooks.map((h) => h.object_attributes.action), ['open', 'update', 'close'])
    const [opened, updated, closed] = hooks
    assert.equal(opened.object_kind, 'issue')
    assert.deepEqual(opened.user, { name: 'Owner Person', username: owner.user.username, avatar_url: null })
    assert.equal(opened.project.homepage, `http://ingot.test/${path}`)
    assert.equal(opened.object_attributes.iid, iid)
    assert.equal(opened.object_attributes.title, 'Broken')
    assert.equal(opened.object_attributes.state, 'opened')
    assert.equal(opened.object_attributes.url, `http://ingot.test/${path}/issues/${iid}`)
    assert.deepEqual(opened.object_attributes.assignee_ids, [owner.user.id])
    assert.deepEqual(opened.labels.map((l: { title: string }) => l.title), ['bug'])
    assert.deepEqual(opened.assignees, [{ name: 'Owner Person', username: owner.user.username, avatar_url: null }])
    assert.deepEqual(Object.keys(opened.repository).sort(), ['description', 'homepage', 'name', 'url'])
    assert.deepEqual(updated.changes.title, { previous: 'Broken', current: 'Very broken' })
    assert.equal(closed.object_attributes.state, 'closed')
    assert.deepEqual(closed.changes.state, { previous: 'opened', current: 'closed' })
  })

  it('sends confidential issues only to hooks that asked for them, as Confidential Issue Hooks', async () => {
    const confidentialOnly = await addHook(project.id, { url: `${receiver.url}/confidential`, push_events: false, confidential_issues_events: true })
    receiver.clear()
    const secret = await t.api('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title: 'Secret', confidential: true } })
    assert.equal(secret.status, 201)
    const open = await t.api('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title: 'Open' } })
    assert.equal(open.status, 201)
    const comment = await t.api('POST', `/projects/${project.id}/issues/${secret.body.iid}/notes`, { token: owner.token, body: { body: 'Psst' } })
    assert.equal(comment.status, 201, comment.text)
    await drain(t)
    assert.deepEqual(receiver.received.map((r) => [r.path, r.headers['x-service-event'], r.body.object_attributes?.title ?? r.body.object_attributes?.note]), [
      ['/confidential', 'Confidential Issue Hook', 'Secret'],
      ['/all', 'Issue Hook', 'Open'],
    ])
    const tokenless = receiver.received.find((r) => r.path === '/confidential')!
    assert.equal(tokenless.headers['x-gitlab-event'], 'Confidential Issue Hook')
    assert.equal('x-gitlab-token' in tokenless.headers, false)
    await t.api('DELETE', `/projects/${project.id}/hooks/${confidentialOnly.id}`)
  })

  it('sends comments as Note Hooks with the issue beside them', async () => {
    const issue = await t.api('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title: 'Discuss' } })
    await drain(t)
    receiver.clear()
    const note = await t.api('POST', `/projects/${project.id}/issues/${issue.body.iid}/notes`, { token: owner.token, body: { body: 'Looks good' } })
    assert.equal(note.status, 201)
    await drain(t)
    const [hook] = byEvent('Note Hook')
    assert.equal(hook?.body.object_kind, 'note')
    assert.equal(hook?.body.project_id, project.id)
    assert.equal(hook?.body.object_attributes.note, 'Looks good')
    assert.equal(hook?.body.object_attributes.noteable_type, 'Issue')
    assert.equal(hook?.body.object_attributes.url, `http://ingot.test/${path}/issues/${issue.body.iid}#note_${note.body.id}`)
    assert.equal(hook?.body.issue.iid, issue.body.iid)
  })

  it('sends merge requests opened and merged as Merge Request Hooks', async () => {
    await t.api('POST', `/projects/${project.id}/repository/commits`, {
      token: owner.token, body: { branch: 'feature', start_branch: 'master', commit_message: 'Feature work', actions: [{ action: 'create', file_path: 'f.txt', content: 'f' }] },
    })
    await drain(t)
    receiver.clear()
    const mr = await t.api('POST', `/projects/${project.id}/merge_requests`, {
      token: owner.token, body: { source_branch: 'feature', target_branch: 'master', title: 'Add feature' },
    })
    assert.equal(mr.status, 201, mr.text)
    await drain(t)
    const merged = await t.api('PUT', `/projects/${project.id}/merge_requests/${mr.body.iid}/merge`, { token: owner.token })
    assert.equal(merged.status, 200, merged.text)
    await drain(t)
    const hooks = byEvent('Merge Request Hook').map((r) => r.body)
    assert.deepEqual(hooks.map((h) => h.object_attributes.action), ['open', 'merge'])
    const [opened, done] = hooks
    assert.equal(opened.object_kind, 'merge_request')
    assert.equal(opened.object_attributes.source_branch, 'feature')
    assert.equal(opened.object_attributes.target_branch, 'master')
    assert.equal(opened.object_attributes.source.path_with_namespace, path)
    assert.equal(opened.object_attributes.target.path_with_namespace, path)
    assert.equal(opened.object_attributes.last_commit.message, 'Feature work')
    assert.equal(opened.object_attributes.work_in_progress, false)
    assert.equal(opened.object_attributes.url, `http://ingot.test/${path}/merge_requests/${mr.body.iid}`)
    assert.equal(done.object_attributes.state, 'merged')
  })

  it('sends wiki page changes as Wiki Page Hooks', async () => {
    receiver.clear()
    const page = await t.api('POST', `/projects/${project.id}/wikis`, { token: owner.token, body: { title: 'Home', content: 'Welcome' } })
    assert.equal(page.status, 201, page.text)
    await drain(t)
    const [hook] = byEvent('Wiki Page Hook')
    assert.equal(hook?.body.object_kind, 'wiki_page')
    assert.deepEqual(hook?.body.wiki, {
      web_url: `http://ingot.test/${path}/wikis/home`,
      git_ssh_url: `ssh://git@ingot.test:2222/${path}.wiki.git`,
      git_http_url: `http://ingot.test/${path}.wiki.git`,
      path_with_namespace: `${path}.wiki`,
      default_branch: 'master',
    })
    assert.equal(hook?.body.object_attributes.title, 'Home')
    assert.equal(hook?.body.object_attributes.content, 'Welcome')
    assert.equal(hook?.body.object_attributes.format, 'markdown')
    assert.equal(hook?.body.object_attributes.slug, 'Home')
    assert.equal(hook?.body.object_attributes.action, 'create')
    assert.equal(hook?.body.object_attributes.url, `http://ingot.test/${path}/wikis/Home`)
  })

  it('enqueues nothing for a project without hooks, or without a hook for the event', async () => {
    const quiet = await makeProject(t, owner, { visibility: 'private' })
    await addHook(quiet.id, { url: `${receiver.url}/push-only` })
    await drain(t)
    const jobs = async () => (await t.ctx.jobs.counts()).filter((count) => count.kind.startsWith('web_hooks.') && count.state !== 'dead').length
    await t.api('POST', `/projects/${quiet.id}/issues`, { token: owner.token, body: { title: 'No hook hears this' } })
    const bare = await makeProject(t, owner, { visibility: 'private' })
    await t.api('POST', `/projects/${bare.id}/issues`, { token: owner.token, body: { title: 'Nor this' } })
    assert.equal(await jobs(), 0)
  })

  it('retries a delivery the receiver failed, with backoff, until it succeeds', async () => {
    const other = await makeProject(t, owner, { visibility: 'private' })
    const hook = await addHook(other.id, { url: `${receiver.url}/flaky`, issues_events: true, push_events: false })
    receiver.clear()
    receiver.answers.push(500)
    await t.api('POST', `/projects/${other.id}/issues`, { token: owner.token, body: { title: 'Retry me' } })
    await drain(t)
    assert.equal(receiver.received.length, 1)
    const row = await t.ctx.db.selectFrom('web_hooks').selectAll().where('id', '=', hook.id).executeTakeFirstOrThrow()
    assert.equal(row.last_delivery_status, 500)
    const [waiting] = await t.ctx.jobs.list({ kind: DELIVER_WEB_HOOK.name, state: 'waiting' })
    assert.ok(waiting !== undefined && waiting.runAt > Date.now() + 5_000, 'the retry waits')
    assert.ok(!String(waiting.lastError).includes('hook-token'))
    await drain(t, Date.now() + 60_000)
    assert.equal(receiver.received.length, 2)
    assert.equal(receiver.received[1]!.body.object_attributes.title, 'Retry me')
    const after = await t.ctx.db.selectFrom('web_hooks').selectAll().where('id', '=', hook.id).executeTakeFirstOrThrow()
    assert.equal(after.last_delivery_status, 200)
    assert.equal(after.last_delivery_error, null)
  })

  it('refuses at delivery a local hook saved while local requests were allowed, once they are not', async () => {
    const other = await makeProject(t, owner, { visibility: 'private' })
    const hook = await addHook(other.id, { url: `${receiver.url}/local`, issues_events: true })
    await setLocal(false)
    try {
      receiver.clear()
      await t.api('POST', `/projects/${other.id}/issues`, { token: owner.token, body: { title: 'Not to localhost' } })
      await drain(t, Date.now() + 600_000)
      assert.equal(receiver.received.length, 0)
      const row = await t.ctx.db.selectFrom('web_hooks').selectAll().where('id', '=', hook.id).executeTakeFirstOrThrow()
      assert.equal(row.last_delivery_error, 'Requests to localhost are not allowed')
      assert.equal(row.last_delivery_status, null)
    } finally {
      await setLocal(true)
    }
  })

  it('gives deliveries to a member with access too (Maintainer-made hooks hear every member)', async () => {
    const developer = await makeUser(t)
    await makeMember(t, { type: 'project', id: project.id }, developer, MAINTAINER)
    receiver.clear()
    await t.api('POST', `/projects/${project.id}/issues`, { token: developer.token, body: { title: 'By a member' } })
    await drain(t)
    assert.equal(byEvent('Issue Hook')[0]?.body.user.username, developer.user.username)
  })
})

describe('A receiver that never answers', () => {
  let t: TestApp
  let receiver: HookReceiver

  before(async () => {
    t = await buildTestApp({ env: { INGOT_OUTBOUND_TIMEOUT_MS: '300' } })
    receiver = await startHookReceiver()
    await t.api('PUT', '/application/settings', { body: { allow_local_requests_from_hooks_and_services: true } })
  })
  after(async () => {
    await receiver.close()
    await t.close()
  })

  it('holds the queue no longer than the outbound timeout, and the delivery is retried later', async () => {
    const owner = await makeUser(t)
    const project = await makeProject(t, owner)
    const hook = await t.api('POST', `/projects/${project.id}/hooks`, { body: { url: `${receiver.url}/slow`, issues_events: true } })
    assert.equal(hook.status, 201)
    receiver.hang = true
    await t.api('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title: 'Into the void' } })
    const started = Date.now()
    await drain(t)
    const took = Date.now() - started
    assert.equal(receiver.received.length, 1)
    assert.ok(took < 2_000, `the queue was held ${took} ms`)
    const row = await t.ctx.db.selectFrom('web_hooks').selectAll().where('id', '=', hook.body.id).executeTakeFirstOrThrow()
    assert.equal(row.last_delivery_error, 'Request timed out')
    const retries = await t.ctx.jobs.list({ kind: DELIVER_WEB_HOOK.name })
    assert.deepEqual(retries.map((job) => [job.state, job.attempts]), [['waiting', 1]])
    assert.equal(await t.ctx.jobs.remove(retries.map((job) => job.id)), 1)
  })

  it('backs off after four failures in a row: later deliveries are skipped without a request, until the hook is edited', async () => {
    const owner = await makeUser(t)
    const project = await makeProject(t, owner)
    const hook = (await t.api('POST', `/projects/${project.id}/hooks`, { body: { url: `${receiver.url}/dead`, issues_events: true } })).body
    receiver.hang = true
    receiver.clear()
    for (let n = 1; n <= 6; n++) {
      await t.api('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title: `Issue ${n}` } })
      await drain(t)
    }
    // Four timed out; the two after found the hook backing off and sent nothing.
    assert.equal(receiver.received.length, 4)
    const row = await t.ctx.db.selectFrom('web_hooks').selectAll().where('id', '=', hook.id).executeTakeFirstOrThrow()
    assert.equal(row.failures_in_a_row, 4)
    assert.ok(row.backoff_until !== null && row.backoff_until > Date.now() + 50_000 && row.backoff_until <= Date.now() + 60_000)

    receiver.hang = false
    assert.equal((await t.api('PUT', `/projects/${project.id}/hooks/${hook.id}`, { body: { url: `${receiver.url}/alive`, issues_events: true } })).status, 200)
    await t.api('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title: 'Heard again' } })
    await drain(t)
    assert.equal(receiver.received.at(-1)?.path, '/alive')
    const healed = await t.ctx.db.selectFrom('web_hooks').selectAll().where('id', '=', hook.id).executeTakeFirstOrThrow()
    assert.deepEqual([healed.failures_in_a_row, healed.backoff_until], [0, null])
  })
})

describe('Outbound request rules', () => {
  let t: TestApp

  before(async () => { t = await buildTestApp({ env: { INGOT_OUTBOUND_TIMEOUT_MS: '2000' } }) })
  after(async () => { await t.close() })

  it('refuses local, private, link-local, unique-local, multicast and mapped addresses, in the original\'s words', async () => {
    const cases: [string, string | null][] = [
      ['http://127.0.0.1/', 'Requests to localhost are not allowed'],
      ['http://0.0.0.0/', 'Requests to localhost are not allowed'],
      ['http://[::1]/', 'Requests to localhost are not allowed'],
      ['http://localhost:8080/', 'Requests to localhost are not allowed'],
      ['http://127.0.0.2/', 'Requests to loopback addresses are not allowed'],
      ['http://10.0.0.1/', 'Requests to the local network are not allowed'],
      ['http://172.16.5.4/', 'Requests to the local network are not allowed'],
      ['http://192.168.1.1/', 'Requests to the local network are not allowed'],
      ['http://[fd12:3456::1]/', 'Requests to the local network are not allowed'],
      ['http://224.0.0.1/', 'Requests to the local network are not allowed'],
      ['http://[ff02::1]/', 'Requests to the local network are not allowed'],
      ['http://169.254.169.254/', 'Requests to the link local network are not allowed'],
      ['http://[fe80::1]/', 'Requests to the link local network are not allowed'],
      ['http://[::ffff:10.0.0.1]/', 'Requests to the local network are not allowed'],
      ['http://[::ffff:127.0.0.1]/', 'Requests to loopback addresses are not allowed'],
      ['http://[64:ff9b::a9fe:a9fe]/', 'Requests to the link local network are not allowed'],
      ['ftp://example.com/', 'Only allowed protocols are http, https'],
      ['no url', 'URI is invalid'],
      ['http://93.184.216.34/', null],
      ['https://[2606:4700::1111]/', null],
    ]
    for (const [url, expected] of cases) assert.equal(await checkOutboundUrl(t.ctx, url), expected, url)
  })

  it('allows them all when allow_local_requests_from_hooks_and_services is on', async () => {
    await t.api('PUT', '/application/settings', { body: { allow_local_requests_from_hooks_and_services: true } })
    for (const url of ['http://127.0.0.1/', 'http://10.0.0.1/', 'http://169.254.169.254/']) assert.equal(await checkOutboundUrl(t.ctx, url), null, url)
    await t.api('PUT', '/application/settings', { body: { allow_local_requests_from_hooks_and_services: false } })
  })

  it('refuses at send time, follows no redirect and reads no more than 64 KB', async () => {
    await assert.rejects(postJson(t.ctx, { url: 'http://127.0.0.1:9/', body: {} }), (err: unknown) => err instanceof OutboundError && err.kind === 'blocked')
    const server = http.createServer((req, res) => {
      if (req.url === '/redirect') res.writeHead(302, { location: 'http://127.0.0.1:9/elsewhere' }).end()
      else res.writeHead(200).end('x'.repeat(70 * 1024))
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    try {
      const redirect = await postJson(t.ctx, { url: `${base}/redirect`, body: {}, allowLocal: true })
      assert.equal(redirect.status, 302)
      await assert.rejects(postJson(t.ctx, { url: `${base}/big`, body: {}, allowLocal: true }), (err: unknown) => err instanceof OutboundError && err.kind === 'too-large')
    } finally {
      server.closeAllConnections()
      server.close()
    }
  })

  it('refuses a name that does not resolve, and connects only to the address it checked', async () => {
    const receiver = await startHookReceiver()
    const port = new URL(receiver.url).port
    // A rebinding name: nothing (or a public address) when vetted, the loopback receiver when the
    // system resolves it again to connect.
    let vettedAnswer: { address: string; family: number }[] = []
    const { lookup, promises: { lookup: lookupPromise } } = { lookup: dns.lookup, promises: { lookup: dns.promises.lookup } }
    dns.promises.lookup = (async (host: string, options: object) =>
      (host === 'rebind.ingot.test' ? vettedAnswer : lookupPromise(host, options as never))) as typeof dns.promises.lookup
    dns.lookup = ((host: string, options: unknown, callback: (...args: unknown[]) => void) => {
      if (host !== 'rebind.ingot.test') return (lookup as (...args: unknown[]) => void)(host, options, callback)
      const all = typeof options === 'object' && options !== null && (options as { all?: boolean }).all
      return all ? callback(null, [{ address: '127.0.0.1', family: 4 }]) : callback(null, '127.0.0.1', 4)
    }) as typeof dns.lookup
    try {
      const url = `http://rebind.ingot.test:${port}/inside`
      await assert.rejects(postJson(t.ctx, { url, body: {} }),
        (err: unknown) => err instanceof OutboundError && err.kind === 'blocked' && err.message === 'Host cannot be resolved or invalid')
      vettedAnswer = [{ address: '192.0.2.1', family: 4 }]
      await assert.rejects(postJson(t.ctx, { url, body: {}, signal: AbortSignal.timeout(300) }), (err: unknown) => err instanceof OutboundError)
      assert.equal(receiver.received.length, 0)
    } finally {
      dns.lookup = lookup
      dns.promises.lookup = lookupPromise
      await receiver.close()
    }
  })

  it('matches branch filters as the original: exact names, or `*` for anything', () => {
    assert.equal(branchFilterMatches(null, 'master'), true)
    assert.equal(branchFilterMatches('master', 'master'), true)
    assert.equal(branchFilterMatches('master', 'master2'), false)
    assert.equal(branchFilterMatches('release/*', 'release/1.0'), true)
    assert.equal(branchFilterMatches('release/*', 'hotfix/release/1'), false)
    assert.equal(branchFilterMatches('feat*.x', 'feature/a.x'), true)
    assert.equal(branchFilterMatches('a.b', 'axb'), false)
  })
})
