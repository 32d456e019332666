// Raw answers of user content — repository files and blobs, snippets — are never rendered by a
// browser as a page or an image that runs scripts: text goes out as text/plain, anything else as
// application/octet-stream, with X-Content-Type-Options: nosniff, whatever the file is named.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import { makeSnippet } from '../helpers/noteables.js'
import type { ProjectRow } from '../../src/db/schema.js'

const HTML = '<html><body><script>alert(document.cookie)</script></body></html>\n'
const SVG = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>\n'

describe('raw user content', () => {
  let t: TestApp
  let owner: TestUser
  let project: ProjectRow

  before(async () => {
    t = await buildTestApp()
    owner = await makeUser(t)
    project = await makeProject(t, owner, { visibility: 'public' })
    await commitFiles(t, project.id, { 'page.html': HTML, 'image.svg': SVG, 'data.bin': '\0\x01\x02binary' })
  })
  after(async () => { await t.close() })

  const expectSafe = (res: { status: number; headers: Record<string, unknown> }, type: string, what: string) => {
    assert.equal(res.status, 200, what)
    assert.equal(res.headers['content-type'], type, what)
    assert.equal(res.headers['x-content-type-options'], 'nosniff', what)
  }

  it('serves raw files and blobs as text/plain or octet-stream, never sniffed', async () => {
    for (const [file, type] of [['page.html', 'text/plain; charset=utf-8'], ['image.svg', 'text/plain; charset=utf-8'], ['data.bin', 'application/octet-stream']]) {
      const raw = await t.api('GET', `/projects/${project.id}/repository/files/${file}/raw`, { token: null, query: { ref: 'master' } })
      expectSafe(raw, type!, file!)
      const meta = await t.api('GET', `/projects/${project.id}/repository/files/${file}`, { token: null, query: { ref: 'master' } })
      const blob = await t.api('GET', `/projects/${project.id}/repository/blobs/${meta.body.blob_id}/raw`, { token: null })
      expectSafe(blob, type!, `blob of ${file}`)
    }
  })

  it('serves a snippet’s raw content as text/plain, never sniffed', async () => {
    for (const [name, content] of [['page.html', HTML], ['image.svg', SVG]]) {
      const snippet = await makeSnippet(t, project, owner, { visibility: 'public', content: content! })
      await t.ctx.db.updateTable('snippets').set({ file_name: name! }).where('id', '=', snippet.id).execute()
      const res = await t.api('GET', `/projects/${project.id}/snippets/${snippet.id}/raw`, { token: owner.token })
      expectSafe(res, 'text/plain; charset=utf-8', name!)
      assert.equal(res.text, content)
    }
  })

  it('forbids sniffing on every answer, errors included', async () => {
    for (const path of ['/version', '/projects/999999', '/-/liveness']) {
      assert.equal((await t.api('GET', path, { token: null })).headers['x-content-type-options'], 'nosniff', path)
    }
  })
})
