// A project's snippets pages (web/projects/snippets.ts) and environments pages
// (web/projects/pipelines.ts): visibility as the API's (a private snippet is the 404 page to those
// who may not see it; environments are for Reporters), highlighting and escaping, the raw text
// sent sandboxed, and each environment's latest deployment.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import type { ProjectRow } from '../../src/db/schema.js'
import { GUEST, REPORTER } from '../../src/policies/access-levels.js'
import { Browser, signedInBrowser } from './browser.js'

describe('Web snippets and environments pages', () => {
  let t: TestApp
  let owner: TestUser
  let reporter: TestUser
  let guest: TestUser
  let project: ProjectRow
  let base: string
  let publicSnippet: number
  let privateSnippet: number
  let sha: string
  const signedIn = (user: TestUser) => signedInBrowser(t, user.user.username)
  before(async () => {
    t = await buildTestApp()
    ;[owner, reporter, guest] = await Promise.all([makeUser(t), makeUser(t), makeUser(t)])
    project = await makeProject(t, owner, { visibility: 'public' })
    await makeMember(t, { type: 'project', id: project.id }, reporter, REPORTER)
    await makeMember(t, { type: 'project', id: project.id }, guest, GUEST)
    sha = await commitFiles(t, project.id, { 'a.txt': 'a\n' })
    const create = async (title: string, visibility: string, content: string) => {
      const res = await t.api('POST', `/projects/${project.id}/snippets`, { token: owner.token, body: { title, file_name: 'run.sh', code: content, visibility } })
      assert.equal(res.status, 201, res.text)
      return res.body.id as number
    }
    publicSnippet = await create('Deploy <script>', 'public', 'echo "<b>hi</b>"\n')
    privateSnippet = await create('Secret steps', 'private', 'echo secret\n')
    const now = Date.now()
    const environment = await t.ctx.db.insertInto('environments').values({ project_id: project.id, name: 'production', slug: 'production', external_url: null, created_at: now, updated_at: now })
      .returning('id').executeTakeFirstOrThrow()
    await t.ctx.db.insertInto('deployments').values({ project_id: project.id, iid: 1, environment_id: environment.id, ref: 'master', sha, user_id: owner.user.id, deployable_id: null, on_stop: null, created_at: now, updated_at: now }).execute()
    base = `/${owner.user.username}/${project.path}`
  })
  after(async () => { await t.close() })

  it('lists and shows the snippets the visitor may see, highlighted and escaped, with the raw text sandboxed', async () => {
    const list = await new Browser(t).get(`${base}/snippets`)
    assert.equal(list.status, 200, list.text)
    assert.ok(list.text.includes('Deploy &lt;script&gt;') && !list.text.includes('Secret steps'))
    const one = await new Browser(t).get(`${base}/snippets/${publicSnippet}`)
    assert.equal(one.status, 200)
    assert.ok(one.text.includes('<span class="hljs-built_in">echo</span>') && one.text.includes('&lt;b&gt;hi&lt;/b&gt;'))
    const raw = await new Browser(t).get(`${base}/snippets/${publicSnippet}/raw`)
    assert.equal(raw.text, 'echo "<b>hi</b>"\n')
    assert.equal(raw.headers['content-type'], 'text/plain; charset=utf-8')
    assert.match(String(raw.headers['content-security-policy']), /sandbox/)
    const missing = await new Browser(t).get(`${base}/snippets/999999`)
    assert.equal((await new Browser(t).get(`${base}/snippets/${privateSnippet}`)).text, missing.text)
    assert.equal((await (await signedIn(reporter)).get(`${base}/snippets/${privateSnippet}`)).status, 200, 'members see private snippets')
  })

  it('shows environments and their deployments to Reporters only', async () => {
    const reporterBrowser = await signedIn(reporter)
    const list = await reporterBrowser.get(`${base}/environments`)
    assert.equal(list.status, 200, list.text)
    assert.ok(list.text.includes('production') && list.text.includes(sha.slice(0, 8)))
    const environmentId = /href="[^"]+\/environments\/(\d+)"/.exec(list.text)?.[1]
    assert.ok(environmentId !== undefined)
    assert.equal((await reporterBrowser.get(`${base}/environments/${environmentId}`)).status, 200)
    assert.equal((await (await signedIn(guest)).get(`${base}/environments`)).status, 404)
    assert.equal((await new Browser(t).get(`${base}/environments`)).status, 404)
  })
})
