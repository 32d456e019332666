// Project hooks (/projects/:id/hooks): list, get, add, edit, delete — exact fields, the token never
// shown, Maintainers and up only, 404 for hooks of other projects and for private projects,
// validation (422 "Invalid url given" for bad and local URLs, 400 for a bad branch filter) —
// and the test endpoint, which sends a sample of real project data to a real receiver.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeProject, makeUser } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import { startHookReceiver, type HookReceiver } from '../helpers/hook-receiver.js'
import { expectPaginates, expectRejectsBadPagination } from '../shared/pagination.js'
import { expectStatuses, makeMatrix, type Matrix } from '../shared/permission-matrix.js'

describe('Project hooks API', () => {
  let t: TestApp
  let m: Matrix
  let receiver: HookReceiver
  let base: string

  const allowLocal = async (allowed: boolean) => {
    const res = await t.api('PUT', '/application/settings', { body: { allow_local_requests_from_hooks_and_services: allowed } })
    assert.equal(res.status, 200, res.text)
  }

  before(async () => {
    t = await buildTestApp()
    m = await makeMatrix(t, 'private')
    receiver = await startHookReceiver()
    base = `/projects/${m.project.id}/hooks`
    await allowLocal(true)
  })
  after(async () => {
    await receiver.close()
    await t.close()
  })

  const create = (body: Record<string, unknown>, token = m.tokens.maintainer) => t.api('POST', base, { token, body })

  describe('POST /projects/:id/hooks', () => {
    it('adds a hook with the original defaults and exactly the 11.5 fields, never the token', async () => {
      const res = await create({ url: `${receiver.url}/a`, token: 's3cret' })
      assert.equal(res.status, 201, res.text)
      const { id, created_at: createdAt, ...rest } = res.body
      assert.equal(typeof id, 'number')
      assert.match(createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
      assert.deepEqual(rest, {
        url: `${receiver.url}/a`,
        project_id: m.project.id,
        push_events: true,
        push_events_branch_filter: null,
        issues_events: false,
        confidential_issues_events: false,
        merge_requests_events: false,
        tag_push_events: false,
        note_events: false,
        job_events: false,
        pipeline_events: false,
        wiki_page_events: false,
        enable_ssl_verification: true,
      })
      assert.ok(!res.text.includes('s3cret'))
      const row = await t.ctx.db.selectFrom('web_hooks').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
      assert.doesNotMatch(row.encrypted_token ?? '', /s3cret/)
      assert.equal(t.ctx.secrets.open('web_hooks.token', row.encrypted_token ?? ''), 's3cret')
    })

    it('takes every event flag and a branch filter, from a form too', async () => {
      const res = await t.api('POST', base, {
        token: m.tokens.maintainer,
        form: `url=${encodeURIComponent(`${receiver.url}/b`)}&push_events=false&issues_events=true&confidential_issues_events=true` +
          '&merge_requests_events=true&tag_push_events=true&note_events=true&job_events=true&pipeline_events=true' +
          '&wiki_page_events=true&enable_ssl_verification=false&push_events_branch_filter=release%2F*',
      })
      assert.equal(res.status, 201, res.text)
      assert.equal(res.body.push_events, false)
      for (const flag of ['issues_events', 'confidential_issues_events', 'merge_requests_events', 'tag_push_events', 'note_events', 'job_events', 'pipeline_events', 'wiki_page_events']) {
        assert.equal(res.body[flag], true, flag)
      }
      assert.equal(res.body.enable_ssl_verification, false)
      assert.equal(res.body.push_events_branch_filter, 'release/*')
    })

    it('is for Maintainers and up; private projects are 404 to outsiders, anonymous callers 401', async () => {
      await expectStatuses(m, (token) => create({ url: `${receiver.url}/who` }, token as string), {
        anonymous: 401, nonMember: 404, guest: 403, reporter: 403, developer: 403, maintainer: 201, owner: 201, admin: 201, external: 404, blocked: 403,
      })
    })

    it('checks the caller before the parameters, as the original', async () => {
      const res = await create({}, m.tokens.developer!)
      assert.equal(res.status, 403)
    })

    it('refuses a missing url (400) and an invalid or non-http url (422 "Invalid url given")', async () => {
      const missing = await create({ push_events: true })
      assert.equal(missing.status, 400)
      assert.deepEqual(missing.body, { error: 'url is missing' })
      for (const url of ['not a url', 'ftp://example.com/hook', 'javascript:alert(1)', 'http://-bad.example.com/']) {
        const res = await create({ url })
        assert.equal(res.status, 422, url)
        assert.deepEqual(res.body, { message: 'Invalid url given' })
      }
      const flag = await create({ url: `${receiver.url}/x`, push_events: 'maybe' })
      assert.equal(flag.status, 400)
    })

    it('refuses an invalid branch filter (400, a field error)', async () => {
      for (const filter of ['a..b', 'feature~1', 'x'.repeat(256), '*'.repeat(256)]) {
        const res = await create({ url: `${receiver.url}/f`, push_events_branch_filter: filter })
        assert.equal(res.status, 400, filter.slice(0, 20))
        assert.deepEqual(res.body, { message: { push_events_branch_filter: ['is invalid'] } })
      }
    })

    it('refuses loopback and private addresses unless allow_local_requests_from_hooks_and_services is on', async () => {
      await allowLocal(false)
      try {
        for (const url of [receiver.url, 'http://localhost:9/', 'http://10.1.2.3/', 'http://[::1]/', 'http://169.254.169.254/latest', 'http://[::ffff:127.0.0.1]/']) {
          const res = await create({ url })
          assert.equal(res.status, 422, url)
          assert.deepEqual(res.body, { message: 'Invalid url given' })
        }
      } finally {
        await allowLocal(true)
      }
      assert.equal((await create({ url: `${receiver.url}/ok` })).status, 201)
    })
  })

  describe('GET /projects/:id/hooks and …/:hook_id', () => {
    it('lists the project\'s hooks in the order they were added, paginated', async () => {
      const res = await t.api('GET', base, { token: m.tokens.maintainer })
      assert.equal(res.status, 200)
      const ids = res.body.map((hook: { id: number }) => hook.id)
      assert.deepEqual(ids, [...ids].sort((a: number, b: number) => a - b))
      assert.ok(res.body.every((hook: { project_id: number; token?: string }) => hook.project_id === m.project.id && !('token' in hook)))
      await expectPaginates({ t, path: base, token: m.tokens.maintainer, total: res.body.length })
      await expectRejectsBadPagination(t, base, m.tokens.maintainer)
    })

    it('shows one hook; 404 for a hook of another project or none, 400 for a non-numeric id', async () => {
      const hook = (await create({ url: `${receiver.url}/one` })).body
      const res = await t.api('GET', `${base}/${hook.id}`, { token: m.tokens.maintainer })
      assert.equal(res.status, 200)
      assert.deepEqual(res.body, hook)
      const other = await makeProject(t, null)
      const foreign = await t.api('POST', `/projects/${other.id}/hooks`, { body: { url: `${receiver.url}/other` } })
      const wrong = await t.api('GET', `${base}/${foreign.body.id}`, { token: m.tokens.maintainer })
      assert.equal(wrong.status, 404)
      assert.deepEqual(wrong.body, { message: '404 Not found' })
      assert.equal((await t.api('GET', `${base}/99999999`, { token: m.tokens.maintainer })).status, 404)
      assert.equal((await t.api('GET', `${base}/abc`, { token: m.tokens.maintainer })).status, 400)
      await expectStatuses(m, (token) => t.api('GET', `${base}/${hook.id}`, { token }), {
        anonymous: 401, nonMember: 404, guest: 403, reporter: 403, developer: 403, maintainer: 200, owner: 200, admin: 200,
      })
    })
  })

  describe('PUT /projects/:id/hooks/:hook_id', () => {
    it('changes the URL, the flags and the token; url is required as in the original', async () => {
      const hook = (await create({ url: `${receiver.url}/before`, token: 'one' })).body
      const res = await t.api('PUT', `${base}/${hook.id}`, {
        token: m.tokens.maintainer, body: { url: `${receiver.url}/after`, token: 'two', issues_events: true, push_events: false },
      })
      assert.equal(res.status, 200, res.text)
      assert.equal(res.body.url, `${receiver.url}/after`)
      assert.equal(res.body.issues_events, true)
      assert.equal(res.body.push_events, false)
      assert.equal(res.body.created_at, hook.created_at)
      const row = await t.ctx.db.selectFrom('web_hooks').select('encrypted_token').where('id', '=', hook.id).executeTakeFirstOrThrow()
      assert.equal(t.ctx.secrets.open('web_hooks.token', row.encrypted_token ?? ''), 'two')
      const missing = await t.api('PUT', `${base}/${hook.id}`, { token: m.tokens.maintainer, body: { push_events: true } })
      assert.equal(missing.status, 400)
      assert.deepEqual(missing.body, { error: 'url is missing' })
      const invalid = await t.api('PUT', `${base}/${hook.id}`, { token: m.tokens.maintainer, body: { url: 'gopher://x' } })
      assert.equal(invalid.status, 422)
      await expectStatuses(m, (token) => t.api('PUT', `${base}/${hook.id}`, { token, body: { url: `${receiver.url}/after` } }), {
        anonymous: 401, nonMember: 404, reporter: 403, developer: 403, maintainer: 200, admin: 200,
      })
    })
  })

  describe('DELETE /projects/:id/hooks/:hook_id', () => {
    it('deletes the hook (204), then it is 404; others may not', async () => {
      const hook = (await create({ url: `${receiver.url}/gone` })).body
      await expectStatuses(m, (token) => t.api('DELETE', `${base}/${hook.id}`, { token }), {
        anonymous: 401, nonMember: 404, developer: 403,
      })
      const res = await t.api('DELETE', `${base}/${hook.id}`, { token: m.tokens.maintainer })
      assert.equal(res.status, 204)
      assert.equal(res.text, '')
      assert.equal((await t.api('DELETE', `${base}/${hook.id}`, { token: m.tokens.maintainer })).status, 404)
    })
  })

  describe('POST /projects/:id/hooks/:hook_id/test/:trigger', () => {
    it('says what the project lacks (422) when there is nothing to send', async () => {
      const owner = await makeUser(t)
      const empty = await makeProject(t, owner)
      const hook = (await t.api('POST', `/projects/${empty.id}/hooks`, { token: owner.token, body: { url: `${receiver.url}/test` } })).body
      const expected: Record<string, string> = {
        push_events: 'Ensure the project has at least one commit.',
        tag_push_events: 'Ensure the project has at least one commit.',
        issues_events: 'Ensure the project has issues.',
        confidential_issues_events: 'Ensure the project has issues.',
        merge_requests_events: 'Ensure the project has merge requests.',
        note_events: 'Ensure the project has notes.',
        job_events: 'Ensure the project has CI jobs.',
        pipeline_events: 'Ensure the project has CI pipelines.',
        wiki_page_events: 'Ensure the wiki is enabled and has pages.',
      }
      receiver.clear()
      for (const [trigger, message] of Object.entries(expected)) {
        const res = await t.api('POST', `/projects/${empty.id}/hooks/${hook.id}/test/${trigger}`, { token: owner.token })
        assert.equal(res.status, 422, trigger)
        assert.deepEqual(res.body, { message }, trigger)
      }
      assert.equal(receiver.received.length, 0)
      const unknown = await t.api('POST', `/projects/${empty.id}/hooks/${hook.id}/test/everything`, { token: owner.token })
      assert.equal(unknown.status, 400)
    })

    it('sends the latest commits of the default branch as a Push Hook (201), and issues as an Issue Hook', async () => {
      await commitFiles(t, m.project.id, { 'README.md': 'one\n' }, { message: 'First' })
      await commitFiles(t, m.project.id, { 'a.txt': 'a\n' }, { message: 'Second' })
      const head = await commitFiles(t, m.project.id, { 'README.md': 'two\n' }, { message: 'Third' })
      await t.ctx.db.updateTable('projects').set({ default_branch: 'master' }).where('id', '=', m.project.id).execute()
      const hook = (await create({ url: `${receiver.url}/sample`, token: 'tok' })).body
      receiver.clear()
      const res = await t.api('POST', `${base}/${hook.id}/test/push_events`, { token: m.tokens.maintainer })
      assert.equal(res.status, 201, res.text)
      assert.deepEqual(res.body, { message: '201 Created' })
      assert.equal(receiver.received.length, 1)
      const [delivery] = receiver.received
      assert.equal(delivery!.path, '/sample')
      assert.equal(delivery!.headers['x-service-event'], 'Push Hook')
      assert.equal(delivery!.headers['x-service-token'], 'tok')
      assert.equal(delivery!.headers['x-gitlab-event'], 'Push Hook')
      assert.equal(delivery!.headers['x-gitlab-token'], 'tok')
      assert.equal(delivery!.headers['content-type'], 'application/json')
      assert.match(String(delivery!.headers['user-agent']), /^Ingot\//)
      const body = delivery!.body
      assert.equal(body.object_kind, 'push')
      assert.equal(body.after, head)
      assert.equal(body.ref, 'refs/heads/master')
      assert.deepEqual(body.commits.map((c: { message: string }) => c.message), ['Third', 'Second', 'First'])
      assert.equal(body.total_commits_count, 3)
      assert.equal(body.project.path_with_namespace, `${m.group.full_path}/${m.project.path}`)

      receiver.clear()
      const issue = await t.api('POST', `/projects/${m.project.id}/issues`, { body: { title: 'Sample issue' } })
      assert.equal(issue.status, 201)
      const issueTest = await t.api('POST', `${base}/${hook.id}/test/issues_events`, { token: m.tokens.maintainer })
      assert.equal(issueTest.status, 201, issueTest.text)
      const sent = receiver.received.find((r) => r.headers['x-service-event'] === 'Issue Hook')
      assert.equal(sent?.body.object_kind, 'issue')
      assert.equal(sent?.body.object_attributes.title, 'Sample issue')
      assert.equal(sent?.body.object_attributes.action, undefined)
    })

    it('answers 422 with the receiver’s status alone when it fails, never what it said', async () => {
      const hook = (await create({ url: `${receiver.url}/fails` })).body
      receiver.answers.push(500)
      const res = await t.api('POST', `${base}/${hook.id}/test/push_events`, { token: m.tokens.maintainer })
      assert.equal(res.status, 422)
      assert.deepEqual(res.body, { message: 'Hook executed successfully but returned HTTP 500' })
      const row = await t.ctx.db.selectFrom('web_hooks').selectAll().where('id', '=', hook.id).executeTakeFirstOrThrow()
      assert.equal(row.last_delivery_status, 500)
    })

    it('is for Maintainers and up', async () => {
      const hook = (await create({ url: `${receiver.url}/perm` })).body
      await expectStatuses(m, (token) => t.api('POST', `${base}/${hook.id}/test/push_events`, { token }), {
        anonymous: 401, nonMember: 404, reporter: 403, developer: 403, maintainer: 201,
      })
    })
  })
})
