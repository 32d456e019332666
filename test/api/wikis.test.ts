// Project wikis (spec: Wikis) through HTTP, against the real wiki repository: pages named from
// their titles, read by slug, listed with and without content, updated (renames move the file),
// deleted, attachments committed under uploads/; every write one commit by the acting user, and
// the wiki_page activity after it. Permissions as the original's (read with the project, write
// Developer, delete Maintainer), private projects 404, and the validation answers.
// Runs on SQLite, and on PostgreSQL when INGOT_TEST_DATABASE_URL is set.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs/promises'
import { buildTestApp, ROOT_TOKEN, type TestApp } from '../helpers/app.js'
import { makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { expectStatuses, makeMatrix, type Matrix } from '../shared/permission-matrix.js'
import { expectPaginates, expectRejectsBadPagination } from '../shared/pagination.js'
import type { Activity } from '../../src/services/activity/activity.js'
import type { ProjectRow } from '../../src/db/schema.js'
import { writeCommit } from '../../src/git/write.js'

/** A 1×1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64')

async function multipart(fields: Record<string, string>, file?: { name: string; data: Buffer }) {
  const form = new FormData()
  for (const [name, value] of Object.entries(fields)) form.append(name, value)
  if (file !== undefined) form.append('file', new Blob([file.data]), file.name)
  const request = new Request('http://ingot.test', { method: 'POST', body: form })
  return { payload: Buffer.from(await request.arrayBuffer()), contentType: request.headers.get('content-type') ?? '' }
}

describe('wikis', () => {
  let t: TestApp
  let owner: TestUser
  const activities: Activity[] = []

  before(async () => {
    t = await buildTestApp()
    owner = await makeUser(t, { name: 'Wiki Owner' })
    t.ctx.activity.add(async (activity) => { activities.push(activity) })
  })
  after(async () => { await t.close() })

  const wikiOf = (project: ProjectRow) => `/projects/${project.id}/wikis`
  const createPage = (project: ProjectRow, body: Record<string, unknown>, token: string | null = owner.token) =>
    t.api('POST', wikiOf(project), { token, body })
  const upload = async (project: ProjectRow, fields: Record<string, string>, file?: { name: string; data: Buffer }, token = owner.token) => {
    const { payload, contentType } = await multipart(fields, file)
    const res = await t.app.inject({
      method: 'POST', url: `/api/v4${wikiOf(project)}/attachments`, payload, headers: { 'private-token': token, 'content-type': contentType },
    })
    return { status: res.statusCode, body: res.json() }
  }
  /** The wiki's `master` commit and the files of its tree. */
  const wikiHead = async (project: ProjectRow, branch = 'master') => {
    const repo = t.ctx.repositories.openWiki(project.id)
    const id = await repo.resolveCommit(branch)
    assert.ok(id !== null, `the wiki has no ${branch}`)
    const commit = await repo.readCommit(id)
    const files = (await repo.listTree(id, '', true)).filter((entry) => entry.type === 'blob').map((entry) => entry.path)
    return { commit: commit!, files }
  }
  const fileAt = async (project: ProjectRow, path: string, branch = 'master') =>
    (await t.ctx.repositories.openWiki(project.id).read(`${branch}:${path}`))?.data.toString('utf8') ?? null

  describe('POST /projects/:id/wikis', () => {
    it('creates the wiki repository and the page as one commit by the acting user, then publishes the activity', async () => {
      const project = await makeProject(t, owner)
      assert.equal(await t.ctx.repositories.wikiExists(project.id), false)
      activities.length = 0
      const res = await createPage(project, { title: 'Deploy guide', content: 'How to deploy' })
      assert.equal(res.status, 201, res.text)
      assert.deepEqual(res.body, { format: 'markdown', slug: 'Deploy-guide', title: 'Deploy guide', content: 'How to deploy' })
      assert.deepEqual(Object.keys(res.body), ['format', 'slug', 'title', 'content'])
      assert.equal(await t.ctx.repositories.wikiExists(project.id), true)
      const { commit, files } = await wikiHead(project)
      assert.deepEqual(files, ['Deploy-guide.md'])
      assert.equal(commit.message, `${owner.user.username} created page: Deploy guide`)
      assert.deepEqual([commit.author.name, commit.author.email], ['Wiki Owner', owner.user.email])
      assert.deepEqual([commit.committer.name, commit.committer.email], ['Wiki Owner', owner.user.email])
      assert.deepEqual(activities, [{
        kind: 'wiki_page', action: 'create', projectId: project.id, userId: owner.user.id, slug: 'Deploy-guide',
        title: 'Deploy guide', format: 'markdown', content: 'How to deploy', message: `${owner.user.username} created page: Deploy guide`,
      }])
    })

    it('puts titles with / into directories and names files by format', async () => {
      const project = await makeProject(t, owner)
      const nested = await createPage(project, { title: 'docs/Getting started', content: 'Start here', format: 'asciidoc' })
      assert.equal(nested.status, 201, nested.text)
      assert.deepEqual(nested.body, { format: 'asciidoc', slug: 'docs/Getting-started', title: 'Getting started', content: 'Start here' })
      const rdoc = await createPage(project, { title: 'api-notes', content: '= Notes', format: 'rdoc' })
      assert.deepEqual(rdoc.body, { format: 'rdoc', slug: 'api-notes', title: 'api notes', content: '= Notes' })
      assert.deepEqual((await wikiHead(project)).files, ['api-notes.rdoc', 'docs/Getting-started.asciidoc'])
      assert.equal(await fileAt(project, 'docs/Getting-started.asciidoc'), 'Start here')
    })

    it('refuses a title some page of the directory already has, in any case or format (400)', async () => {
      const project = await makeProject(t, owner)
      assert.equal((await createPage(project, { title: 'Home', content: 'one' })).status, 201)
      const before = (await wikiHead(project)).commit.id
      for (const title of ['Home', 'home', 'HOME']) {
        const res = await createPage(project, { title, content: 'two', format: 'rdoc' })
        assert.equal(res.status, 400, title)
        assert.match(res.body.message.base[0], /^Duplicate page: /)
      }
      assert.equal((await wikiHead(project)).commit.id, before)
      // The same title in another directory is another page.
      assert.equal((await createPage(project, { title: 'sub/Home', content: 'three' })).status, 201)
    })

    it('answers missing, blank and invalid parameters with 400', async () => {
      const project = await makeProject(t, owner)
      const missingTitle = await createPage(project, { content: 'x' })
      assert.deepEqual([missingTitle.status, missingTitle.body], [400, { error: 'title is missing' }])
      const missingContent = await createPage(project, { title: 'x' })
      assert.deepEqual([missingContent.status, missingContent.body], [400, { error: 'content is missing' }])
      const blank = await createPage(project, { title: ' ', content: '' })
      assert.deepEqual([blank.status, blank.body], [400, { message: { title: ["can't be blank"], content: ["can't be blank"] } }])
      const format = await createPage(project, { title: 'x', content: 'x', format: 'textile' })
      assert.equal(format.status, 400)
      assert.match(format.body.error, /^format /)
      // A file name starting with an underscore is one of gollum's special files (_Sidebar), never a page.
      for (const title of ['../escape', 'a/../b', 'sub/', '.git/config', '_sidebar', 'docs/_p']) {
        const res = await createPage(project, { title, content: 'x' })
        assert.deepEqual([res.status, res.body], [400, { message: { title: ['is invalid'] } }], title)
      }
      assert.equal(await t.ctx.repositories.wikiExists(project.id), false)
    })
  })

  describe('GET /projects/:id/wikis and /wikis/:slug', () => {
    let project: ProjectRow
    before(async () => {
      project = await makeProject(t, owner)
      await createPage(project, { title: 'Home', content: 'Welcome' })
      await createPage(project, { title: 'guides/How to test', content: '= Testing', format: 'rdoc' })
    })

    it('lists pages without content unless with_content is set', async () => {
      const plain = await t.api('GET', wikiOf(project), { token: owner.token })
      assert.equal(plain.status, 200, plain.text)
      assert.deepEqual(plain.body, [
        { format: 'markdown', slug: 'Home', title: 'Home' },
        { format: 'rdoc', slug: 'guides/How-to-test', title: 'How to test' },
      ])
      const full = await t.api('GET', wikiOf(project), { token: owner.token, query: { with_content: true } })
      assert.deepEqual(full.body.map((page: { content: string }) => page.content), ['Welcome', '= Testing'])
    })

    it('paginates the list, as every list, with the contents of the page asked for', async () => {
      const many = await makeProject(t, owner)
      for (const title of ['One', 'Two', 'Three', 'Four']) await createPage(many, { title, content: `${title} text` })
      await expectPaginates({ t, path: wikiOf(many), token: owner.token, total: 4 })
      await expectPaginates({ t, path: `${wikiOf(many)}?with_content=true`, token: owner.token, total: 4 })
      const second = await t.api('GET', wikiOf(many), { token: owner.token, query: { with_content: true, per_page: 2, page: 2 } })
      assert.deepEqual(second.body, [
        { format: 'markdown', slug: 'Three', title: 'Three', content: 'Three text' },
        { format: 'markdown', slug: 'Two', title: 'Two', content: 'Two text' },
      ])
      await expectRejectsBadPagination(t, wikiOf(many), owner.token)
      const none = await t.api('GET', wikiOf(await makeProject(t, owner)), { token: owner.token })
      assert.deepEqual([none.body, none.headers['x-total'], none.headers['x-total-pages']], [[], '0', '1'])
    })

    it('reads a page by its slug, URL-encoded with directories, case-insensitively', async () => {
      const nested = await t.api('GET', `${wikiOf(project)}/guides%2FHow-to-test`, { token: owner.token })
      assert.equal(nested.status, 200, nested.text)
      assert.deepEqual(nested.body, { format: 'rdoc', slug: 'guides/How-to-test', title: 'How to test', content: '= Testing' })
      const anyCase = await t.api('GET', `${wikiOf(project)}/home`, { token: owner.token })
      assert.equal(anyCase.body.slug, 'Home')
    })

    it('answers 404 Wiki Page for an unknown slug, and on a wiki nobody wrote yet', async () => {
      const unknown = await t.api('GET', `${wikiOf(project)}/nope`, { token: owner.token })
      assert.deepEqual([unknown.status, unknown.body], [404, { message: '404 Wiki Page Not Found' }])
      const empty = await makeProject(t, owner)
      assert.deepEqual((await t.api('GET', wikiOf(empty), { token: owner.token })).body, [])
      assert.equal((await t.api('GET', `${wikiOf(empty)}/Home`, { token: owner.token })).status, 404)
      assert.equal(await t.ctx.repositories.wikiExists(empty.id), false)
    })

    it('reads pages pushed as any files: only known extensions are pages', async () => {
      const pushed = await makeProject(t, owner)
      await createPage(pushed, { title: 'seed', content: 'x' })
      const repo = t.ctx.repositories.openWiki(pushed.id)
      const parent = await repo.resolveCommit('master')
      const author = { name: 'Pusher', email: 'pusher@example.com' }
      const id = await writeCommit(repo, {
        parent, message: 'pushed', author, committer: author,
        changes: ['Notes.markdown', 'logo.png', 'README', '_Sidebar.md', 'deep/er/Page Name.mkd', 'x.org'].map((path) => ({ path, content: Buffer.from(path) })),
      })
      assert.ok(await repo.compareAndSwapRef('refs/heads/master', id, parent!))
      const list = await t.api('GET', wikiOf(pushed), { token: owner.token })
      assert.deepEqual(list.body.map((page: { slug: string }) => page.slug), ['Notes', 'deep/er/Page-Name', 'seed'])
      const spaced = await t.api('GET', `${wikiOf(pushed)}/deep%2Fer%2Fpage-name`, { token: owner.token })
      assert.deepEqual(spaced.body, { format: 'markdown', slug: 'deep/er/Page-Name', title: 'Page Name', content: 'deep/er/Page Name.mkd' })
      // An edit keeps the pushed file where and as it is.
      const edited = await t.api('PUT', `${wikiOf(pushed)}/deep%2Fer%2FPage-Name`, { token: owner.token, body: { content: 'edited' } })
      assert.equal(edited.status, 200, edited.text)
      assert.equal(await fileAt(pushed, 'deep/er/Page Name.mkd'), 'edited')
    })
  })

  describe('PUT /projects/:id/wikis/:slug', () => {
    it('updates the content in place, keeping the format, as one commit naming the page', async () => {
      const project = await makeProject(t, owner)
      await createPage(project, { title: 'Notes', content: 'old', format: 'rdoc' })
      activities.length = 0
      const res = await t.api('PUT', `${wikiOf(project)}/Notes`, { token: owner.token, body: { content: 'new' } })
      assert.equal(res.status, 200, res.text)
      assert.deepEqual(res.body, { format: 'rdoc', slug: 'Notes', title: 'Notes', content: 'new' })
      const { commit, files } = await wikiHead(project)
      assert.deepEqual(files, ['Notes.rdoc'])
      assert.equal(commit.message, `${owner.user.username} updated page: Notes`)
      assert.equal(commit.parents.length, 1)
      assert.equal(activities[0]?.kind === 'wiki_page' ? activities[0].action : null, 'update')
    })

    it('moves the file on a new title: a bare name stays in the directory, a path is from the root', async () => {
      const project = await makeProject(t, owner)
      await createPage(project, { title: 'dir/Old name', content: 'text' })
      const renamed = await t.api('PUT', `${wikiOf(project)}/dir%2FOld-name`, { token: owner.token, body: { title: 'New name' } })
      assert.equal(renamed.status, 200, renamed.text)
      assert.deepEqual(renamed.body, { format: 'markdown', slug: 'dir/New-name', title: 'New name', content: 'text' })
      assert.deepEqual((await wikiHead(project)).files, ['dir/New-name.md'])
      assert.equal((await t.api('GET', `${wikiOf(project)}/dir%2FOld-name`, { token: owner.token })).status, 404)
      const moved = await t.api('PUT', `${wikiOf(project)}/dir%2FNew-name`, { token: owner.token, body: { title: '/Top', content: 'moved', format: 'asciidoc' } })
      assert.deepEqual(moved.body, { format: 'asciidoc', slug: 'Top', title: 'Top', content: 'moved' })
      assert.deepEqual((await wikiHead(project)).files, ['Top.asciidoc'])
      const formatOnly = await t.api('PUT', `${wikiOf(project)}/Top`, { token: owner.token, body: { content: 'md', format: 'markdown' } })
      assert.equal(formatOnly.body.slug, 'Top')
      assert.deepEqual((await wikiHead(project)).files, ['Top.md'])
    })

    it('refuses a rename onto another page, missing parameters, blank content and unknown pages', async () => {
      const project = await makeProject(t, owner)
      await createPage(project, { title: 'One', content: '1' })
      await createPage(project, { title: 'Two', content: '2' })
      const taken = await t.api('PUT', `${wikiOf(project)}/One`, { token: owner.token, body: { title: 'two' } })
      assert.deepEqual([taken.status, taken.body], [400, { message: { base: ['There is already a page with the same title in that path.'] } }])
      const nothing = await t.api('PUT', `${wikiOf(project)}/One`, { token: owner.token, body: { format: 'rdoc' } })
      assert.deepEqual([nothing.status, nothing.body], [400, { error: 'content, title are missing, at least one parameter must be provided' }])
      const blank = await t.api('PUT', `${wikiOf(project)}/One`, { token: owner.token, body: { content: '  ' } })
      assert.deepEqual([blank.status, blank.body], [400, { message: { content: ["can't be blank"] } }])
      const unknown = await t.api('PUT', `${wikiOf(project)}/Three`, { token: owner.token, body: { content: '3' } })
      assert.deepEqual([unknown.status, unknown.body], [404, { message: '404 Wiki Page Not Found' }])
      assert.deepEqual((await wikiHead(project)).files, ['One.md', 'Two.md'])
    })
  })

  describe('DELETE /projects/:id/wikis/:slug', () => {
    it('removes the page in a commit (204) and publishes the deletion', async () => {
      const project = await makeProject(t, owner)
      await createPage(project, { title: 'Gone soon', content: 'bye' })
      await createPage(project, { title: 'Stays', content: 'hi' })
      activities.length = 0
      const res = await t.api('DELETE', `${wikiOf(project)}/Gone-soon`, { token: owner.token })
      assert.equal(res.status, 204, res.text)
      assert.equal(res.text, '')
      const { commit, files } = await wikiHead(project)
      assert.deepEqual(files, ['Stays.md'])
      assert.equal(commit.message, `${owner.user.username} deleted page: Gone soon`)
      assert.deepEqual(activities.map((a) => (a.kind === 'wiki_page' ? [a.action, a.slug, a.content] : null)), [['delete', 'Gone-soon', '']])
      const again = await t.api('DELETE', `${wikiOf(project)}/Gone-soon`, { token: owner.token })
      assert.deepEqual([again.status, again.body], [404, { message: '404 Wiki Page Not Found' }])
    })
  })

  describe('POST /projects/:id/wikis/attachments', () => {
    it('commits the file under uploads/<hex>/ on master and links it', async () => {
      const project = await makeProject(t, owner)
      const res = await upload(project, {}, { name: 'dk.png', data: PNG })
      assert.equal(res.status, 201, JSON.stringify(res.body))
      assert.match(res.body.file_path, /^uploads\/[0-9a-f]{32}\/dk\.png$/)
      assert.deepEqual(res.body, {
        file_name: 'dk.png', file_path: res.body.file_path, branch: 'master',
        link: { url: res.body.file_path, markdown: `![dk](${res.body.file_path})` },
      })
      const { commit, files } = await wikiHead(project)
      assert.deepEqual(files, [res.body.file_path])
      assert.equal(commit.message, 'Upload attachment dk.png')
      assert.equal(commit.author.email, owner.user.email)
      const blob = await t.ctx.repositories.openWiki(project.id).read(`master:${res.body.file_path}`)
      assert.deepEqual(blob?.data, PNG)
      // Attachments are no pages.
      assert.deepEqual((await t.api('GET', wikiOf(project), { token: owner.token })).body, [])
    })

    it('cleans the file name, links other files, and commits on another branch from master', async () => {
      const project = await makeProject(t, owner)
      await createPage(project, { title: 'Home', content: 'x' })
      const res = await upload(project, { branch: 'drafts' }, { name: 'my notes (v2).txt', data: Buffer.from('notes') })
      assert.equal(res.status, 201, JSON.stringify(res.body))
      assert.equal(res.body.file_name, 'my_notes__v2_.txt')
      assert.equal(res.body.branch, 'drafts')
      assert.equal(res.body.link.markdown, `[my_notes__v2_.txt](${res.body.file_path})`)
      assert.deepEqual((await wikiHead(project, 'drafts')).files.sort(), ['Home.md', res.body.file_path].sort())
      assert.deepEqual((await wikiHead(project)).files, ['Home.md'])
    })

    it('refuses a missing file, an invalid branch, and files above max_attachment_size', async () => {
      const project = await makeProject(t, owner)
      const missing = await upload(project, { branch: 'master' })
      assert.deepEqual([missing.status, missing.body], [400, { error: 'file is missing' }])
      const badBranch = await upload(project, { branch: 'a..b' }, { name: 'a.txt', data: Buffer.from('a') })
      assert.equal(badBranch.status, 400)
      assert.equal((await t.api('PUT', '/application/settings', { token: ROOT_TOKEN, body: { max_attachment_size: 1 } })).status, 200)
      try {
        const big = await upload(project, {}, { name: 'big.bin', data: Buffer.alloc(1024 * 1024 + 1) })
        assert.deepEqual([big.status, big.body], [413, { message: '413 Request Entity Too Large' }])
        const fits = await upload(project, {}, { name: 'fits.bin', data: Buffer.alloc(1024 * 1024) })
        assert.equal(fits.status, 201)
      } finally {
        await t.api('PUT', '/application/settings', { token: ROOT_TOKEN, body: { max_attachment_size: 10 } })
      }
      assert.deepEqual((await wikiHead(project)).files.length, 1)
    })
  })

  describe('permissions', () => {
    let m: Matrix
    before(async () => {
      m = await makeMatrix(t, 'private')
      assert.equal((await createPage(m.project, { title: 'Home', content: 'x' }, ROOT_TOKEN)).status, 201)
    })

    it('reads with the project: members down to Guest, 404 to others', async () => {
      const expected = { anonymous: 404, nonMember: 404, external: 404, guest: 200, reporter: 200, developer: 200, maintainer: 200, owner: 200, admin: 200 }
      await expectStatuses(m, (token) => t.api('GET', wikiOf(m.project), { token }), expected)
      await expectStatuses(m, (token) => t.api('GET', `${wikiOf(m.project)}/Home`, { token }), expected)
    })

    it('writes pages and attachments as Developer and up', async () => {
      let n = 0
      await expectStatuses(m, (token) => createPage(m.project, { title: `Page ${(n += 1)}`, content: 'x' }, token), {
        anonymous: 401, nonMember: 404, guest: 403, reporter: 403, developer: 201, maintainer: 201, owner: 201, admin: 201,
      })
      await expectStatuses(m, (token) => t.api('PUT', `${wikiOf(m.project)}/Home`, { token, body: { content: 'edited' } }), {
        anonymous: 401, nonMember: 404, guest: 403, reporter: 403, developer: 200, maintainer: 200,
      })
      await expectStatuses(m, (token) => upload(m.project, {}, { name: 'a.txt', data: Buffer.from('a') }, token ?? ''), {
        nonMember: 404, guest: 403, reporter: 403, developer: 201,
      })
    })

    it('deletes pages as Maintainer and up', async () => {
      for (const title of ['Del 1', 'Del 2', 'Del 3']) await createPage(m.project, { title, content: 'x' }, ROOT_TOKEN)
      const slugs = ['Del-1', 'Del-2', 'Del-3']
      let n = 0
      await expectStatuses(m, (token, persona) => t.api('DELETE', `${wikiOf(m.project)}/${['maintainer', 'owner', 'admin'].includes(persona) ? slugs[n++] : 'Home'}`, { token }), {
        anonymous: 401, nonMember: 404, guest: 403, reporter: 403, developer: 403, maintainer: 204, owner: 204, admin: 204,
      })
    })

    it('lets anyone read a public project\'s wiki', async () => {
      const project = await makeProject(t, owner, { visibility: 'public' })
      await createPage(project, { title: 'Home', content: 'x' })
      assert.equal((await t.api('GET', `${wikiOf(project)}/Home`, { token: null })).status, 200)
      assert.equal((await createPage(project, { title: 'Other', content: 'x' }, null)).status, 401)
    })

    it('closes a disabled wiki (403) and an archived project\'s wiki to writes, admins included', async () => {
      const project = await makeProject(t, owner)
      await createPage(project, { title: 'Home', content: 'x' })
      assert.equal((await t.api('PUT', `/projects/${project.id}`, { token: owner.token, body: { wiki_enabled: false } })).status, 200)
      for (const token of [owner.token, ROOT_TOKEN]) {
        assert.equal((await t.api('GET', wikiOf(project), { token })).status, 403)
        assert.equal((await createPage(project, { title: 'New', content: 'x' }, token)).status, 403)
      }
      const archived = await makeProject(t, owner)
      assert.equal((await t.api('POST', `/projects/${archived.id}/archive`, { token: owner.token })).status, 201)
      assert.equal((await t.api('GET', wikiOf(archived), { token: owner.token })).status, 200)
      assert.equal((await createPage(archived, { title: 'New', content: 'x' }, ROOT_TOKEN)).status, 403)
    })
  })

  it('removes the wiki repository with its project', async () => {
    const project = await makeProject(t, owner)
    await createPage(project, { title: 'Home', content: 'x' })
    const wikiPath = t.ctx.repositories.wikiPath(project.id)
    await fs.access(wikiPath)
    assert.equal((await t.api('DELETE', `/projects/${project.id}`, { token: owner.token })).status, 202)
    await assert.rejects(fs.access(wikiPath))
  })
})
