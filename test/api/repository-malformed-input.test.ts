// Cross-cutting, for the repository engine: hostile refs, paths, SHAs and names (NUL, `..`,
// option-looking values, revision syntax, overlong values, odd encodings) on every repository route
// get a 4xx (or a success where the value is harmless), never a 500, on SQLite and PostgreSQL.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeProject, makeUser } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'

/** Values as they appear in a URL (percent-encoded); bodies get them decoded. */
const HOSTILE = [
  '%00', 'a%00b', '..', '-x', '--output=%2Ftmp%2Fingot-probe', 'x'.repeat(5000), '%E2%9C%93', 'HEAD~1', 'master%5E%7Btree%7D',
  '%40%7B-1%7D', '%3A%2Fmsg', 'refs%2Fheads%2F..%2Fx', '%2F', '.', 'a%2F..%2Fb', '%5C', '%0A', 'f'.repeat(64),
]

interface ProbedRoute {
  method: string
  url: (value: string) => string
  body?: (value: string) => unknown
}

describe('repository routes and malformed input', () => {
  let t: TestApp
  before(async () => { t = await buildTestApp() })
  after(async () => { await t.close() })

  it('never answers 500', async () => {
    const owner = await makeUser(t)
    const { id } = await makeProject(t, owner, { visibility: 'public' })
    const sha = await commitFiles(t, id, { 'a/b.txt': 'x\n', 'README.md': '# r\n' })
    const repo = `/projects/${id}/repository`
    const action = (filePath: string) => [{ action: 'create', file_path: filePath, content: 'c' }]
    const routes: ProbedRoute[] = [
      { method: 'GET', url: (v) => `${repo}/tree?ref=${v}` },
      { method: 'GET', url: (v) => `${repo}/tree?path=${v}` },
      { method: 'GET', url: (v) => `${repo}/blobs/${v}` },
      { method: 'GET', url: (v) => `${repo}/blobs/${v}/raw` },
      { method: 'GET', url: (v) => `${repo}/archive?sha=${v}` },
      { method: 'GET', url: (v) => `${repo}/archive?format=${v}` },
      { method: 'GET', url: (v) => `${repo}/compare?from=${v}&to=master` },
      { method: 'GET', url: (v) => `${repo}/compare?from=master&to=${v}` },
      { method: 'GET', url: (v) => `${repo}/merge_base?refs[]=${v}&refs[]=master` },
      { method: 'GET', url: (v) => `${repo}/files/${v}?ref=master` },
      { method: 'GET', url: (v) => `${repo}/files/README.md?ref=${v}` },
      { method: 'HEAD', url: (v) => `${repo}/files/${v}?ref=master` },
      { method: 'GET', url: (v) => `${repo}/files/${v}/raw?ref=master` },
      { method: 'POST', url: (v) => `${repo}/files/${v}`, body: () => ({ branch: 'master', content: 'c', commit_message: 'm' }) },
      { method: 'PUT', url: () => `${repo}/files/README.md`, body: (v) => ({ branch: 'x', start_branch: v, content: 'c', commit_message: 'm' }) },
      { method: 'GET', url: (v) => `${repo}/commits?ref_name=${v}` },
      { method: 'GET', url: (v) => `${repo}/commits?path=${v}` },
      { method: 'GET', url: (v) => `${repo}/commits?since=${v}` },
      { method: 'GET', url: (v) => `${repo}/commits/${v}` },
      { method: 'GET', url: (v) => `${repo}/commits/${v}/refs` },
      { method: 'GET', url: (v) => `${repo}/commits/${v}/diff` },
      { method: 'GET', url: (v) => `${repo}/commits/${v}/comments` },
      { method: 'POST', url: (v) => `${repo}/commits/${v}/comments`, body: () => ({ note: 'n', path: 'a/b.txt', line: 1 }) },
      { method: 'POST', url: () => `${repo}/commits/${sha}/comments`, body: (v) => ({ note: v, path: v, line: 1, line_type: v }) },
      { method: 'POST', url: (v) => `${repo}/commits/${v}/cherry_pick`, body: () => ({ branch: 'master' }) },
      { method: 'POST', url: (v) => `${repo}/commits/${sha}/revert?branch=${v}` },
      { method: 'POST', url: () => `${repo}/commits`, body: (v) => ({ branch: v, commit_message: 'm', actions: action('z') }) },
      { method: 'POST', url: () => `${repo}/commits`, body: (v) => ({ branch: 'master', commit_message: 'm', actions: action(v) }) },
      { method: 'GET', url: (v) => `${repo}/branches/${v}` },
      { method: 'GET', url: (v) => `${repo}/branches?search=${v}` },
      { method: 'POST', url: (v) => `${repo}/branches?branch=${v}&ref=master` },
      { method: 'POST', url: (v) => `${repo}/branches?branch=nb&ref=${v}` },
      { method: 'DELETE', url: (v) => `${repo}/branches/${v}` },
      { method: 'PUT', url: (v) => `${repo}/branches/${v}/protect` },
      { method: 'GET', url: (v) => `${repo}/tags/${v}` },
      { method: 'POST', url: (v) => `${repo}/tags?tag_name=${v}&ref=master` },
      { method: 'POST', url: (v) => `${repo}/tags?tag_name=t1&ref=${v}&message=m` },
      { method: 'DELETE', url: (v) => `${repo}/tags/${v}` },
      { method: 'POST', url: (v) => `${repo}/tags/${v}/release`, body: () => ({ description: 'd' }) },
      { method: 'GET', url: (v) => `/projects/${id}/protected_branches/${v}` },
      { method: 'POST', url: (v) => `/projects/${id}/protected_branches?name=${v}` },
      { method: 'GET', url: (v) => `/projects/${id}/protected_tags/${v}` },
      { method: 'POST', url: (v) => `/projects/${id}/protected_tags?name=${v}` },
      { method: 'POST', url: (v) => `/projects/${id}/fork?namespace=${v}` },
    ]
    const failures: string[] = []
    for (const route of routes) {
      for (const value of HOSTILE) {
        const url = route.url(value)
        const res = await t.api(route.method, url, route.body === undefined ? {} : { body: route.body(decodeURIComponent(value)) })
        if (res.status >= 500) failures.push(`${res.status} ${route.method} ${url.slice(0, 120)}: ${res.text.slice(0, 200)}`)
      }
    }
    assert.deepEqual(failures, [])
  })

  it('refuses revision expressions that search the history (400) wherever a ref or sha is taken', async () => {
    const owner = await makeUser(t)
    const { id } = await makeProject(t, owner, { visibility: 'public' })
    const sha = await commitFiles(t, id, { 'README.md': '# r\n' })
    const repo = `/projects/${id}/repository`
    const routes: ProbedRoute[] = [
      { method: 'GET', url: (v) => `${repo}/tree?ref=${v}` },
      { method: 'GET', url: (v) => `${repo}/archive?sha=${v}` },
      { method: 'GET', url: (v) => `${repo}/archive.zip?sha=${v}` },
      { method: 'GET', url: (v) => `${repo}/compare?from=${v}&to=master` },
      { method: 'GET', url: (v) => `${repo}/compare?from=master&to=${v}` },
      { method: 'GET', url: (v) => `${repo}/merge_base?refs[]=${v}&refs[]=master` },
      { method: 'GET', url: (v) => `${repo}/files/README.md?ref=${v}` },
      { method: 'HEAD', url: (v) => `${repo}/files/README.md?ref=${v}` },
      { method: 'GET', url: (v) => `${repo}/files/README.md/raw?ref=${v}` },
      { method: 'GET', url: (v) => `${repo}/commits?ref_name=${v}` },
      { method: 'GET', url: (v) => `${repo}/commits/${v}` },
      { method: 'GET', url: (v) => `${repo}/commits/${v}/refs` },
      { method: 'GET', url: (v) => `${repo}/commits/${v}/diff` },
      { method: 'GET', url: (v) => `${repo}/commits/${v}/comments` },
      { method: 'POST', url: (v) => `${repo}/commits/${v}/cherry_pick`, body: () => ({ branch: 'master' }) },
      { method: 'POST', url: (v) => `${repo}/branches?branch=nb&ref=${v}` },
      { method: 'POST', url: (v) => `${repo}/tags?tag_name=t1&ref=${v}&message=m` },
    ]
    // `master^{/README}`, `:/README`, `master@{0}`, `@{-1}`, as they appear in a URL.
    const searching = ['master%5E%7B%2FREADME%7D', `${sha}%5E%7B%2F!-x%7D`, '%3A%2FREADME', 'master%40%7B0%7D', '%40%7B-1%7D']
    const wrong: string[] = []
    for (const route of routes) {
      for (const value of searching) {
        const url = route.url(value)
        const res = await t.api(route.method, url, { token: owner.token, ...(route.body === undefined ? {} : { body: route.body(value) }) })
        const refused = res.status === 400 && (route.method === 'HEAD' || /searches the history/.test(String(res.body?.message)))
        if (!refused) wrong.push(`${res.status} ${route.method} ${url}: ${res.text.slice(0, 200)}`)
      }
    }
    assert.deepEqual(wrong, [])
    // The plain forms still name their commits.
    assert.equal((await t.api('GET', `${repo}/commits/master`)).body.id, sha)
    assert.equal((await t.api('GET', `${repo}/commits/master~0`)).body.id, sha)
  })
})
