// The pages of changes (web/projects/commit.ts over web/diff.ts): a commit with its diff (added,
// changed, deleted, binary and hostile files, line numbers and anchors, highlighting), a root
// commit, a comparison by merge base and straight, the compare form; visibility as the API's.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import type { ProjectRow } from '../../src/db/schema.js'
import { Browser } from './browser.js'

const HOSTILE_PATH = 'docs/"><img src=x onerror=alert(1)>.md'

describe('Web commit and compare pages', () => {
  let t: TestApp
  let owner: TestUser
  let project: ProjectRow
  let secret: ProjectRow
  let base: string
  let root: string
  let change: string
  let feature: string
  before(async () => {
    t = await buildTestApp()
    owner = await makeUser(t)
    project = await makeProject(t, owner, { visibility: 'public' })
    secret = await makeProject(t, owner, { visibility: 'private' })
    root = await commitFiles(t, project.id, {
      'src/app.ts': 'const a = 1\n/* a comment\n   over lines */\nexport default a\n', 'old.txt': 'going away\n', 'logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]),
    }, { message: 'Initial commit' })
    change = await commitFiles(t, project.id, {
      'src/app.ts': 'const a = 2\n/* a comment\n   over lines */\nexport default a\nconsole.log("<script>")\n', 'old.txt': null,
      'logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 9, 9, 9]), [HOSTILE_PATH]: '<script>alert(1)</script>\n',
    }, { message: 'Change <things>\n\nThe body of the message.' })
    feature = await commitFiles(t, project.id, { 'feature.txt': 'new\n' }, { branch: 'feature', parent: change, message: 'Add the feature' })
    await commitFiles(t, project.id, { 'master-only.txt': 'm\n' }, { message: 'On master after the fork' })
    await commitFiles(t, secret.id, { 'secret.txt': 'x\n' })
    base = `/${owner.user.username}/${project.path}`
  })
  after(async () => { await t.close() })

  const visitor = () => new Browser(t)

  it('shows a commit: message, author, parent, and each file\'s changes numbered, anchored, highlighted and escaped', async () => {
    const res = await visitor().get(`${base}/commit/${change}`)
    assert.equal(res.status, 200, res.text)
    assert.ok(res.text.includes('<h1>Change &lt;things&gt;</h1>'))
    assert.ok(res.text.includes('The body of the message.'))
    assert.ok(res.text.includes(`href="${base}/commit/${root}"`), 'the parent links to its page')
    assert.ok(!res.text.includes('<script>') && !res.text.includes('<img src=x'), /.{0,100}(<script>|<img src=x).{0,80}/.exec(res.text)?.[0])
    assert.ok(res.text.includes('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;.md'))
    assert.match(res.text, /<tr id="diff-\d+_1_" class="remove">.*const<\/span> a = <span class="hljs-number">1<\/span>/)
    assert.match(res.text, /<tr id="diff-\d+__1" class="add">.*<span class="hljs-number">2<\/span>/)
    assert.match(res.text, /<tr id="diff-\d+_2_2">.*<span class="hljs-comment">\/\* a comment<\/span>/, 'context lines carry both numbers')
    assert.match(res.text, /<span class="hljs-comment">   over lines \*\/<\/span>/, 'a comment over two lines stays one token')
    assert.ok(res.text.includes('Binary file changed.'))
    assert.ok(res.text.includes('<span class="badge">deleted</span>') && res.text.includes('<span class="badge">new file</span>'))
    assert.ok(res.text.includes(`href="${base}/blob/${change}/src/app.ts"`))
  })

  it('shows a root commit against the empty tree, by short id too, and 404 for what is not a commit', async () => {
    const res = await visitor().get(`${base}/commit/${root.slice(0, 10)}`)
    assert.equal(res.status, 200, res.text)
    assert.ok(res.text.includes('3 files changed'))
    assert.equal((await visitor().get(`${base}/commit/${'0'.repeat(40)}`)).status, 404)
    assert.equal((await visitor().get(`${base}/commit/--output=x`)).status, 404)
    assert.equal((await visitor().get(`${base}/commit`)).status, 404)
  })

  it('compares by merge base (...) and straight (..), and sends the form to the range', async () => {
    const res = await visitor().get(`${base}/compare/master...feature`)
    assert.equal(res.status, 200, res.text)
    assert.ok(res.text.includes('Add the feature') && !res.text.includes('On master after the fork'))
    assert.ok(res.text.includes('feature.txt') && !res.text.includes('master-only.txt'), 'the changes since the merge base only')
    const straight = await visitor().get(`${base}/compare/master..feature`)
    assert.equal(straight.status, 200)
    assert.ok(straight.text.includes('master-only.txt'), 'straight: master\'s own change shows as removed')
    const same = await visitor().get(`${base}/compare/${feature}...feature`)
    assert.ok(same.text.includes('nothing to compare'))
    const form = await visitor().get(`${base}/compare?from=master&to=feature`)
    assert.equal(form.status, 302)
    assert.equal(form.headers.location, `${base}/compare/master...feature`)
    assert.equal((await visitor().get(`${base}/compare`)).status, 200)
    assert.equal((await visitor().get(`${base}/compare/master...nope`)).status, 404)
    assert.equal((await visitor().get(`${base}/compare/just-one`)).status, 404)
  })

  it('answers a private project\'s commit and compare pages with the 404 page', async () => {
    const secretBase = `/${owner.user.username}/${secret.path}`
    assert.equal((await visitor().get(`${secretBase}/commit/master`)).status, 404)
    assert.equal((await visitor().get(`${secretBase}/compare/master...master`)).status, 404)
    const ownerBrowser = new Browser(t)
    await ownerBrowser.signIn(owner.user.username)
    assert.equal((await ownerBrowser.get(`${secretBase}/commit/master`)).status, 200)
  })
})
