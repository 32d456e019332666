// Tags and releases (spec: Tags and releases): list (`order_by` name|updated, `sort`, paginated),
// get, create lightweight or annotated (with `release_description`), delete, and a tag's release
// (POST 201 then 409, PUT) — exact fields (`target` the tag object of an annotated tag, the commit
// of a lightweight one), who may do what, the protected tag rules, bad input, and the `pushed`
// events of tag writes.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeProject, makeUser } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import { expectPaginates, expectRejectsBadPagination } from '../shared/pagination.js'
import { expectStatuses, makeMatrix, type Matrix } from '../shared/permission-matrix.js'
import { MAINTAINER } from '../../src/policies/access-levels.js'
import { NULL_OID, type GitRepository } from '../../src/git/repository.js'

const TAG_FIELDS = ['commit', 'message', 'name', 'release', 'target']
const COMMIT_FIELDS = [
  'author_email', 'author_name', 'authored_date', 'committed_date', 'committer_email', 'committer_name', 'created_at', 'id',
  'message', 'parent_ids', 'short_id', 'title',
]
const keysOf = (value: object) => Object.keys(value).sort()
const namesOf = (body: { name: string }[]) => body.map((tag) => tag.name)

/** A commit on an empty tree, committed at `date`, so tags can be ordered by their commits' dates. */
async function commitAt(repo: GitRepository, parent: string | null, date: string, message: string): Promise<string> {
  const tree = (await repo.run(['mktree'], { input: '' })).trim()
  const identity = { GIT_AUTHOR_NAME: 'Ada', GIT_AUTHOR_EMAIL: 'ada@example.com', GIT_COMMITTER_NAME: 'Ada', GIT_COMMITTER_EMAIL: 'ada@example.com' }
  const env = { ...identity, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date }
  return (await repo.run(['commit-tree', tree, ...(parent === null ? [] : ['-p', parent]), '-m', message], { env })).trim()
}

/** An annotated tag object written straight into the repository. */
async function annotatedTag(repo: GitRepository, name: string, commit: string, message: string): Promise<string> {
  const object = `object ${commit}\ntype commit\ntag ${name}\ntagger Ada <ada@example.com> 1600000000 +0000\n\n${message}\n`
  const id = (await repo.run(['mktag'], { input: object })).trim()
  assert.ok(await repo.compareAndSwapRef(`refs/tags/${name}`, id, NULL_OID))
  return id
}

describe('Tags API', () => {
  let t: TestApp
  let m: Matrix
  let repo: GitRepository
  let base: string
  /** master: old (2020) → mid (2021) → new (2022). */
  const sha = { old: '', mid: '', new: '', annotation: '' }

  const tagRef = (name: string) => repo.info(`refs/tags/${name}`)
  const releaseOf = (tag: string) => t.ctx.db.selectFrom('releases').selectAll()
    .where('project_id', '=', m.project.id).where('tag', '=', tag).executeTakeFirst()

  before(async () => {
    t = await buildTestApp()
    m = await makeMatrix(t, 'private')
    await t.ctx.db.updateTable('projects').set({ default_branch: 'master' }).where('id', '=', m.project.id).execute()
    repo = t.ctx.repositories.open(m.project.id)
    base = `/projects/${m.project.id}/repository`
    sha.old = await commitAt(repo, null, '2020-01-01T00:00:00Z', 'Old')
    sha.mid = await commitAt(repo, sha.old, '2021-01-01T00:00:00Z', 'Mid')
    sha.new = await commitAt(repo, sha.mid, '2022-01-01T00:00:00Z', 'New\n\nWith a body.')
    assert.ok(await repo.compareAndSwapRef('refs/heads/master', sha.new, NULL_OID))
    assert.ok(await repo.compareAndSwapRef('refs/tags/v1.2', sha.new, NULL_OID))
    assert.ok(await repo.compareAndSwapRef('refs/tags/release/2', sha.mid, NULL_OID))
    sha.annotation = await annotatedTag(repo, 'v1.10', sha.old, 'Version 1.10\n\nNotes.')
  })
  after(async () => { await t.close() })

  describe('GET /projects/:id/repository/tags', () => {
    it('lists the tags with exactly the fields of the spec: target and message by kind, release or null', async () => {
      const res = await t.api('GET', `${base}/tags`, { token: m.tokens.reporter })
      assert.equal(res.status, 200, res.text)
      assert.deepEqual(namesOf(res.body), ['v1.2', 'release/2', 'v1.10'])
      for (const tag of res.body) {
        assert.deepEqual(keysOf(tag), TAG_FIELDS)
        assert.deepEqual(keysOf(tag.commit), COMMIT_FIELDS)
      }
      const [light, , annotated] = res.body
      assert.equal(light.message, null)
      assert.equal(light.target, sha.new)
      assert.equal(light.commit.id, sha.new)
      assert.equal(light.commit.title, 'New')
      assert.equal(light.release, null)
      assert.equal(annotated.message, 'Version 1.10\n\nNotes.')
      assert.equal(annotated.target, sha.annotation)
      assert.notEqual(annotated.target, sha.old)
      assert.equal(annotated.commit.id, sha.old)
    })

    it('orders by the date of the tagged commit (default, newest first) or by name in version order', async () => {
      const order = async (query: Record<string, string>) =>
        namesOf((await t.api('GET', `${base}/tags`, { token: m.tokens.reporter, query })).body)
      assert.deepEqual(await order({ order_by: 'updated', sort: 'desc' }), ['v1.2', 'release/2', 'v1.10'])
      assert.deepEqual(await order({ sort: 'asc' }), ['v1.10', 'release/2', 'v1.2'])
      assert.deepEqual(await order({ order_by: 'name', sort: 'asc' }), ['release/2', 'v1.2', 'v1.10'])
      assert.deepEqual(await order({ order_by: 'name' }), ['v1.10', 'v1.2', 'release/2'])
    })

    it('refuses unknown orders and paginates', async () => {
      for (const [param, value] of [['order_by', 'size'], ['sort', 'up']]) {
        const res = await t.api('GET', `${base}/tags`, { token: m.tokens.reporter, query: { [param as string]: value as string } })
        assert.equal(res.status, 400)
        assert.deepEqual(res.body, { error: `${param} is invalid` })
      }
      const page = await expectPaginates({ t, path: `${base}/tags?order_by=name&sort=asc`, token: m.tokens.reporter, total: 3 })
      assert.deepEqual(namesOf(page.body), ['v1.2'])
      await expectRejectsBadPagination(t, `${base}/tags`, m.tokens.reporter)
    })

    it('lets everyone who may read the code see them', async () => {
      await expectStatuses(m, (token) => t.api('GET', `${base}/tags`, { token }), {
        anonymous: 404, nonMember: 404, guest: 403, reporter: 200, developer: 200, admin: 200, external: 404,
      })
      const owner = await makeUser(t)
      const project = await makeProject(t, owner, { visibility: 'public' })
      await commitFiles(t, project.id, { a: 'a' })
      const open = await t.api('GET', `/projects/${project.id}/repository/tags`, { token: null })
      assert.equal(open.status, 200, open.text)
      assert.deepEqual(open.body, [])
    })
  })

  describe('GET /projects/:id/repository/tags/:tag_name', () => {
    it('shows one tag, its name URL-encoded', async () => {
      const res = await t.api('GET', `${base}/tags/${encodeURIComponent('release/2')}`, { token: m.tokens.reporter })
      assert.equal(res.status, 200, res.text)
      assert.deepEqual(keysOf(res.body), TAG_FIELDS)
      assert.equal(res.body.name, 'release/2')
      assert.equal(res.body.target, sha.mid)
      assert.equal(res.body.message, null)
      assert.equal(res.body.commit.id, sha.mid)
      const annotated = await t.api('GET', `${base}/tags/v1.10`, { token: m.tokens.reporter })
      assert.equal(annotated.body.target, sha.annotation)
      assert.equal(annotated.body.message, 'Version 1.10\n\nNotes.')
      assert.equal(annotated.body.commit.id, sha.old)
    })

    it('answers 404 for an unknown tag or a name no tag can have', async () => {
      for (const name of ['nope', '-x', 'a..b', 'HEAD']) {
        const res = await t.api('GET', `${base}/tags/${encodeURIComponent(name)}`, { token: m.tokens.reporter })
        assert.equal(res.status, 404, name)
        assert.deepEqual(res.body, { message: '404 Tag Not Found' })
      }
      await expectStatuses(m, (token) => t.api('GET', `${base}/tags/v1.2`, { token }), {
        anonymous: 404, nonMember: 404, guest: 403, reporter: 200,
      })
    })
  })

  describe('POST /projects/:id/repository/tags', () => {
    it('creates a lightweight tag at a branch (201) as a push: a pushed event of a tag', async () => {
      const res = await t.api('POST', `${base}/tags`, { token: m.tokens.developer, body: { tag_name: 'light', ref: 'master' } })
      assert.equal(res.status, 201, res.text)
      assert.deepEqual(keysOf(res.body), TAG_FIELDS)
      assert.equal(res.body.name, 'light')
      assert.equal(res.body.message, null)
      assert.equal(res.body.target, sha.new)
      assert.equal(res.body.commit.id, sha.new)
      assert.equal(res.body.release, null)
      assert.equal((await tagRef('light'))?.oid, sha.new)
      const events = await t.api('GET', `/projects/${m.project.id}/events`, { token: m.tokens.developer, query: { action: 'pushed' } })
      const push = events.body.find((e: { push_data: { ref: string } }) => e.push_data.ref === 'light')
      assert.deepEqual({ ...push.push_data, commit_title: undefined }, {
        commit_count: 1, action: 'created', ref_type: 'tag', commit_from: null, commit_to: sha.new, ref: 'light', commit_title: undefined,
      })
    })

    it('creates an annotated tag with the caller as tagger, and its release', async () => {
      const res = await t.api('POST', `${base}/tags`, {
        token: m.tokens.developer,
        body: { tag_name: 'annotated/1', ref: sha.mid, message: '  Hello there\n\n', release_description: 'Notes *here*' },
      })
      assert.equal(res.status, 201, res.text)
      assert.equal(res.body.message, 'Hello there')
      assert.equal(res.body.commit.id, sha.mid)
      assert.notEqual(res.body.target, sha.mid)
      assert.deepEqual(res.body.release, { tag_name: 'annotated/1', description: 'Notes *here*' })
      const object = await repo.read(res.body.target)
      assert.equal(object?.type, 'tag')
      const { name, email } = m.users.developer.user
      assert.match(object!.data.toString(), new RegExp(`^object ${sha.mid}\ntype commit\ntag annotated/1\ntagger ${name} <${email}> \\d+ \\+0000\n\nHello there\n$`))
    })

    it('makes a blank message a lightweight tag, and peels a tag given as ref', async () => {
      const res = await t.api('POST', `${base}/tags`, { token: m.tokens.developer, body: { tag_name: 'blank', ref: 'v1.10', message: '  ' } })
      assert.equal(res.status, 201, res.text)
      assert.equal(res.body.message, null)
      assert.equal(res.body.target, sha.old)
      assert.equal(res.body.commit.id, sha.old)
    })

    it('refuses an existing tag, an invalid name and an unknown ref with the original sentences (405)', async () => {
      const cases: [Record<string, string>, string][] = [
        [{ tag_name: 'v1.2', ref: 'master' }, 'Tag v1.2 already exists'],
        [{ tag_name: 'fresh', ref: 'nope' }, 'Target nope is invalid'],
        [{ tag_name: 'fresh', ref: 'master..v1.2' }, 'Target master..v1.2 is invalid'],
        [{ tag_name: 'fresh', ref: '--all' }, 'Target --all is invalid'],
      ]
      for (const name of ['-x', 'a..b', 'HEAD', 'a b', 'x.lock', 'refs/heads/x', '']) cases.push([{ tag_name: name, ref: 'master' }, 'Tag name invalid'])
      for (const [body, message] of cases) {
        const res = await t.api('POST', `${base}/tags`, { token: m.tokens.developer, body })
        assert.equal(res.status, 405, JSON.stringify(body))
        assert.deepEqual(res.body, { message }, JSON.stringify(body))
      }
      assert.equal(await tagRef('fresh'), null)
      const missing = await t.api('POST', `${base}/tags`, { token: m.tokens.developer, body: { tag_name: 'fresh' } })
      assert.equal(missing.status, 400)
      assert.deepEqual(missing.body, { error: 'ref is missing' })
    })

    it('applies the protected tag rules: a Developer may not create a tag only Maintainers may', async () => {
      const now = Date.now()
      await t.ctx.db.insertInto('protected_tags')
        .values({ project_id: m.project.id, name: 'locked-*', create_access_level: MAINTAINER, created_at: now, updated_at: now }).execute()
      const refused = await t.api('POST', `${base}/tags`, { token: m.tokens.developer, body: { tag_name: 'locked-1', ref: 'master' } })
      assert.equal(refused.status, 405)
      assert.deepEqual(refused.body, { message: 'You are not allowed to create this tag as it is protected.' })
      assert.equal(await tagRef('locked-1'), null)
      const allowed = await t.api('POST', `${base}/tags`, { token: m.tokens.maintainer, body: { tag_name: 'locked-1', ref: 'master' } })
      assert.equal(allowed.status, 201, allowed.text)
    })

    it('lets Developers and up create tags: 401 anonymous, 403 below', async () => {
      let n = 0
      await expectStatuses(m, (token) => t.api('POST', `${base}/tags`, { token, body: { tag_name: `who-${n += 1}`, ref: 'master' } }), {
        anonymous: 401, nonMember: 404, guest: 403, reporter: 403, developer: 201, maintainer: 201, admin: 201,
      })
    })
  })

  describe('DELETE /projects/:id/repository/tags/:tag_name', () => {
    it('deletes a tag and its release (204), as a push that removes it', async () => {
      await t.api('POST', `${base}/tags`, { token: m.tokens.developer, body: { tag_name: 'gone/1', ref: 'master', message: 'x', release_description: 'r' } })
      assert.notEqual(await releaseOf('gone/1'), undefined)
      const res = await t.api('DELETE', `${base}/tags/${encodeURIComponent('gone/1')}`, { token: m.tokens.developer })
      assert.equal(res.status, 204, res.text)
      assert.equal(await tagRef('gone/1'), null)
      assert.equal(await releaseOf('gone/1'), undefined)
      const events = await t.api('GET', `/projects/${m.project.id}/events`, { token: m.tokens.developer, query: { action: 'pushed' } })
      assert.ok(events.body.some((e: { push_data: { ref: string; action: string } }) => e.push_data.ref === 'gone/1' && e.push_data.action === 'removed'))
    })

    it('keeps a protected tag from Developers (400 with the push rule sentence)', async () => {
      await t.api('POST', `${base}/tags`, { token: m.tokens.maintainer, body: { tag_name: 'locked-2', ref: 'master' } })
      const refused = await t.api('DELETE', `${base}/tags/locked-2`, { token: m.tokens.developer })
      assert.equal(refused.status, 400)
      assert.match(refused.body.message, /protected tag/)
      assert.notEqual(await tagRef('locked-2'), null)
      const allowed = await t.api('DELETE', `${base}/tags/locked-2`, { token: m.tokens.maintainer })
      assert.equal(allowed.status, 204, allowed.text)
    })

    it('answers 404 for an unknown tag; 401 anonymous, 403 below Developer', async () => {
      const res = await t.api('DELETE', `${base}/tags/nope`, { token: m.tokens.developer })
      assert.equal(res.status, 404)
      assert.deepEqual(res.body, { message: '404 Tag Not Found' })
      await expectStatuses(m, (token) => t.api('DELETE', `${base}/tags/v1.2`, { token }), {
        anonymous: 401, nonMember: 404, guest: 403, reporter: 403,
      })
      assert.notEqual(await tagRef('v1.2'), null)
    })
  })

  describe('POST and PUT /projects/:id/repository/tags/:tag_name/release', () => {
    it('adds a release (201), refuses a second (409) and replaces its description with PUT', async () => {
      const path = `${base}/tags/${encodeURIComponent('release/2')}/release`
      const created = await t.api('POST', path, { token: m.tokens.developer, body: { description: 'First notes' } })
      assert.equal(created.status, 201, created.text)
      assert.deepEqual(created.body, { tag_name: 'release/2', description: 'First notes' })
      const again = await t.api('POST', path, { token: m.tokens.developer, body: { description: 'Other' } })
      assert.equal(again.status, 409)
      assert.deepEqual(again.body, { message: 'Release already exists' })
      const updated = await t.api('PUT', path, { token: m.tokens.developer, body: { description: 'Better notes' } })
      assert.equal(updated.status, 200, updated.text)
      assert.deepEqual(updated.body, { tag_name: 'release/2', description: 'Better notes' })
      const tag = await t.api('GET', `${base}/tags/${encodeURIComponent('release/2')}`, { token: m.tokens.reporter })
      assert.deepEqual(tag.body.release, { tag_name: 'release/2', description: 'Better notes' })
    })

    it('answers 404 for an unknown tag or a missing release, 400 without a description', async () => {
      for (const method of ['POST', 'PUT']) {
        const res = await t.api(method, `${base}/tags/nope/release`, { token: m.tokens.developer, body: { description: 'x' } })
        assert.equal(res.status, 404)
        assert.deepEqual(res.body, { message: 'Tag does not exist' })
        const missing = await t.api(method, `${base}/tags/v1.2/release`, { token: m.tokens.developer, body: {} })
        assert.equal(missing.status, 400)
        assert.deepEqual(missing.body, { error: 'description is missing' })
      }
      const none = await t.api('PUT', `${base}/tags/v1.2/release`, { token: m.tokens.developer, body: { description: 'x' } })
      assert.equal(none.status, 404)
      assert.deepEqual(none.body, { message: 'Release does not exist' })
    })

    it('lets Developers and up write releases: 401 anonymous, 403 below', async () => {
      for (const method of ['POST', 'PUT']) {
        await expectStatuses(m, (token) => t.api(method, `${base}/tags/v1.10/release`, { token, body: { description: 'x' } }), {
          anonymous: 401, nonMember: 404, guest: 403, reporter: 403,
        })
      }
      assert.equal(await releaseOf('v1.10'), undefined)
    })
  })
})
