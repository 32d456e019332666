// Export, import and transfer on the web (web/projects/settings.ts's Advanced section,
// `/download_export`, web/new-project.ts's import form): a Maintainer schedules the export, the job
// runs, the archive downloads as the API sends it; that archive uploaded to the import form
// becomes a project once the import job ran (its page showing the import meanwhile); the import's
// refusals (invalid file, size limit, imports disabled) are 422 messages; an Owner transfers the
// project to a group they maintain. Developers, outsiders and anonymous visitors get the 404 page.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeGroup, makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { multipart, type MultipartPart } from '../helpers/multipart.js'
import type { NamespaceRow, ProjectRow } from '../../src/db/schema.js'
import { DEVELOPER, MAINTAINER } from '../../src/policies/access-levels.js'
import { Browser, formToken, signedInBrowser } from './browser.js'

describe('Web export, import and transfer', () => {
  let t: TestApp
  let owner: TestUser
  let maintainer: TestUser
  let developer: TestUser
  let project: ProjectRow
  let group: NamespaceRow
  let base: string
  let archive: Buffer

  const runJobs = async () => { while (await t.ctx.jobs.runDue(Date.now() + 5_000) > 0) { /* until none is due */ } }
  const setSettings = async (body: Record<string, unknown>) => {
    const res = await t.api('PUT', '/application/settings', { body })
    assert.equal(res.status, 200, res.text)
  }
  /** The import form sent as a browser sends it: multipart, with the visitor's cookies. */
  const upload = async (browser: Browser, parts: Record<string, MultipartPart>) => {
    const { payload, contentType } = await multipart(parts)
    const cookie = [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; ')
    const res = await t.app.inject({ method: 'POST', url: '/import/gitlab_project', headers: { cookie, 'content-type': contentType }, payload })
    return { status: res.statusCode, headers: res.headers, text: res.body }
  }

  before(async () => {
    t = await buildTestApp()
    ;[owner, maintainer, developer] = await Promise.all([makeUser(t), makeUser(t), makeUser(t)])
    project = await makeProject(t, owner, { visibility: 'private', description: 'exported' })
    await makeMember(t, { type: 'project', id: project.id }, maintainer, MAINTAINER)
    await makeMember(t, { type: 'project', id: project.id }, developer, DEVELOPER)
    const file = await t.api('POST', `/projects/${project.id}/repository/files/README.md`, {
      token: owner.token, body: { branch: 'master', content: '# exported\n', commit_message: 'Add README' },
    })
    assert.equal(file.status, 201, file.text)
    group = await makeGroup(t)
    await makeMember(t, { type: 'group', id: group.id }, owner, MAINTAINER)
    base = `/${owner.user.username}/${project.path}`
  })
  after(async () => { await t.close() })

  it('lets a Maintainer export the project and download the archive once the job ran', async () => {
    assert.equal((await new Browser(t).get(`${base}/download_export`)).status, 404)
    assert.equal((await (await signedInBrowser(t, developer.user.username)).get(`${base}/download_export`)).status, 404)
    const browser = await signedInBrowser(t, maintainer.user.username)
    assert.equal((await browser.get(`${base}/download_export`)).status, 404, 'nothing exported yet')
    const settings = await browser.get(`${base}/edit`)
    assert.match(settings.text, /Export project/)
    assert.ok(!settings.text.includes('Transfer the project'), 'transfer is for Owners')
    assert.equal((await browser.post(`${base}/edit`, { action: 'export' })).status, 422, 'no CSRF token')
    const started = await browser.post(`${base}/edit`, { authenticity_token: formToken(settings.text), action: 'export' })
    assert.equal(started.status, 302, started.text)
    assert.match((await browser.get(`${base}/edit`)).text, /The export is being prepared/)
    await runJobs()
    const finished = await browser.get(`${base}/edit`)
    assert.ok(finished.text.includes(`href="${base}/download_export">Download export</a>`))
    const download = await t.app.inject({ method: 'GET', url: `${base}/download_export`, headers: { cookie: [...browser.cookies].map(([n, v]) => `${n}=${v}`).join('; ') } })
    assert.equal(download.statusCode, 200)
    assert.equal(download.headers['content-type'], 'application/gzip')
    assert.match(String(download.headers['content-disposition']), /^attachment; filename=".*_export\.tar\.gz"$/)
    archive = download.rawPayload
    assert.equal(Number(download.headers['content-length']), archive.length)
    assert.deepEqual([...archive.subarray(0, 2)], [0x1f, 0x8b], 'a gzip stream')

    await setSettings({ project_export_enabled: false })
    try {
      assert.equal((await browser.get(`${base}/download_export`)).status, 404)
      assert.ok(!(await browser.get(`${base}/edit`)).text.includes('Export project'))
      assert.equal((await browser.post(`${base}/edit`, { authenticity_token: formToken(settings.text), action: 'export' })).status, 404)
    } finally {
      await setSettings({ project_export_enabled: true })
    }
  })

  it('imports the archive into a new project, which shows the import until the job finished', async () => {
    assert.ok(archive, 'the export test ran first')
    const anonymous = await upload(new Browser(t), { path: 'nobody', file: { name: 'export.tar.gz', data: archive } })
    assert.equal(anonymous.status, 302)
    assert.equal(anonymous.headers.location, '/users/sign_in')
    const browser = await signedInBrowser(t, owner.user.username)
    const form = await browser.get('/import/gitlab_project/new')
    assert.equal(form.status, 200, form.text)
    assert.match(form.text, /enctype="multipart\/form-data"/)
    const token = formToken(form.text)
    const forged = await upload(browser, { path: 'forged', file: { name: 'export.tar.gz', data: archive } })
    assert.equal(forged.status, 422, 'no CSRF token')
    const res = await upload(browser, { authenticity_token: token, name: 'Imported', path: 'imported', file: { name: 'export.tar.gz', data: archive } })
    assert.equal(res.status, 302, res.text)
    assert.equal(res.headers.location, `/${owner.user.username}/imported`)
    const importing = await browser.get(`/${owner.user.username}/imported`)
    assert.equal(importing.status, 200)
    assert.match(importing.text, /The project is being imported/)
    await runJobs()
    const imported = await t.api('GET', `/projects/${encodeURIComponent(`${owner.user.username}/imported`)}`, { token: owner.token })
    assert.equal(imported.body.import_status, 'finished')
    assert.equal(imported.body.description, 'exported')
    const readme = await t.api('GET', `/projects/${imported.body.id}/repository/files/README.md/raw`, { token: owner.token, query: { ref: 'master' } })
    assert.equal(readme.text, '# exported\n')
    assert.doesNotMatch((await browser.get(`/${owner.user.username}/imported`)).text, /being imported/)
    assert.equal((await t.api('GET', `/projects/${encodeURIComponent(`${owner.user.username}/forged`)}`, { token: owner.token })).status, 404)
  })

  it('refuses an invalid file, a file over the size limit, a taken path and imports while disabled, with 422', async () => {
    const browser = await signedInBrowser(t, owner.user.username)
    const token = formToken((await browser.get('/import/gitlab_project/new')).text)
    const invalid = await upload(browser, { authenticity_token: token, path: 'bad"><b>', file: { name: 'x.tar.gz', data: Buffer.from('not an archive') } })
    assert.equal(invalid.status, 422)
    assert.match(invalid.text, /The file is invalid/)
    assert.ok(invalid.text.includes('value="bad&quot;&gt;&lt;b&gt;"'), 'the sent path is escaped')
    const taken = await upload(browser, { authenticity_token: token, path: 'imported', file: { name: 'x.tar.gz', data: archive } })
    assert.equal(taken.status, 422)
    assert.match(taken.text, /Path has already been taken/)
    await setSettings({ max_import_size: 1 })
    try {
      const big = await upload(browser, { authenticity_token: token, path: 'big', file: { name: 'x.tar.gz', data: Buffer.alloc(1536 * 1024, 1) } })
      assert.equal(big.status, 422)
      assert.match(big.text, /larger than the 1 MB this instance takes/)
    } finally {
      await setSettings({ max_import_size: 50 })
    }
    await setSettings({ import_sources: ['github', 'git'] })
    try {
      assert.equal((await browser.get('/import/gitlab_project/new')).status, 404)
      const disabled = await upload(browser, { authenticity_token: token, path: 'off', file: { name: 'x.tar.gz', data: archive } })
      assert.equal(disabled.status, 422)
      assert.match(disabled.text, /disabled on this instance/)
    } finally {
      await setSettings({ import_sources: ['github', 'git', 'service_project'] })
    }
    for (const path of ['big', 'off', 'bad"><b>']) {
      assert.equal((await t.api('GET', `/projects/${encodeURIComponent(`${owner.user.username}/${path}`)}`, { token: owner.token })).status, 404, path)
    }
  })

  it('lets the Owner transfer the project to a group they maintain; refuses Maintainers and a clash', async () => {
    const maintaining = await signedInBrowser(t, maintainer.user.username)
    const maintainerToken = formToken((await maintaining.get(`${base}/edit`)).text)
    assert.equal((await maintaining.post(`${base}/edit`, { authenticity_token: maintainerToken, action: 'transfer', new_namespace_id: String(group.id) })).status, 404)
    const browser = await signedInBrowser(t, owner.user.username)
    const settings = await browser.get(`${base}/edit`)
    assert.ok(settings.text.includes(`<option value="${group.id}">${group.full_path}</option>`))
    const token = formToken(settings.text)
    const unchosen = await browser.post(`${base}/edit`, { authenticity_token: token, action: 'transfer', new_namespace_id: '' })
    assert.equal(unchosen.status, 422)
    assert.match(unchosen.text, /Please select a new namespace/)
    const clash = await makeProject(t, owner, { namespace: group, path: project.path })
    const refused = await browser.post(`${base}/edit`, { authenticity_token: token, action: 'transfer', new_namespace_id: String(group.id) })
    assert.equal(refused.status, 422)
    assert.match(refused.text, /Project with same name or path in target namespace already exists/)
    await t.api('DELETE', `/projects/${clash.id}`, { token: owner.token })
    await t.ctx.db.deleteFrom('projects').where('id', '=', clash.id).execute()
    const moved = await browser.post(`${base}/edit`, { authenticity_token: token, action: 'transfer', new_namespace_id: String(group.id) })
    assert.equal(moved.status, 302, moved.text)
    assert.equal(moved.headers.location, `/${group.full_path}/${project.path}/edit`)
    const api = await t.api('GET', `/projects/${project.id}`, { token: owner.token })
    assert.equal(api.body.namespace.id, group.id)
    assert.equal((await browser.get(`/${group.full_path}/${project.path}/edit`)).status, 200)
  })
})
