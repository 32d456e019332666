// A project's pages at the original's URLs (web/projects/): the overview, tree, blob and raw pages
// of a real repository; nested namespaces and refs with slashes; visibility as the API's (a
// private project is the same 404 page for anonymous visitors and outsiders); escaping of names
// and contents; the headers of pages, raw files and the stylesheet; and the URLs routed before
// these pages (git, the API's 404) left as they were.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { gunzipSync, brotliDecompressSync } from 'node:zlib'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeGroup, makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import type { ProjectRow } from '../../src/db/schema.js'
import { REPORTER } from '../../src/policies/access-levels.js'
import { Browser } from './browser.js'

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex')
const HOSTILE_NAME = '"><script>alert(1)<script>.txt'

describe('Web project pages', () => {
  let t: TestApp
  let owner: TestUser
  let outsider: TestUser
  let reporter: TestUser
  let project: ProjectRow
  let secret: ProjectRow
  let empty: ProjectRow
  let base: string
  let secretBase: string
  let ownerBrowser: Browser
  before(async () => {
    t = await buildTestApp()
    ;[owner, outsider, reporter] = await Promise.all([makeUser(t), makeUser(t), makeUser(t)])
    const group = await makeGroup(t, { visibility: 'public' }, owner)
    const subgroup = await makeGroup(t, { visibility: 'public', parent: group, path: 'tree' }, owner)
    project = await makeProject(t, owner, { namespace: subgroup, visibility: 'public', description: 'A <b>project</b>' })
    await commitFiles(t, project.id, {
      'README.md': '# Hello <script>alert("readme")</script>\n\nSee [the guide](docs/guide.md) and #1.\n',
      'src/main.ts': 'const a = 1\nif (a < 2) console.log("<script>")\n',
      [`src/${HOSTILE_NAME}`]: 'hostile',
      'logo.png': PNG,
      'data.bin': Buffer.from([0, 1, 2, 3, 0, 255]),
      'page.html': '<html><script>alert(1)</script></html>',
    }, { message: 'First <commit>' })
    await commitFiles(t, project.id, { 'feature.txt': 'on a branch\n', 'dir/inner.txt': 'inner\n' }, { branch: 'feature/x', parent: await t.ctx.repositories.open(project.id).resolveCommit('master') })
    secret = await makeProject(t, owner, { visibility: 'private' })
    await commitFiles(t, secret.id, { 'secret.txt': 'classified\n' })
    empty = await makeProject(t, owner, { visibility: 'public' })
    await t.ctx.db.updateTable('projects').set({ default_branch: 'master' }).where('id', 'in', [project.id, secret.id]).execute()
    await makeMember(t, { type: 'project', id: secret.id }, reporter, REPORTER)
    base = `/${subgroup.full_path}/${project.path}`
    assert.equal(base, `/${group.path}/tree/${project.path}`)
    secretBase = `/${owner.user.username}/${secret.path}`
    ownerBrowser = new Browser(t)
    await ownerBrowser.signIn(owner.user.username)
  })
  after(async () => { await t.close() })

  const anonymous = () => new Browser(t)

  it('shows the overview of a project in a nested group: description, clone URLs, last commit, files, README, counts', async () => {
    const res = await anonymous().get(base)
    assert.equal(res.status, 200, res.text)
    assert.match(res.text, /<h1>[^<]*<\/h1>/)
    assert.ok(res.text.includes('A &lt;b&gt;project&lt;/b&gt;'), 'the description is escaped')
    const api = await t.api('GET', `/projects/${project.id}`, { token: null })
    assert.ok(res.text.includes(`value="${api.body.http_url_to_repo}"`), 'the HTTP clone URL is the API\'s')
    assert.ok(res.text.includes('First &lt;commit&gt;'), 'the last commit, escaped')
    assert.ok(res.text.includes(`href="${base}/blob/master/src%2F"`) === false)
    assert.ok(res.text.includes(`href="${base}/tree/master/src"`), 'directories link to their tree')
    assert.ok(res.text.includes(`href="${base}/blob/master/README.md"`), 'files link to their blob')
    // The README rendered as Markdown: its script dropped, its relative link and its reference resolved.
    assert.match(res.text, /<h1><a id="user-content-[^"]*" class="anchor"[^>]*><\/a>Hello <\/h1>/, 'the README\'s heading')
    assert.ok(!res.text.includes('alert('), 'the README\'s script is gone, content and all')
    assert.ok(res.text.includes(`href="${base}/blob/master/docs/guide.md"`), 'a relative link of the README points at the blob')
    assert.ok(res.text.includes(`href="${base}/issues/1"`), 'a reference of the README is linked')
    assert.ok(!res.text.includes('<script'), 'no script anywhere')
    assert.match(res.text, /0 stars/)
    assert.match(res.text, /0 forks/)
    assert.ok(res.text.includes('href="/users/sign_in"'), 'an anonymous visitor is offered to sign in')
  })

  it('shows an empty repository with how to push to it', async () => {
    const res = await anonymous().get(`/${owner.user.username}/${empty.path}`)
    assert.equal(res.status, 200, res.text)
    assert.match(res.text, /The repository is empty/)
    assert.match(res.text, /git push -u origin --all/)
  })

  it('lists a tree with breadcrumbs, the switcher and escaped names, at a ref holding a slash', async () => {
    const root = await anonymous().get(`${base}/tree/master/src`)
    assert.equal(root.status, 200, root.text)
    assert.ok(root.text.includes(`href="${base}/blob/master/src/${encodeURIComponent(HOSTILE_NAME)}"`))
    assert.ok(root.text.includes('&quot;&gt;&lt;script&gt;alert(1)&lt;script&gt;.txt'))
    assert.ok(!root.text.includes('<script'))
    assert.ok(root.text.includes(`href="${base}/refs/switch?destination=tree&amp;path=src&amp;current=master">Switch branch or tag</a>`), root.text)

    const branch = await anonymous().get(`${base}/tree/feature/x/dir`)
    assert.equal(branch.status, 200, branch.text)
    assert.ok(branch.text.includes(`href="${base}/blob/feature/x/dir/inner.txt"`), 'the ref feature/x, then the path dir')
    assert.ok(branch.text.includes('current=feature%2Fx'))
    const dashed = await anonymous().get(`${base}/-/tree/feature/x`)
    assert.equal(dashed.status, 200, 'the /-/ form works too')
    assert.ok(dashed.text.includes('feature.txt'))

    assert.equal((await anonymous().get(`${base}/tree/no-such-ref`)).status, 404)
    assert.equal((await anonymous().get(`${base}/tree/master/no/such/dir`)).status, 404)
    const file = await anonymous().get(`${base}/tree/master/README.md`)
    assert.equal(file.status, 302)
    assert.equal(file.headers.location, `${base}/blob/master/README.md`)
  })

  it('lists the commits of a ref, and of a path at it, with the blob page linking its history', async () => {
    const all = await anonymous().get(`${base}/commits/feature/x`)
    assert.equal(all.status, 200, all.text)
    assert.ok(all.text.includes('First &lt;commit&gt;') && all.text.includes('Change feature.txt, dir/inner.txt'))
    const ofPath = await anonymous().get(`${base}/commits/feature/x/dir`)
    assert.ok(ofPath.text.includes('Change feature.txt, dir/inner.txt') && !ofPath.text.includes('First &lt;commit&gt;'))
    assert.ok(!all.text.includes('rel="next"'), 'two commits fit one page')
    assert.equal((await anonymous().get(`${base}/commits/feature/x?page=0`)).status, 404)
    const blob = await anonymous().get(`${base}/blob/master/src/main.ts`)
    assert.ok(blob.text.includes(`href="${base}/commits/master/src/main.ts"`))
  })

  it('switches ref with a plain GET form on a page of its own that lists the branches and tags', async () => {
    const form = await anonymous().get(`${base}/refs/switch?destination=tree&path=dir&current=feature%2Fx`)
    assert.equal(form.status, 200, form.text)
    assert.match(form.text, /<option selected>feature\/x<\/option>/)
    assert.match(form.text, /<option>master<\/option>/)
    assert.ok(form.text.includes('<input type="hidden" name="path" value="dir">'))
    const res = await anonymous().get(`${base}/refs/switch?destination=tree&ref=feature%2Fx&path=dir`)
    assert.equal(res.status, 302)
    assert.equal(res.headers.location, `${base}/tree/feature/x/dir`)
    assert.equal((await anonymous().get(`${secretBase}/refs/switch?destination=tree&path=`)).status, 404)
  })

  it('shows a file with numbered, anchored lines, escaped, with raw and permalink links', async () => {
    const res = await anonymous().get(`${base}/blob/master/src/main.ts`)
    assert.equal(res.status, 200, res.text)
    // Highlighted, and escaped inside its tokens.
    assert.match(res.text, /<tr id="L2"><td class="line-number"><a href="#L2">2<\/a><td><span class="hljs-keyword">if<\/span> \(a &lt; <span class="hljs-number">2<\/span>\).*&quot;&lt;script&gt;&quot;.*<\/tbody>/, res.text)
    assert.ok(!res.text.includes('<script'))
    assert.ok(res.text.includes(`href="${base}/raw/master/src/main.ts"`))
    const sha = await t.ctx.repositories.open(project.id).resolveCommit('master')
    assert.ok(res.text.includes(`href="${base}/blob/${sha}/src/main.ts"`), 'the permalink names the commit')
    assert.equal((await anonymous().get(`${base}/blob/${sha}/src/main.ts`)).status, 200)

    const hostile = await anonymous().get(`${base}/blob/master/src/${encodeURIComponent(HOSTILE_NAME)}`)
    assert.equal(hostile.status, 200, hostile.text)
    assert.ok(!hostile.text.includes('<script'))

    const image = await anonymous().get(`${base}/blob/master/logo.png`)
    assert.ok(image.text.includes(`<img class="blob-image" src="${base}/raw/master/logo.png" alt="logo.png">`))
    const binary = await anonymous().get(`${base}/blob/master/data.bin`)
    assert.match(binary.text, /This is a binary file \(6 B\)/)
    assert.ok(!binary.text.includes('\u0000'))
    const dir = await anonymous().get(`${base}/blob/master/src`)
    assert.equal(dir.status, 302)
    assert.equal(dir.headers.location, `${base}/tree/master/src`)
  })

  it('sends raw files as their exact bytes, never as a page', async () => {
    const text = await t.app.inject({ url: `${base}/raw/master/page.html` })
    assert.equal(text.statusCode, 200)
    assert.equal(text.headers['content-type'], 'text/plain; charset=utf-8')
    assert.equal(text.body, '<html><script>alert(1)</script></html>')
    assert.equal(text.headers['x-content-type-options'], 'nosniff')
    assert.match(String(text.headers['content-security-policy']), /default-src 'none'.*sandbox/)
    const png = await t.app.inject({ url: `${base}/raw/master/logo.png` })
    assert.equal(png.headers['content-type'], 'image/png')
    assert.deepEqual(png.rawPayload, PNG)
    const bin = await t.app.inject({ url: `${base}/raw/master/data.bin` })
    assert.equal(bin.headers['content-type'], 'application/octet-stream')
    assert.match(String(bin.headers['content-disposition']), /^attachment; filename\*=UTF-8''data\.bin$/)
    assert.deepEqual(bin.rawPayload, Buffer.from([0, 1, 2, 3, 0, 255]))
  })

  it('answers a private project with the same 404 page for anonymous visitors, outsiders and missing projects', async () => {
    const outsiderBrowser = new Browser(t)
    await outsiderBrowser.signIn(outsider.user.username)
    const pages = ['', '/tree/master', '/blob/master/secret.txt', '/raw/master/secret.txt', '/commits/master']
    const mainOf = (text: string) => /<main[^>]*>[\s\S]*<\/main>/.exec(text)?.[0]
    const missing = await anonymous().get(`/${owner.user.username}/no-such-project`)
    assert.equal(missing.status, 404)
    assert.equal(missing.text, (await anonymous().get(secretBase)).text, 'a private project is a missing one to an anonymous visitor')
    for (const suffix of pages) {
      for (const res of [await anonymous().get(`${secretBase}${suffix}`), await outsiderBrowser.get(`${secretBase}${suffix}`)]) {
        assert.equal(res.status, 404)
        assert.ok(!res.text.includes('classified') && !res.text.includes(secret.path))
        assert.equal(mainOf(res.text), mainOf(missing.text), 'the page of a missing project (the header aside, which names the visitor)')
      }
    }

    const reporterBrowser = new Browser(t)
    await reporterBrowser.signIn(reporter.user.username)
    const seen = await reporterBrowser.get(`${secretBase}/blob/master/secret.txt`)
    assert.equal(seen.status, 200)
    assert.match(seen.text, /classified/)
    const own = await ownerBrowser.get(secretBase)
    assert.equal(own.status, 200)
    assert.match(own.text, /\d+ commits?<\/li>/, 'members see the statistics')
    assert.doesNotMatch((await anonymous().get(base)).text, /\d+ commits?<\/li>/, 'anonymous visitors do not')
  })

  it('sends every page with a strict CSP and no inline script or style, linking one cached, compressed stylesheet', async () => {
    const res = await ownerBrowser.get(base)
    const csp = String(res.headers['content-security-policy'])
    for (const directive of ["default-src 'none'", "style-src 'self'", "script-src 'self'", "img-src 'self' data: https: http:", "frame-ancestors 'none'", "base-uri 'none'", "form-action 'self'"]) {
      assert.ok(csp.includes(directive), csp)
    }
    assert.equal(res.headers['x-content-type-options'], 'nosniff')
    assert.ok(res.headers['referrer-policy'])
    assert.ok(!/<style|style=|<script/.test(res.text))
    const href = /<link rel="stylesheet" href="(\/-\/assets\/ingot\.[0-9a-f]{16}\.css)">/.exec(res.text)?.[1]
    assert.ok(href, res.text)

    const plain = await t.app.inject({ url: href })
    assert.equal(plain.statusCode, 200)
    assert.equal(plain.headers['content-type'], 'text/css; charset=utf-8')
    assert.equal(plain.headers['cache-control'], 'public, max-age=31536000, immutable')
    assert.equal(plain.headers.vary, 'Accept-Encoding')
    const br = await t.app.inject({ url: href, headers: { 'accept-encoding': 'gzip, deflate, br' } })
    assert.equal(br.headers['content-encoding'], 'br')
    assert.equal(brotliDecompressSync(br.rawPayload).toString(), plain.body)
    const gzip = await t.app.inject({ url: href, headers: { 'accept-encoding': 'gzip, br;q=0' } })
    assert.equal(gzip.headers['content-encoding'], 'gzip')
    assert.equal(gunzipSync(gzip.rawPayload).toString(), plain.body)
    // The first visit of a page: its HTML and the stylesheet, compressed, well within 60 KB.
    assert.ok(br.rawPayload.length + Buffer.byteLength(res.text) < 60 * 1024)
    assert.equal((await t.app.inject({ url: href.replace(/\.[0-9a-f]{16}\./, '.0000000000000000.') })).statusCode, 404)
  })

  it('sends a large page compressed to a browser that accepts it, and plain to one that does not', async () => {
    const lines = Array.from({ length: 2000 }, (_, i) => `const value${i} = "<${i}>"`).join('\n')
    await commitFiles(t, project.id, { 'src/long.ts': `${lines}\n` }, { parent: await t.ctx.repositories.open(project.id).resolveCommit('master') })
    const url = `${base}/blob/master/src/long.ts`
    const plain = await t.app.inject({ url })
    assert.equal(plain.statusCode, 200)
    assert.equal(plain.headers['content-encoding'], undefined)
    assert.equal(plain.headers.vary, 'Accept-Encoding')
    assert.ok(plain.body.includes('value1999'))
    const br = await t.app.inject({ url, headers: { 'accept-encoding': 'gzip, deflate, br' } })
    assert.equal(br.headers['content-encoding'], 'br')
    assert.equal(brotliDecompressSync(br.rawPayload).toString(), plain.body)
    assert.ok(br.rawPayload.length * 5 < plain.rawPayload.length, `${br.rawPayload.length} of ${plain.rawPayload.length}`)
    const gzip = await t.app.inject({ url, headers: { 'accept-encoding': 'gzip, br;q=0' } })
    assert.equal(gzip.headers['content-encoding'], 'gzip')
    assert.equal(gunzipSync(gzip.rawPayload).toString(), plain.body)
    // A small page goes as it is.
    const small = await t.app.inject({ url: `${base}/blob/master/feature.txt`.replace('master', 'feature/x'), headers: { 'accept-encoding': 'br' } })
    assert.equal(small.statusCode, 200)
    assert.equal(small.headers['content-encoding'], undefined)
  })

  it('leaves the URLs routed before it as they were: git over HTTP, the API\'s 404, the sign-in page', async () => {
    const refs = await t.app.inject({ url: `${base}.git/info/refs?service=git-upload-pack` })
    assert.equal(refs.statusCode, 200)
    assert.match(String(refs.headers['content-type']), /git-upload-pack-advertisement/)
    const api = await t.app.inject({ url: '/api/v4/no/such/route' })
    assert.equal(api.statusCode, 404)
    assert.deepEqual(api.json(), { error: '404 Not Found' })
    assert.equal((await anonymous().get('/users/sign_in')).status, 200)
  })
})
