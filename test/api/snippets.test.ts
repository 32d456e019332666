// Project snippets: the entity, the list (newest first, paginated) and who sees which snippet by its
// visibility and the project's, create (Reporter; code or content; visibility defaulting to the
// default_snippet_visibility setting), update and
// delete (author or Maintainer), the raw content, and refusals: 401, 404 private, 403, 400.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, EXTERNAL_URL, type TestApp } from '../helpers/app.js'
import { makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { basicUser, makeSnippet } from '../helpers/noteables.js'
import { setProjectColumns } from '../helpers/projects.js'
import { expectPaginates, expectRejectsBadPagination } from '../shared/pagination.js'
import { expectStatuses, makeMatrix, type Matrix } from '../shared/permission-matrix.js'
import type { ProjectRow } from '../../src/db/schema.js'
import { GUEST } from '../../src/policies/access-levels.js'

describe('Project snippets API', () => {
  let t: TestApp
  let m: Matrix
  let base: string
  const valid = { title: 'Hello', file_name: 'hello.rb', code: 'puts "hello"\n', description: 'Says hello', visibility: 'internal' }

  before(async () => {
    t = await buildTestApp()
    m = await makeMatrix(t, 'private')
    base = `/projects/${m.project.id}/snippets`
  })
  after(async () => { await t.close() })

  describe('POST /projects/:id/snippets', () => {
    it('creates a snippet: 201 with the exact entity', async () => {
      const res = await t.api('POST', base, { token: m.users.reporter.token, body: valid })
      assert.equal(res.status, 201, res.text)
      const row = await t.ctx.db.selectFrom('snippets').selectAll().where('id', '=', res.body.id).executeTakeFirstOrThrow()
      const webUrl = `${EXTERNAL_URL}/${m.group.full_path}/${m.project.path}/snippets/${row.id}`
      assert.deepEqual(res.body, {
        id: row.id, title: 'Hello', file_name: 'hello.rb', description: 'Says hello', author: basicUser(m.users.reporter.user),
        updated_at: new Date(row.updated_at).toISOString(), created_at: new Date(row.created_at).toISOString(),
        project_id: m.project.id, web_url: webUrl, raw_url: `${webUrl}/raw`,
      })
      assert.deepEqual([row.content, row.visibility_level], ['puts "hello"\n', 10])
    })

    it('takes `content` where `code` is missing, and form-encoded bodies', async () => {
      const { code: _code, ...rest } = valid
      const res = await t.api('POST', base, { body: { ...rest, content: 'by content' } })
      assert.equal(res.status, 201, res.text)
      assert.equal((await t.api('GET', `${base}/${res.body.id}/raw`)).text, 'by content')
      const form = await t.api('POST', base, { form: 'title=T&file_name=f.txt&code=abc&visibility=private' })
      assert.equal(form.status, 201, form.text)
    })

    it('gives a snippet created without a visibility the default_snippet_visibility setting', async () => {
      const { visibility: _visibility, ...noVisibility } = valid
      const levelOf = async (res: { status: number; text: string; body: { id: number } }) => {
        assert.equal(res.status, 201, res.text)
        return (await t.ctx.db.selectFrom('snippets').select('visibility_level').where('id', '=', res.body.id).executeTakeFirstOrThrow()).visibility_level
      }
      assert.equal(await levelOf(await t.api('POST', base, { body: noVisibility })), 0)
      const setDefault = async (visibility: string) => {
        const res = await t.api('PUT', '/application/settings', { body: { default_snippet_visibility: visibility } })
        assert.equal(res.status, 200, res.text)
      }
      try {
        await setDefault('public')
        const created = await t.api('POST', base, { body: noVisibility })
        assert.equal(await levelOf(created), 20)
        // A visibility given is kept, whatever the default.
        assert.equal(await levelOf(await t.api('POST', base, { body: { ...valid, visibility: 'private' } })), 0)
        await setDefault('internal')
        assert.equal(await levelOf(await t.api('POST', base, { form: 'title=T&file_name=f.txt&code=abc' })), 10)
      } finally {
        await setDefault('private')
      }
    })

    it('refuses bad input with 400', async () => {
      const { code: _code, ...noCode } = valid
      const cases: [unknown, unknown][] = [
        [noCode, { error: 'code is missing' }],
        [{ ...valid, visibility: 'secret' }, { error: 'visibility is invalid' }],
        [{ ...valid, title: undefined }, { error: 'title is missing' }],
        [{ ...valid, title: ' ' }, { message: { title: ['can\'t be blank'] } }],
        [{ ...valid, title: 'x'.repeat(256) }, { message: { title: ['is too long (maximum is 255 characters)'] } }],
        [{ ...valid, code: '' }, { message: { content: ['can\'t be blank'] } }],
      ]
      for (const [body, expected] of cases) {
        const res = await t.api('POST', base, { body })
        assert.deepEqual([res.status, res.body], [400, expected], JSON.stringify(body))
      }
    })

    it('is for Reporters and up (403 below), 404 for those who cannot see the project, 401 anonymous', async () => {
      await expectStatuses(m, (token) => t.api('POST', base, { token, body: valid }), {
        anonymous: 401, nonMember: 404, external: 404, guest: 403, reporter: 201, developer: 201, maintainer: 201,
        owner: 201, admin: 201, blocked: 403,
      })
    })

    it('is refused on archived projects and where snippets are disabled (403)', async () => {
      const owner = await makeUser(t)
      const project = await makeProject(t, owner)
      await setProjectColumns(t, project.id, { archived: 1 })
      assert.equal((await t.api('POST', `/projects/${project.id}/snippets`, { token: owner.token, body: valid })).status, 403)
      const disabled = await makeProject(t, owner, { snippets_enabled: false })
      assert.equal((await t.api('POST', `/projects/${disabled.id}/snippets`, { token: owner.token, body: valid })).status, 403)
    })
  })

  describe('reading', () => {
    let project: ProjectRow
    let owner: TestUser
    let guest: TestUser
    let outsider: TestUser
    let external: TestUser
    const snippet: Record<'private' | 'internal' | 'public' | 'outsiders', number> = { private: 0, internal: 0, public: 0, outsiders: 0 }

    before(async () => {
      owner = await makeUser(t)
      guest = await makeUser(t)
      outsider = await makeUser(t)
      external = await makeUser(t, { external: true })
      project = await makeProject(t, owner, { visibility: 'public' })
      await makeMember(t, { type: 'project', id: project.id }, guest, GUEST)
      snippet.private = (await makeSnippet(t, project, owner, { visibility: 'private', content: 'private\n' })).id
      snippet.internal = (await makeSnippet(t, project, owner, { visibility: 'internal' })).id
      snippet.public = (await makeSnippet(t, project, owner, { visibility: 'public' })).id
      // A private snippet by someone who is no longer a member: its author still sees it.
      snippet.outsiders = (await makeSnippet(t, project, outsider, { visibility: 'private' })).id
    })

    const listIds = async (token: string | null) => {
      const res = await t.api('GET', `/projects/${project.id}/snippets`, { token })
      assert.equal(res.status, 200, res.text)
      return (res.body as { id: number }[]).map((s) => s.id)
    }

    it('lists the snippets each caller may see, newest first', async () => {
      assert.deepEqual(await listIds(owner.token), [snippet.outsiders, snippet.public, snippet.internal, snippet.private])
      assert.deepEqual(await listIds(guest.token), [snippet.outsiders, snippet.public, snippet.internal, snippet.private])
      assert.deepEqual(await listIds(t.root.token), [snippet.outsiders, snippet.public, snippet.internal, snippet.private])
      assert.deepEqual(await listIds(outsider.token), [snippet.outsiders, snippet.public, snippet.internal])
      assert.deepEqual(await listIds(external.token), [snippet.public])
      assert.equal((await t.api('GET', `/projects/${project.id}/snippets`, { token: null })).status, 401)
    })

    it('gets a snippet the caller may see, 404 otherwise', async () => {
      const get = (id: number, token: string) => t.api('GET', `/projects/${project.id}/snippets/${id}`, { token })
      assert.equal((await get(snippet.private, guest.token)).status, 200)
      assert.deepEqual((await get(snippet.private, outsider.token)).body, { message: '404 Snippet Not Found' })
      assert.equal((await get(snippet.internal, external.token)).status, 404)
      assert.equal((await get(snippet.outsiders, outsider.token)).status, 200)
      assert.equal((await get(99999999999, owner.token)).status, 404)
      assert.deepEqual((await t.api('GET', `/projects/${project.id}/snippets/abc`, { token: owner.token })).body, { error: 'snippet_id is invalid' })
      const other = await makeProject(t, owner, { visibility: 'public' })
      assert.equal((await t.api('GET', `/projects/${other.id}/snippets/${snippet.public}`, { token: owner.token })).status, 404)
    })

    it('serves the raw content as text/plain', async () => {
      const res = await t.api('GET', `/projects/${project.id}/snippets/${snippet.private}/raw`, { token: guest.token })
      assert.equal(res.status, 200)
      assert.equal(res.text, 'private\n')
      assert.match(String(res.headers['content-type']), /^text\/plain/)
      assert.equal((await t.api('GET', `/projects/${project.id}/snippets/${snippet.private}/raw`, { token: outsider.token })).status, 404)
    })

    it('hides every snippet where snippets are disabled', async () => {
      const disabled = await makeProject(t, owner, { visibility: 'public', snippets_enabled: false })
      const hidden = await makeSnippet(t, disabled, owner, { visibility: 'public' })
      const list = await t.api('GET', `/projects/${disabled.id}/snippets`, { token: outsider.token })
      assert.deepEqual([list.status, list.body, list.headers['x-total']], [200, [], '0'])
      assert.equal((await t.api('GET', `/projects/${disabled.id}/snippets/${hidden.id}`, { token: owner.token })).status, 404)
    })

    it('paginates', async () => {
      await expectPaginates({ t, path: `/projects/${project.id}/snippets`, token: owner.token, total: 4 })
      await expectRejectsBadPagination(t, `/projects/${project.id}/snippets`, owner.token)
    })

    it('answers 404 for a private project to those who cannot see it', async () => {
      await makeSnippet(t, m.project, m.users.owner, { visibility: 'public' })
      await expectStatuses(m, (token) => t.api('GET', base, { token }), {
        anonymous: 401, nonMember: 404, external: 404, guest: 200, reporter: 200, admin: 200, blocked: 403,
      })
    })
  })

  describe('PUT and DELETE /projects/:id/snippets/:snippet_id', () => {
    it('updates as the author or a Maintainer', async () => {
      const id = (await t.api('POST', base, { token: m.users.developer.token, body: valid })).body.id
      const put = (body: unknown, token: string | null = m.users.developer.token) => t.api('PUT', `${base}/${id}`, { token, body })
      const res = await put({ title: 'Renamed', content: 'new content', visibility: 'private', description: 'd2' })
      assert.equal(res.status, 200, res.text)
      assert.deepEqual([res.body.title, res.body.file_name, res.body.description], ['Renamed', 'hello.rb', 'd2'])
      const row = await t.ctx.db.selectFrom('snippets').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
      assert.deepEqual([row.content, row.visibility_level], ['new content', 0])
      await expectStatuses(m, (token) => put({ file_name: 'x.rb' }, token), {
        anonymous: 401, nonMember: 404, guest: 403, reporter: 403, developer: 200, maintainer: 200, admin: 200,
      })
      assert.deepEqual((await put({})).body, { error: 'title, file_name, code, description, visibility are missing, at least one parameter must be provided' })
      assert.deepEqual((await put({ title: '' })).body, { message: { title: ['can\'t be blank'] } })
      assert.deepEqual((await put({ visibility: 'everyone' })).body, { error: 'visibility is invalid' })
      assert.equal((await t.api('PUT', `${base}/99999`, { body: { title: 'x' } })).status, 404)
    })

    it('deletes as the author or a Maintainer, with the snippet\'s notes and awards', async () => {
      const id = (await t.api('POST', base, { token: m.users.developer.token, body: valid })).body.id
      const note = await t.api('POST', `${base}/${id}/notes`, { body: { body: 'nice' } })
      await t.api('POST', `${base}/${id}/award_emoji`, { body: { name: 'tada' } })
      await t.api('POST', `${base}/${id}/notes/${note.body.id}/award_emoji`, { token: m.users.developer.token, body: { name: 'heart' } })
      await expectStatuses(m, (token) => t.api('DELETE', `${base}/${id}`, { token }), {
        anonymous: 401, nonMember: 404, reporter: 403,
      })
      assert.equal((await t.api('DELETE', `${base}/${id}`, { headers: { 'if-unmodified-since': 'Thu, 01 Jan 2015 00:00:00 GMT' } })).status, 412)
      const res = await t.api('DELETE', `${base}/${id}`, { token: m.users.maintainer.token })
      assert.equal(res.status, 204)
      assert.equal((await t.api('GET', `${base}/${id}`)).status, 404)
      const notes = await t.ctx.db.selectFrom('notes').select('id').where('noteable_type', '=', 'Snippet').where('noteable_id', '=', id).execute()
      const awards = await t.ctx.db.selectFrom('award_emoji').select('id')
        .where((eb) => eb.or([eb('awardable_id', '=', id), eb('awardable_id', '=', note.body.id)])).execute()
      assert.deepEqual([notes, awards], [[], []])
      assert.equal((await t.api('DELETE', `${base}/${id}`)).status, 404)
    })
  })
})
