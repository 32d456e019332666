// Project integrations (PUT/GET/DELETE /projects/:id/services/<slug>): every kind's required
// parameters and settings, secrets never shown, Maintainers and up only, 404 for private projects,
// the original's 400s — and the integrations that act: emails-on-push through a real SMTP server,
// chat-webhook through a real HTTP receiver, and the wiki and issue links an external wiki and an
// external issue tracker redirect.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { startSmtpListener, type SmtpListener } from '../helpers/smtp.js'
import { Browser } from '../web/browser.js'
import { expectStatuses, makeMatrix, type Matrix } from '../shared/permission-matrix.js'
import { MAINTAINER } from '../../src/policies/access-levels.js'
import { POST_CHAT_MESSAGE, SEND_PUSH_EMAIL } from '../../src/services/integrations/jobs.js'

const CI = 'https://203.0.113.10'

/** Each kind's slug, parameters that configure it, and which of them are secret. */
const KINDS: { slug: string; params: Record<string, string>; secrets: string[] }[] = [
  { slug: 'task-tracker-comments', params: { api_key: 'key-1', restrict_to_branch: 'master' }, secrets: ['api_key'] },
  { slug: 'source-commits', params: { token: 'tok-1', subdomain: 'team' }, secrets: ['token'] },
  {
    slug: 'ci-build-server',
    params: { build_server_url: `${CI}/bamboo`, build_key: 'KEY', username: 'ci', password: 'pw-1' }, secrets: ['password'],
  },
  {
    slug: 'bug-tracker',
    params: { new_issue_url: `${CI}/new`, issues_url: `${CI}/show?id=:id`, project_url: `${CI}/list` }, secrets: [],
  },
  {
    slug: 'custom-issue-tracker',
    params: { new_issue_url: `${CI}/new`, issues_url: `${CI}/issues/:id`, project_url: `${CI}/issues` }, secrets: [],
  },
  { slug: 'ci-pipelines', params: { token: 'tok-2', project_url: `${CI}/pipelines` }, secrets: ['token'] },
  { slug: 'team-chat', params: { token: 'tok-3', subdomain: 'sub', room: 'room' }, secrets: ['token'] },
  { slug: 'ci-runner-service', params: { token: 'tok-4', drone_url: `${CI}/drone` }, secrets: ['token'] },
  { slug: 'emails-on-push', params: { recipients: 'a@example.com b@example.com' }, secrets: [] },
  { slug: 'external-wiki', params: { external_wiki_url: `${CI}/wiki` }, secrets: [] },
  { slug: 'collaboration-inbox', params: { token: 'tok-5' }, secrets: ['token'] },
  { slug: 'chat-webhook', params: { webhook: `${CI}/hook` }, secrets: [] },
  { slug: 'team-chat-rooms', params: { token: 'tok-6', room: 'dev', color: 'yellow' }, secrets: ['token'] },
  { slug: 'irc-gateway', params: { recipients: 'irc://irc.example.net/#dev', server_port: '6659' }, secrets: [] },
  {
    slug: 'issue-tracker-workflow',
    params: { url: `${CI}/tracker`, project_key: 'PRJ', username: 'bot', password: 'pw-2' }, secrets: ['password'],
  },
]

/** The parameters the spec marks required, per slug. */
const REQUIRED: Record<string, string[]> = {
  'task-tracker-comments': ['api_key'],
  'source-commits': ['token'],
  'ci-build-server': ['build_server_url', 'build_key', 'username', 'password'],
  'bug-tracker': ['new_issue_url', 'issues_url', 'project_url'],
  'custom-issue-tracker': ['new_issue_url', 'issues_url', 'project_url'],
  'ci-pipelines': ['token', 'project_url'],
  'team-chat': ['token'],
  'ci-runner-service': ['token', 'drone_url'],
  'emails-on-push': ['recipients'],
  'external-wiki': ['external_wiki_url'],
  'collaboration-inbox': ['token'],
  'chat-webhook': ['webhook'],
  'team-chat-rooms': ['token'],
  'irc-gateway': ['recipients'],
  'issue-tracker-workflow': ['url', 'project_key', 'username', 'password'],
}

const ENTITY_FIELDS = [
  'active', 'confidential_issues_events', 'confidential_note_events', 'created_at', 'id', 'issues_events', 'job_events',
  'merge_requests_events', 'note_events', 'pipeline_events', 'properties', 'push_events', 'slug', 'tag_push_events', 'title',
  'updated_at', 'wiki_page_events',
]

const withoutSecrets = (params: Record<string, string>, secrets: string[]) =>
  Object.fromEntries(Object.entries(params).filter(([name]) => !secrets.includes(name)))

async function setSettings(t: TestApp, body: Record<string, unknown>): Promise<void> {
  const res = await t.api('PUT', '/application/settings', { body })
  assert.equal(res.status, 200, res.text)
}

describe('Project integrations API', () => {
  let t: TestApp
  let m: Matrix
  let base: string

  before(async () => {
    t = await buildTestApp()
    m = await makeMatrix(t, 'private')
    base = `/projects/${m.project.id}/services`
  })
  after(async () => { await t.close() })

  describe('each kind', () => {
    for (const { slug, params, secrets } of KINDS) {
      it(`${slug}: PUT activates it with its settings, GET shows them without secrets, DELETE clears it`, async () => {
        const put = await t.api('PUT', `${base}/${slug}`, { token: m.tokens.maintainer, body: params })
        assert.equal(put.status, 200, put.text)
        assert.deepEqual(Object.keys(put.body).sort(), ENTITY_FIELDS)
        assert.equal(put.body.active, true)
        assert.equal(typeof put.body.id, 'number')
        assert.match(put.body.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
        const shown = withoutSecrets(params, secrets)
        for (const [name, value] of Object.entries(shown)) {
          assert.equal(String(put.body.properties[name]), value, `${slug} ${name}`)
        }
        for (const secret of secrets) assert.equal(secret in put.body.properties, false, `${slug} shows ${secret}`)

        const get = await t.api('GET', `${base}/${slug}`, { token: m.tokens.maintainer })
        assert.equal(get.status, 200)
        assert.deepEqual(get.body, put.body)
        assert.doesNotMatch(get.text, /tok-|pw-|key-1/)
        // The secret stays on the server, where the integration needs it, sealed at rest.
        const row = await t.ctx.db.selectFrom('integrations').selectAll()
          .where('project_id', '=', m.project.id).where('kind', '=', slug).executeTakeFirstOrThrow()
        assert.doesNotMatch(row.encrypted_properties ?? '', /tok-|pw-|key-1/)
        const stored = JSON.parse(t.ctx.secrets.open('integrations.secrets', row.encrypted_properties ?? ''))
        for (const secret of secrets) assert.equal(stored[secret], params[secret])

        const del = await t.api('DELETE', `${base}/${slug}`, { token: m.tokens.maintainer })
        assert.equal(del.status, 204)
        assert.equal(del.text, '')
        const cleared = await t.api('GET', `${base}/${slug}`, { token: m.tokens.maintainer })
        assert.equal(cleared.body.active, false)
        assert.deepEqual(cleared.body.properties, {})
        assert.equal(cleared.body.id, put.body.id)
      })

      it(`${slug}: PUT without a required parameter answers 400 naming it`, async () => {
        for (const missing of REQUIRED[slug]!) {
          const body = Object.fromEntries(Object.entries(params).filter(([name]) => name !== missing))
          const res = await t.api('PUT', `${base}/${slug}`, { token: m.tokens.maintainer, body })
          assert.equal(res.status, 400, `${slug} without ${missing}`)
          assert.deepEqual(res.body, { error: `${missing} is missing` })
        }
      })
    }
  })

  it('answers a kind never configured with its defaults and a null id', async () => {
    const project = await makeProject(t, m.users.owner, { namespace: m.group })
    const res = await t.api('GET', `/projects/${project.id}/services/chat-webhook`, { token: m.tokens.owner })
    assert.equal(res.status, 200)
    assert.deepEqual(res.body, {
      id: null, title: 'Chat webhook', slug: 'chat-webhook', created_at: null, updated_at: null, active: false,
      push_events: true, issues_events: true, confidential_issues_events: true, merge_requests_events: true,
      tag_push_events: true, note_events: true, confidential_note_events: true, pipeline_events: false,
      wiki_page_events: true, job_events: false,
      properties: { notify_only_broken_pipelines: true, notify_only_default_branch: true },
    })
    assert.equal(await t.ctx.db.selectFrom('integrations').select('id').where('project_id', '=', project.id).executeTakeFirst(), undefined)
  })

  it('answers under /integrations too, the name later clients use', async () => {
    const project = await makeProject(t, m.users.owner, { namespace: m.group })
    const base = `/projects/${project.id}/integrations/external-wiki`
    const put = await t.api('PUT', `${base}?external_wiki_url=${encodeURIComponent('https://wiki.example.com/')}`, { token: m.tokens.owner })
    assert.equal(put.status, 200, put.text)
    const read = await t.api('GET', `/projects/${project.id}/services/external-wiki`, { token: m.tokens.owner })
    assert.equal(read.body.id, put.body.id)
    assert.equal(read.body.active, true)
    assert.equal((await t.api('DELETE', base, { token: m.tokens.owner })).status, 204)
    assert.equal((await t.api('GET', base, { token: m.tokens.owner })).body.active, false)
    // Only the project resource's sub-path is aliased.
    assert.equal((await t.api('GET', `/projects/${project.id}/integrationsx/external-wiki`, { token: m.tokens.owner })).status, 404)
  })

  it('answers under the original\'s product slugs, as the same kinds, with the original\'s parameter names', async () => {
    const project = await makeProject(t, m.users.owner, { namespace: m.group })
    const services = `/projects/${project.id}/services`
    const original: Record<string, string> = {
      asana: 'task-tracker-comments', assembla: 'source-commits', bamboo: 'ci-build-server', bugzilla: 'bug-tracker',
      buildkite: 'ci-pipelines', campfire: 'team-chat', 'drone-ci': 'ci-runner-service', flowdock: 'collaboration-inbox',
      'hangouts-chat': 'chat-webhook', hipchat: 'team-chat-rooms', irker: 'irc-gateway', jira: 'issue-tracker-workflow',
    }
    for (const [slug, kind] of Object.entries(original)) {
      const { params, secrets } = KINDS.find((k) => k.slug === kind)!
      const body = slug === 'bamboo'
        ? Object.fromEntries(Object.entries(params).map(([name, value]) => [name === 'build_server_url' ? 'bamboo_url' : name, value]))
        : params
      const put = await t.api('PUT', `${services}/${slug}`, { token: m.tokens.owner, body })
      assert.equal(put.status, 200, `${slug}: ${put.text}`)
      assert.equal(put.body.slug, slug)
      assert.equal(put.body.active, true)
      const shown = withoutSecrets(body, secrets)
      assert.deepEqual(Object.keys(put.body.properties).filter((name) => name in shown).sort(), Object.keys(shown).sort(), slug)
      const same = await t.api('GET', `${services}/${kind}`, { token: m.tokens.owner })
      assert.deepEqual([same.body.id, same.body.active, same.body.slug], [put.body.id, true, kind], slug)
      assert.equal((await t.api('DELETE', `${services}/${slug}`, { token: m.tokens.owner })).status, 204)
      assert.equal((await t.api('GET', `${services}/${kind}`, { token: m.tokens.owner })).body.active, false, slug)
    }
    const bambooMissing = await t.api('PUT', `${services}/bamboo`, { token: m.tokens.owner, body: { build_key: 'K', username: 'u', password: 'p' } })
    assert.deepEqual([bambooMissing.status, bambooMissing.body], [400, { error: 'bamboo_url is missing' }])
    const kubernetes = await t.api('GET', `${services}/kubernetes`, { token: m.tokens.owner })
    assert.deepEqual([kubernetes.status, kubernetes.body], [400, { message: '400 Bad Request' }])
    // Slugs of the original that Ingot has no kind for stay unknown.
    const slack = await t.api('GET', `${services}/slack`, { token: m.tokens.owner })
    assert.deepEqual([slack.status, slack.body], [400, { error: 'service_slug does not have a valid value' }])
    assert.equal((await t.api('PUT', `${services}/slack`, { token: m.tokens.owner, body: { webhook: `${CI}/slack` } })).status, 404)
  })

  it('keeps settings a later PUT leaves out, takes the event flags the kind has, and an issue tracker\'s own title', async () => {
    const first = await t.api('PUT', `${base}/team-chat-rooms`, { token: m.tokens.maintainer, body: { token: 't', room: 'ops', notify: true } })
    assert.equal(first.status, 200)
    const second = await t.api('PUT', `${base}/team-chat-rooms`, {
      token: m.tokens.maintainer, form: 'token=u&color=red&push_events=false&note_events=false',
    })
    assert.equal(second.status, 200, second.text)
    assert.deepEqual(second.body.properties, { room: 'ops', notify: true, color: 'red' })
    assert.equal(second.body.push_events, false)
    assert.equal(second.body.note_events, false)
    assert.equal(second.body.issues_events, true)

    const tracker = await t.api('PUT', `${base}/custom-issue-tracker`, {
      token: m.tokens.maintainer, body: { ...KINDS.find((k) => k.slug === 'custom-issue-tracker')!.params, title: 'Our tracker' },
    })
    assert.equal(tracker.body.title, 'Our tracker')
    await t.api('DELETE', `${base}/custom-issue-tracker`, { token: m.tokens.maintainer })
  })

  it('refuses what the original refuses: blank or malformed values (400), bad types, unknown slugs', async () => {
    const refused = { message: '400 Bad Request' }
    const cases: [string, Record<string, unknown>][] = [
      ['external-wiki', { external_wiki_url: '' }],
      ['external-wiki', { external_wiki_url: 'not a url' }],
      ['external-wiki', { external_wiki_url: 'ftp://203.0.113.10/wiki' }],
      ['collaboration-inbox', { token: '   ' }],
      ['emails-on-push', { recipients: 'someone-without-domain' }],
      ['custom-issue-tracker', { new_issue_url: `${CI}/new`, issues_url: 'javascript:alert(1)', project_url: `${CI}/p` }],
    ]
    for (const [slug, body] of cases) {
      const res = await t.api('PUT', `${base}/${slug}`, { token: m.tokens.maintainer, body })
      assert.equal(res.status, 400, `${slug} ${JSON.stringify(body)}`)
      assert.deepEqual(res.body, refused)
    }
    const badBoolean = await t.api('PUT', `${base}/emails-on-push`, { token: m.tokens.maintainer, body: { recipients: 'a@example.com', disable_diffs: 'maybe' } })
    assert.deepEqual([badBoolean.status, badBoolean.body], [400, { error: 'disable_diffs is invalid' }])
    const badInteger = await t.api('PUT', `${base}/irc-gateway`, { token: m.tokens.maintainer, body: { recipients: '#dev', server_port: 'high' } })
    assert.deepEqual([badInteger.status, badInteger.body], [400, { error: 'server_port is invalid' }])

    const unknownGet = await t.api('GET', `${base}/no-such-kind`, { token: m.tokens.maintainer })
    assert.deepEqual([unknownGet.status, unknownGet.body], [400, { error: 'service_slug does not have a valid value' }])
    const unknownDelete = await t.api('DELETE', `${base}/no-such-kind`, { token: m.tokens.maintainer })
    assert.equal(unknownDelete.status, 400)
    const unknownPut = await t.api('PUT', `${base}/no-such-kind`, { token: m.tokens.maintainer, body: {} })
    assert.equal(unknownPut.status, 404)
    // Nothing refused was stored.
    const wiki = await t.api('GET', `${base}/external-wiki`, { token: m.tokens.maintainer })
    assert.equal(wiki.body.active, false)
  })

  it('refuses a webhook on the local network unless local requests are allowed', async () => {
    const local = { webhook: 'http://127.0.0.1:9/hook' }
    const blocked = await t.api('PUT', `${base}/chat-webhook`, { token: m.tokens.maintainer, body: local })
    assert.deepEqual([blocked.status, blocked.body], [400, { message: '400 Bad Request' }])
    await setSettings(t, { allow_local_requests_from_hooks_and_services: true })
    try {
      const allowed = await t.api('PUT', `${base}/chat-webhook`, { token: m.tokens.maintainer, body: local })
      assert.equal(allowed.status, 200, allowed.text)
    } finally {
      await setSettings(t, { allow_local_requests_from_hooks_and_services: false })
      await t.api('DELETE', `${base}/chat-webhook`, { token: m.tokens.maintainer })
    }
  })

  it('queues no push email when no mail server is configured', async () => {
    const put = await t.api('PUT', `${base}/emails-on-push`, { token: m.tokens.maintainer, body: { recipients: 'a@example.com' } })
    assert.equal(put.status, 200)
    const commit = await t.api('POST', `/projects/${m.project.id}/repository/commits`, {
      token: m.tokens.maintainer,
      body: { branch: 'master', commit_message: 'First', actions: [{ action: 'create', file_path: 'a.txt', content: 'a' }] },
    })
    assert.equal(commit.status, 201, commit.text)
    const queued = await t.ctx.jobs.list({ kind: SEND_PUSH_EMAIL.name })
    assert.deepEqual(queued, [])
    await t.api('DELETE', `${base}/emails-on-push`, { token: m.tokens.maintainer })
  })

  it('answers 400 on every endpoint of the inactive, deprecated container cluster kind', async () => {
    const body = { namespace: 'ns', api_url: `${CI}/k8s`, token: 'tok' }
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const res = await t.api(method, `${base}/container-cluster`, { token: m.tokens.maintainer, ...(method === 'PUT' ? { body } : {}) })
      assert.deepEqual([res.status, res.body], [400, { message: '400 Bad Request' }], method)
    }
    // The required parameters are still enforced first, as for every kind.
    const missing = await t.api('PUT', `${base}/container-cluster`, { token: m.tokens.maintainer, body: { namespace: 'ns' } })
    assert.deepEqual(missing.body, { error: 'api_url is missing' })
  })

  it('is for Maintainers and up: 401 anonymous, 404 for outsiders of a private project, 403 below Maintainer', async () => {
    const expected = { anonymous: 401, nonMember: 404, external: 404, guest: 403, reporter: 403, developer: 403, maintainer: 200, owner: 200, admin: 200 }
    await expectStatuses(m, (token) => t.api('GET', `${base}/external-wiki`, { token }), expected)
    await expectStatuses(m, (token) => t.api('PUT', `${base}/external-wiki`, { token, body: { external_wiki_url: `${CI}/w` } }), expected)
    await expectStatuses(m, (token) => t.api('DELETE', `${base}/external-wiki`, { token }), { ...expected, maintainer: 204, owner: 204, admin: 204 })
    const missing = await t.api('GET', '/projects/999999/services/external-wiki', { token: m.tokens.maintainer })
    assert.deepEqual([missing.status, missing.body], [404, { message: '404 Project Not Found' }])
  })

  it('answers a public project\'s outsiders 403, not 404', async () => {
    const pub = await makeMatrix(t, 'public')
    await expectStatuses(pub, (token) => t.api('GET', `/projects/${pub.project.id}/services/external-wiki`, { token }), {
      anonymous: 401, nonMember: 403, developer: 403, maintainer: 200,
    })
  })
})

/** A real HTTP receiver on 127.0.0.1 that keeps every JSON body POSTed to it. */
async function startChatReceiver() {
  const bodies: { text: string }[] = []
  let status = 200
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      bodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as { text: string })
      res.writeHead(status, { 'content-type': 'application/json' }).end('{}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/spaces/room/messages`,
    bodies,
    answerWith(code: number) { status = code },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

describe('Integrations that act', () => {
  let t: TestApp
  let smtp: SmtpListener
  let chat: Awaited<ReturnType<typeof startChatReceiver>>
  let maintainer: TestUser
  let insider: TestUser
  let projectId: number
  let fullPath: string

  const commit = async (user: TestUser, branch: string, files: Record<string, string>, message: string, startBranch?: string) => {
    const res = await t.api('POST', `/projects/${projectId}/repository/commits`, {
      token: user.token,
      body: {
        branch, commit_message: message, ...(startBranch === undefined ? {} : { start_branch: startBranch }),
        actions: Object.entries(files).map(([path, content]) => ({ action: 'create', file_path: path, content })),
      },
    })
    assert.equal(res.status, 201, res.text)
    return res.body.id as string
  }
  /** Runs the due jobs, with every mail the queue sent received. */
  const runJobs = async () => { await t.ctx.jobs.runDue() }
  const put = async (slug: string, body: Record<string, unknown>) => {
    const res = await t.api('PUT', `/projects/${projectId}/services/${slug}`, { token: maintainer.token, body })
    assert.equal(res.status, 200, res.text)
  }

  before(async () => {
    smtp = await startSmtpListener()
    chat = await startChatReceiver()
    t = await buildTestApp({ env: { INGOT_SMTP_URL: smtp.url } })
    await setSettings(t, { allow_local_requests_from_hooks_and_services: true })
    maintainer = await makeUser(t, { name: 'Mae Tainer', email: 'mae@example.com' })
    insider = await makeUser(t, { name: 'Ian Sider', email: 'ian@ingot.test' })
    const project = await makeProject(t, maintainer, { visibility: 'private' })
    await makeMember(t, { type: 'project', id: project.id }, insider, MAINTAINER)
    projectId = project.id
    const found = await t.api('GET', `/projects/${project.id}`, { token: maintainer.token })
    fullPath = found.body.path_with_namespace
    await commit(maintainer, 'master', { 'README.md': 'hello\n' }, 'Initial commit')
    await runJobs()
  })
  after(async () => {
    await t.close()
    await smtp.close()
    await chat.close()
  })

  describe('emails-on-push', () => {
    it('mails each recipient the pushed commits, changed files and diff, with an HTML part', async () => {
      await put('emails-on-push', { recipients: 'one@example.com two@example.com' })
      smtp.messages.length = 0
      const id = await commit(maintainer, 'master', { 'docs/guide.md': 'line one\nline two\n' }, 'Add the guide\n\nWith two lines.')
      await runJobs()
      const mails = await smtp.waitFor(2)
      assert.deepEqual(mails.map((mail) => mail.to).sort(), [['one@example.com'], ['two@example.com']])
      const mail = mails[0]!
      assert.equal(mail.subject, `[Git][${fullPath}][master] Add the guide`)
      assert.equal(mail.from, '"Mae Tainer" <ingot@ingot.test>')
      assert.equal(mail.headers['x-ingot-project-path'], fullPath)
      assert.match(mail.text, /^Mae Tainer pushed to branch master at /)
      assert.match(mail.text, new RegExp(`${id.slice(0, 8)} by Mae Tainer at `))
      assert.match(mail.text, /Add the guide\n\nWith two lines\./)
      assert.match(mail.text, /1 changed file:\n\n- \+ docs\/guide\.md/)
      assert.match(mail.text, /Changes:[\s\S]*docs\/guide\.md[\s\S]*\+line one\n\+line two/)
      assert.match(mail.text, new RegExp(`View it on Ingot: http://ingot.test/${fullPath}/commit/${id}`))
      assert.ok(mail.html?.includes('+line one'), 'the HTML part carries the diff')
    })

    it('collapses a file diff of 10 KB and leaves out one of 100 KB, as a page does before it is expanded', async () => {
      await put('emails-on-push', { recipients: 'one@example.com' })
      smtp.messages.length = 0
      const lines = (count: number) => Array.from({ length: count }, (_, i) => `line ${i} ${'y'.repeat(24)}\n`).join('')
      await commit(maintainer, 'master', { 'medium.txt': lines(600), 'huge.txt': lines(4000), 'tiny.txt': 'tiny\n' }, 'Sizes')
      await runJobs()
      const [mail] = await smtp.waitFor(1)
      assert.match(mail!.text, /medium\.txt\n=+\nThe diff of this file is collapsed: see it on Ingot\./)
      assert.match(mail!.text, /huge\.txt\n=+\nThe diff of this file is too large to show\./)
      assert.match(mail!.text, /tiny\.txt\n=+\n--- \/dev\/null\n\+\+\+ b\/tiny\.txt\n@@ -0,0 \+1 @@\n\+tiny/)
      assert.doesNotMatch(mail!.text, /line 599/)
    })

    it('leaves the diff out with disable_diffs, and the HTML part when HTML emails are off', async () => {
      await put('emails-on-push', { recipients: 'one@example.com', disable_diffs: true })
      await setSettings(t, { html_emails_enabled: false })
      try {
        smtp.messages.length = 0
        await commit(maintainer, 'master', { 'a.txt': 'alpha\n', 'b.txt': 'beta\n' }, 'Add a and b')
        await commit(maintainer, 'master', { 'c.txt': 'gamma\n' }, 'Add c')
        await runJobs()
        const [first, second] = await smtp.waitFor(2)
        assert.equal(first!.subject, `[Git][${fullPath}][master] Add a and b`)
        assert.match(first!.text, /2 changed files:\n\n- \+ a\.txt\n- \+ b\.txt/)
        assert.doesNotMatch(first!.text, /Changes:|\+alpha/)
        assert.equal(first!.html, null)
        assert.equal(second!.subject, `[Git][${fullPath}][master] Add c`)
      } finally {
        await setSettings(t, { html_emails_enabled: true })
      }
    })

    it('sends from the pusher\'s address only when send_from_committer_email is on and it is in the instance\'s domain', async () => {
      await put('emails-on-push', { recipients: 'one@example.com', send_from_committer_email: true, disable_diffs: false })
      smtp.messages.length = 0
      await commit(insider, 'master', { 'insider.txt': 'x\n' }, 'Insider change')
      await commit(maintainer, 'master', { 'outsider.txt': 'y\n' }, 'Outsider change')
      await runJobs()
      const [fromInsider, fromOutsider] = await smtp.waitFor(2)
      assert.equal(fromInsider!.from, '"Ian Sider" <ian@ingot.test>')
      assert.equal(fromInsider!.headers['reply-to'], 'ian@ingot.test')
      assert.equal(fromOutsider!.from, '"Mae Tainer" <ingot@ingot.test>')
    })

    it('tells of new branches and tags, and sends nothing for tags without tag_push_events', async () => {
      await put('emails-on-push', { recipients: 'one@example.com', send_from_committer_email: false })
      smtp.messages.length = 0
      await commit(maintainer, 'feature', { 'f.txt': 'f\n' }, 'Feature work', 'master')
      const tag = await t.api('POST', `/projects/${projectId}/repository/tags`, { token: maintainer.token, body: { tag_name: 'v1.0', ref: 'master' } })
      assert.equal(tag.status, 201, tag.text)
      await runJobs()
      const subjects = (await smtp.waitFor(2)).map((mail) => mail.subject).sort()
      assert.deepEqual(subjects, [`[Git][${fullPath}] Pushed new branch feature`, `[Git][${fullPath}] Pushed new tag v1.0`])

      await put('emails-on-push', { recipients: 'one@example.com', tag_push_events: false })
      smtp.messages.length = 0
      await t.api('POST', `/projects/${projectId}/repository/tags`, { token: maintainer.token, body: { tag_name: 'v1.1', ref: 'master' } })
      const queued = await t.ctx.jobs.list({ kind: SEND_PUSH_EMAIL.name })
      assert.equal(queued.length, 0)
    })

    it('stops mailing once deleted', async () => {
      await t.api('DELETE', `/projects/${projectId}/services/emails-on-push`, { token: maintainer.token })
      smtp.messages.length = 0
      await commit(maintainer, 'master', { 'after.txt': 'z\n' }, 'After delete')
      const queued = await t.ctx.jobs.list({ kind: SEND_PUSH_EMAIL.name })
      assert.equal(queued.length, 0)
      await runJobs()
      assert.equal(smtp.messages.length, 0)
    })
  })

  describe('chat-webhook', () => {
    before(async () => {
      await put('chat-webhook', { webhook: chat.url })
    })

    it('posts a push to the default branch with its commits', async () => {
      chat.bodies.length = 0
      const id = await commit(maintainer, 'master', { 'chat.txt': 'c\n' }, 'Talk about it')
      await runJobs()
      assert.equal(chat.bodies.length, 1)
      const { text } = chat.bodies[0]!
      assert.match(text, new RegExp(`^Mae Tainer pushed to branch <http://ingot.test/${fullPath}/commits/master\\|master> of <http://ingot.test/${fullPath}\\|${fullPath}>`))
      assert.match(text, new RegExp(`<http://ingot.test/${fullPath}/commit/${id}\\|${id.slice(0, 8)}>: Talk about it - Mae Tainer`))
    })

    it('honours notify_only_default_branch and push_events', async () => {
      chat.bodies.length = 0
      await commit(maintainer, 'feature', { 'g.txt': 'g\n' }, 'More feature work')
      await runJobs()
      assert.equal(chat.bodies.length, 0, 'a push to another branch is left out by default')

      await put('chat-webhook', { webhook: chat.url, notify_only_default_branch: false })
      await commit(maintainer, 'feature', { 'h.txt': 'h\n' }, 'Even more feature work')
      await runJobs()
      assert.equal(chat.bodies.length, 1)
      assert.match(chat.bodies[0]!.text, /pushed to branch <[^|]+\|feature>/)

      await put('chat-webhook', { webhook: chat.url, push_events: false })
      chat.bodies.length = 0
      await commit(maintainer, 'master', { 'i.txt': 'i\n' }, 'Unannounced')
      await runJobs()
      assert.equal(chat.bodies.length, 0)
      await put('chat-webhook', { webhook: chat.url, push_events: true })
    })

    it('posts tag pushes, issues opened and closed (not edited), confidential ones only with their flag, and comments', async () => {
      chat.bodies.length = 0
      await t.api('POST', `/projects/${projectId}/repository/tags`, { token: maintainer.token, body: { tag_name: 'v2.0', ref: 'master' } })
      const issue = await t.api('POST', `/projects/${projectId}/issues`, { token: maintainer.token, body: { title: 'Broken build', description: 'It fails.' } })
      assert.equal(issue.status, 201)
      await t.api('PUT', `/projects/${projectId}/issues/${issue.body.iid}`, { token: maintainer.token, body: { title: 'Broken build!' } })
      await t.api('PUT', `/projects/${projectId}/issues/${issue.body.iid}`, { token: maintainer.token, body: { state_event: 'close' } })
      const note = await t.api('POST', `/projects/${projectId}/issues/${issue.body.iid}/notes`, { token: maintainer.token, body: { body: 'Fixed now.' } })
      assert.equal(note.status, 201, note.text)
      await runJobs()
      const texts = chat.bodies.map((body) => body.text)
      const issueLink = `<http://ingot.test/${fullPath}/issues/${issue.body.iid}|#${issue.body.iid} Broken build`
      assert.deepEqual(texts.map((text) => text.split('\n')[0]), [
        `Mae Tainer pushed new tag <http://ingot.test/${fullPath}/tags/v2.0|v2.0> to <http://ingot.test/${fullPath}|${fullPath}>`,
        `[<http://ingot.test/${fullPath}|${fullPath}>] Issue ${issueLink}> opened by Mae Tainer`,
        `[<http://ingot.test/${fullPath}|${fullPath}>] Issue ${issueLink}!> closed by Mae Tainer`,
        `Mae Tainer <http://ingot.test/${fullPath}/issues/${issue.body.iid}#note_${note.body.id}|commented on issue #${issue.body.iid}> in <http://ingot.test/${fullPath}|${fullPath}>: *Broken build!*`,
      ])
      assert.equal(texts[1], `${texts[1]!.split('\n')[0]}\nIt fails.`)
      assert.equal(texts[3]!.split('\n')[1], 'Fixed now.')

      await put('chat-webhook', { webhook: chat.url, confidential_issues_events: false })
      chat.bodies.length = 0
      await t.api('POST', `/projects/${projectId}/issues`, { token: maintainer.token, body: { title: 'Secret', confidential: true } })
      await t.api('POST', `/projects/${projectId}/issues`, { token: maintainer.token, body: { title: 'Public' } })
      await runJobs()
      assert.equal(chat.bodies.length, 1)
      assert.match(chat.bodies[0]!.text, /Public> opened/)
    })

    it('posts merge requests opened and merged, and wiki pages', async () => {
      chat.bodies.length = 0
      const mr = await t.api('POST', `/projects/${projectId}/merge_requests`, {
        token: maintainer.token, body: { source_branch: 'feature', target_branch: 'master', title: 'Ship the feature' },
      })
      assert.equal(mr.status, 201, mr.text)
      const merged = await t.api('PUT', `/projects/${projectId}/merge_requests/${mr.body.iid}/merge`, { token: maintainer.token })
      assert.equal(merged.status, 200, merged.text)
      const wiki = await t.api('POST', `/projects/${projectId}/wikis`, { token: maintainer.token, body: { title: 'Runbook', content: 'Steps' } })
      assert.equal(wiki.status, 201, wiki.text)
      await runJobs()
      const mrLink = `<http://ingot.test/${fullPath}/merge_requests/${mr.body.iid}|!${mr.body.iid} *Ship the feature*>`
      const project = `<http://ingot.test/${fullPath}|${fullPath}>`
      const texts = chat.bodies.map((body) => body.text.split('\n')[0]!)
      assert.ok(texts.includes(`Mae Tainer opened merge request ${mrLink} in ${project}`), texts.join('\n'))
      assert.ok(texts.includes(`Mae Tainer merged merge request ${mrLink} in ${project}`), texts.join('\n'))
      assert.ok(texts.some((text) => text.startsWith(`Mae Tainer created <http://ingot.test/${fullPath}/wikis/${wiki.body.slug}|wiki page> in ${project}: *Runbook*`)), texts.join('\n'))
    })

    it('retries a receiver that fails, and sends nothing once the integration is deleted', async () => {
      chat.answerWith(503)
      chat.bodies.length = 0
      await commit(maintainer, 'master', { 'j.txt': 'j\n' }, 'Retry me')
      await runJobs()
      assert.equal(chat.bodies.length, 1)
      const waiting = await t.ctx.jobs.list({ kind: POST_CHAT_MESSAGE.name })
      assert.deepEqual(waiting.map((job) => [job.state, job.attempts]), [['waiting', 1]])
      chat.answerWith(200)
      await t.ctx.jobs.runDue(Date.now() + 60_000)
      assert.equal(chat.bodies.length, 2)

      await t.api('DELETE', `/projects/${projectId}/services/chat-webhook`, { token: maintainer.token })
      chat.bodies.length = 0
      await commit(maintainer, 'master', { 'k.txt': 'k\n' }, 'Silent')
      await runJobs()
      assert.equal(chat.bodies.length, 0)
    })
  })

  describe('wiki and issue links', () => {
    it('open the wiki and issue pages without integrations', async () => {
      // Pages take the visitor's session, not tokens: read as the signed-in member.
      const member = new Browser(t)
      await member.signIn(maintainer.user.username)
      const list = await member.get(`/${fullPath}/wikis`)
      assert.equal(list.status, 302)
      assert.equal(list.headers.location, `/${fullPath}/wikis/home`)
      const page = await member.get(`/${fullPath}/wikis/guides/setup`)
      assert.equal(page.status, 404, 'a page the wiki does not have')
      assert.match(page.text, /does not exist yet/)
      const issues = await member.get(`/${fullPath}/issues`)
      assert.equal(issues.status, 200)
      assert.match(issues.headers['content-type'] as string, /^text\/html/)
    })

    it('point to the external wiki and the external issue tracker while they are active', async () => {
      await put('external-wiki', { external_wiki_url: 'https://wiki.example.com/team' })
      await put('custom-issue-tracker', {
        new_issue_url: 'https://tracker.example.com/new', issues_url: 'https://tracker.example.com/browse/:id', project_url: 'https://tracker.example.com/all',
      })
      // Pages take the visitor's session, not tokens.
      const member = new Browser(t)
      await member.signIn(maintainer.user.username)
      for (const url of [`/${fullPath}/wikis`, `/${fullPath}/wikis/home`]) {
        const res = await member.get(url)
        assert.deepEqual([res.status, res.headers.location], [302, 'https://wiki.example.com/team'], url)
      }
      assert.equal((await member.get(`/${fullPath}/issues/42`)).headers.location, 'https://tracker.example.com/browse/42')
      assert.equal((await member.get(`/${fullPath}/issues/new`)).headers.location, 'https://tracker.example.com/new')
      assert.equal((await member.get(`/${fullPath}/issues`)).headers.location, 'https://tracker.example.com/all')
      // Private: nobody outside learns where its links go.
      assert.equal((await new Browser(t).get(`/${fullPath}/wikis`)).status, 404)
      assert.equal((await new Browser(t).get(`/${fullPath}/issues/42`)).status, 404)

      await t.api('DELETE', `/projects/${projectId}/services/external-wiki`, { token: maintainer.token })
      await t.api('DELETE', `/projects/${projectId}/services/custom-issue-tracker`, { token: maintainer.token })
      assert.equal((await member.get(`/${fullPath}/wikis`)).headers.location, `/${fullPath}/wikis/home`)
      assert.equal((await member.get(`/${fullPath}/issues/42`)).status, 404, 'the issue page, of an issue that does not exist')
    })

    it('leave git over HTTP and the API where they were', async () => {
      const refs = await t.app.inject({ method: 'GET', url: `/${fullPath}.git/info/refs?service=git-upload-pack`, headers: { authorization: `Basic ${Buffer.from(`${maintainer.user.username}:${maintainer.token}`).toString('base64')}` } })
      assert.equal(refs.statusCode, 200)
      const api = await t.api('GET', `/projects/${projectId}/issues`, { token: maintainer.token })
      assert.equal(api.status, 200)
    })
  })
})
