// Branches (spec: Branches): list (sorted by name, `search`, paginated), get and HEAD, create from a
// branch or SHA, delete (the push rules' sentences for the default and protected branches), delete
// of merged branches, and the deprecated protect/unprotect — exact fields, the caller-computed
// `can_push`, who may do what, bad input, and that every write moves the ref as a push would
// (`pushed` events).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, countQueries, type TestApp } from '../helpers/app.js'
import { makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import { expectPaginates, expectRejectsBadPagination } from '../shared/pagination.js'
import { expectStatuses, makeMatrix, type Matrix } from '../shared/permission-matrix.js'
import { DEVELOPER, MAINTAINER } from '../../src/policies/access-levels.js'
import type { ProjectRow } from '../../src/db/schema.js'
import { NULL_OID } from '../../src/git/repository.js'

const BRANCH_FIELDS = [
  'can_push', 'commit', 'default', 'developers_can_merge', 'developers_can_push', 'merged', 'name', 'protected',
]
const COMMIT_FIELDS = [
  'author_email', 'author_name', 'authored_date', 'committed_date', 'committer_email', 'committer_name', 'created_at', 'id',
  'message', 'parent_ids', 'short_id', 'title',
]
const keysOf = (value: object) => Object.keys(value).sort()

/** A project whose default branch is master: first → second on master, and branches around it. */
interface Repo {
  project: ProjectRow
  base: string
  sha: { first: string; second: string; feature: string }
}

async function setDefaultBranch(t: TestApp, projectId: number, branch: string): Promise<void> {
  await t.ctx.db.updateTable('projects').set({ default_branch: branch }).where('id', '=', projectId).execute()
}

async function protect(t: TestApp, projectId: number, name: string, push = MAINTAINER, merge = MAINTAINER): Promise<void> {
  const now = Date.now()
  await t.ctx.db.insertInto('protected_branches')
    .values({ project_id: projectId, name, push_access_level: push, merge_access_level: merge, created_at: now, updated_at: now })
    .execute()
}

/**
 * master: first → second (default, protected for Maintainers); `merged` at first; `same-tip` at
 * second; `feature/x` with a commit of its own off first; `release-1` at first under `release-*`.
 */
async function fillRepository(t: TestApp, project: ProjectRow): Promise<Repo> {
  const first = await commitFiles(t, project.id, { 'README.md': 'one\n' }, { message: 'First\n\nThe body.\n' })
  const second = await commitFiles(t, project.id, { 'README.md': 'two\n' }, { message: 'Second' })
  const repo = t.ctx.repositories.open(project.id)
  for (const [name, id] of [['merged', first], ['same-tip', second], ['release-1', first]] as const) {
    assert.ok(await repo.compareAndSwapRef(`refs/heads/${name}`, id, NULL_OID))
  }
  const feature = await commitFiles(t, project.id, { 'feature.txt': 'x\n' }, { branch: 'feature/x', parent: first, message: 'Feature' })
  await setDefaultBranch(t, project.id, 'master')
  await protect(t, project.id, 'master')
  await protect(t, project.id, 'release-*', DEVELOPER, MAINTAINER)
  return { project, base: `/projects/${project.id}/repository`, sha: { first, second, feature } }
}

describe('Branches API', () => {
  let t: TestApp
  let m: Matrix
  let r: Repo

  before(async () => {
    t = await buildTestApp()
    m = await makeMatrix(t, 'private')
    r = await fillRepository(t, m.project)
  })
  after(async () => { await t.close() })

  const branchRef = (name: string) => t.ctx.repositories.open(r.project.id).info(`refs/heads/${name}`)

  describe('GET /projects/:id/repository/branches', () => {
    it('lists every branch sorted by name, each with exactly the fields of the spec', async () => {
      const res = await t.api('GET', `${r.base}/branches`, { token: m.tokens.developer })
      assert.equal(res.status, 200, res.text)
      assert.deepEqual(res.body.map((b: { name: string }) => b.name), ['feature/x', 'master', 'merged', 'release-1', 'same-tip'])
      for (const branch of res.body) {
        assert.deepEqual(keysOf(branch), BRANCH_FIELDS)
        assert.deepEqual(keysOf(branch.commit), COMMIT_FIELDS)
      }
      const byName = Object.fromEntries(res.body.map((b: { name: string }) => [b.name, b]))
      const flags = (name: string) => {
        const { commit: _commit, name: _name, ...rest } = byName[name]
        return rest
      }
      assert.deepEqual(flags('master'), {
        merged: false, protected: true, default: true, developers_can_push: false, developers_can_merge: false, can_push: false,
      })
      assert.deepEqual(flags('merged'), {
        merged: true, protected: false, default: false, developers_can_push: false, developers_can_merge: false, can_push: true,
      })
      // At the default branch's tip: not counted as merged, as the original.
      assert.equal(byName['same-tip'].merged, false)
      assert.equal(byName['feature/x'].merged, false)
      assert.deepEqual(flags('release-1'), {
        merged: true, protected: true, default: false, developers_can_push: true, developers_can_merge: false, can_push: true,
      })
      assert.equal(byName.master.commit.id, r.sha.second)
      assert.equal(byName.master.commit.short_id, r.sha.second.slice(0, 8))
      assert.equal(byName.master.commit.title, 'Second')
      assert.deepEqual(byName.master.commit.parent_ids, [r.sha.first])
      assert.equal(byName.merged.commit.message, 'First\n\nThe body.\n')
    })

    it('computes can_push for the caller', async () => {
      const canPush = async (token: string | null) => {
        const res = await t.api('GET', `${r.base}/branches`, { token })
        return Object.fromEntries(res.body.map((b: { name: string; can_push: boolean }) => [b.name, b.can_push]))
      }
      assert.deepEqual(await canPush(m.tokens.reporter), {
        'feature/x': false, master: false, merged: false, 'release-1': false, 'same-tip': false,
      })
      assert.deepEqual(await canPush(m.tokens.maintainer), {
        'feature/x': true, master: true, merged: true, 'release-1': true, 'same-tip': true,
      })
      assert.deepEqual(await canPush(m.tokens.admin), {
        'feature/x': true, master: true, merged: true, 'release-1': true, 'same-tip': true,
      })
    })

    it('filters by a case-insensitive part of the name with search', async () => {
      const res = await t.api('GET', `${r.base}/branches`, { token: m.tokens.reporter, query: { search: 'E-' } })
      assert.deepEqual(res.body.map((b: { name: string }) => b.name), ['release-1', 'same-tip'])
      assert.equal(res.headers['x-total'], '2')
      const none = await t.api('GET', `${r.base}/branches`, { token: m.tokens.reporter, query: { search: 'nothing' } })
      assert.deepEqual(none.body, [])
    })

    it('paginates', async () => {
      const res = await expectPaginates({ t, path: `${r.base}/branches`, token: m.tokens.reporter, total: 5 })
      assert.deepEqual(res.body.map((b: { name: string }) => b.name), ['master'])
      await expectRejectsBadPagination(t, `${r.base}/branches`, m.tokens.reporter)
    })

    it('lets everyone who may read the code see them: 404 for outsiders of a private project, 403 for its guests', async () => {
      await expectStatuses(m, (token) => t.api('GET', `${r.base}/branches`, { token }), {
        anonymous: 404, nonMember: 404, guest: 403, reporter: 200, developer: 200, maintainer: 200, owner: 200, admin: 200,
        external: 404, blocked: 403,
      })
      const res = await t.api('GET', `${r.base}/branches`, { token: m.tokens.nonMember })
      assert.deepEqual(res.body, { message: '404 Project Not Found' })
    })

    it('answers anonymous callers of a public project, and an empty repository with an empty list', async () => {
      const owner = await makeUser(t)
      const project = await makeProject(t, owner, { visibility: 'public' })
      const empty = await t.api('GET', `/projects/${project.id}/repository/branches`, { token: null })
      assert.equal(empty.status, 200, empty.text)
      assert.deepEqual(empty.body, [])
      await commitFiles(t, project.id, { a: 'a' })
      const res = await t.api('GET', `/projects/${project.id}/repository/branches`, { token: null })
      assert.deepEqual(res.body.map((b: { name: string; can_push: boolean }) => [b.name, b.can_push]), [['master', false]])
    })

    it('costs the same number of queries for 3 branches as for 30', async () => {
      const owner = await makeUser(t)
      const project = await makeProject(t, owner, { default_branch: 'master' })
      const tip = await commitFiles(t, project.id, { a: 'a' })
      const repo = t.ctx.repositories.open(project.id)
      const list = () => t.api('GET', `/projects/${project.id}/repository/branches`, { token: owner.token, query: { per_page: 100 } })
      for (let i = 0; i < 2; i += 1) await repo.run(['update-ref', `refs/heads/b${i}`, tip])
      const few = await countQueries(t, list)
      assert.equal(few.result.body.length, 3)
      for (let i = 2; i < 29; i += 1) await repo.run(['update-ref', `refs/heads/b${i}`, tip])
      const many = await countQueries(t, list)
      assert.equal(many.result.body.length, 30)
      assert.equal(many.queries, few.queries)
    })
  })

  describe('GET and HEAD /projects/:id/repository/branches/:branch', () => {
    it('shows one branch, its name URL-encoded', async () => {
      const res = await t.api('GET', `${r.base}/branches/${encodeURIComponent('feature/x')}`, { token: m.tokens.developer })
      assert.equal(res.status, 200, res.text)
      assert.deepEqual(keysOf(res.body), BRANCH_FIELDS)
      const { commit, ...rest } = res.body
      assert.deepEqual(rest, {
        name: 'feature/x', merged: false, protected: false, default: false, developers_can_push: false,
        developers_can_merge: false, can_push: true,
      })
      assert.equal(commit.id, r.sha.feature)
      assert.equal(commit.title, 'Feature')
      const master = await t.api('GET', `${r.base}/branches/master`, { token: m.tokens.developer })
      assert.equal(master.body.default, true)
      assert.equal(master.body.protected, true)
      assert.equal(master.body.can_push, false)
    })

    it('answers 404 for an unknown branch and 400 for a name no branch can have', async () => {
      const unknown = await t.api('GET', `${r.base}/branches/nope`, { token: m.tokens.developer })
      assert.equal(unknown.status, 404)
      assert.deepEqual(unknown.body, { message: '404 Branch Not Found' })
      for (const name of ['-x', 'a..b', 'HEAD', 'refs/heads/master', 'a b', 'x.lock']) {
        const res = await t.api('GET', `${r.base}/branches/${encodeURIComponent(name)}`, { token: m.tokens.developer })
        assert.equal(res.status, 400, name)
        assert.deepEqual(res.body, { message: 'The branch refname is invalid' })
      }
    })

    it('answers HEAD with 204 for a branch and 404 otherwise', async () => {
      const found = await t.app.inject({ method: 'HEAD', url: `/api/v4${r.base}/branches/master`, headers: { 'private-token': m.tokens.reporter! } })
      assert.equal(found.statusCode, 204)
      const missing = await t.app.inject({ method: 'HEAD', url: `/api/v4${r.base}/branches/nope`, headers: { 'private-token': m.tokens.reporter! } })
      assert.equal(missing.statusCode, 404)
    })

    it('hides the branch of a private project from outsiders', async () => {
      await expectStatuses(m, (token) => t.api('GET', `${r.base}/branches/master`, { token }), {
        anonymous: 404, nonMember: 404, guest: 403, reporter: 200, admin: 200,
      })
    })
  })

  describe('POST /projects/:id/repository/branches', () => {
    it('creates a branch from a branch name or a SHA, as a push: 201 and a pushed event', async () => {
      const fromBranch = await t.api('POST', `${r.base}/branches`, { token: m.tokens.developer, body: { branch: 'topic/one', ref: 'feature/x' } })
      assert.equal(fromBranch.status, 201, fromBranch.text)
      assert.deepEqual(keysOf(fromBranch.body), BRANCH_FIELDS)
      assert.equal(fromBranch.body.name, 'topic/one')
      assert.equal(fromBranch.body.commit.id, r.sha.feature)
      assert.equal(fromBranch.body.can_push, true)
      assert.equal((await branchRef('topic/one'))?.oid, r.sha.feature)

      // Parameters in the query string, as some clients send them.
      const fromSha = await t.api('POST', `${r.base}/branches?branch=topic-two&ref=${r.sha.first}`, { token: m.tokens.developer })
      assert.equal(fromSha.status, 201, fromSha.text)
      assert.equal(fromSha.body.commit.id, r.sha.first)
      assert.equal(fromSha.body.merged, true)

      const events = await t.api('GET', `/projects/${r.project.id}/events`, { token: m.tokens.developer, query: { action: 'pushed' } })
      const pushes = events.body.filter((e: { author_id: number }) => e.author_id === m.users.developer.user.id)
      assert.deepEqual(pushes.map((e: { push_data: { ref: string; action: string; ref_type: string } }) =>
        [e.push_data.ref, e.push_data.action, e.push_data.ref_type]).sort(),
      [['topic-two', 'created', 'branch'], ['topic/one', 'created', 'branch']])
      const topic = pushes.find((e: { push_data: { ref: string } }) => e.push_data.ref === 'topic/one')
      assert.equal(topic.push_data.commit_to, r.sha.feature)
      assert.equal(topic.push_data.commit_from, null)
    })

    it('refuses an existing branch, an invalid name and an unknown ref with the original sentences (400)', async () => {
      const cases: [Record<string, string>, string][] = [
        [{ branch: 'master', ref: 'master' }, 'Branch already exists'],
        [{ branch: 'nowhere', ref: 'no-such-ref' }, 'Invalid reference name'],
        [{ branch: 'nowhere', ref: 'a..b' }, 'Invalid reference name'],
        [{ branch: 'nowhere', ref: '--all' }, 'Invalid reference name'],
        [{ branch: 'nowhere', ref: '0'.repeat(40) }, 'Invalid reference name'],
      ]
      for (const name of ['-x', 'a..b', 'HEAD', 'refs/heads/y', 'a b', 'x.lock', 'a~1', '']) cases.push([{ branch: name, ref: 'master' }, 'Branch name is invalid'])
      for (const [body, message] of cases) {
        const res = await t.api('POST', `${r.base}/branches`, { token: m.tokens.developer, body })
        assert.equal(res.status, 400, JSON.stringify(body))
        assert.deepEqual(res.body, { message }, JSON.stringify(body))
      }
      const missing = await t.api('POST', `${r.base}/branches`, { token: m.tokens.developer, body: { branch: 'x' } })
      assert.equal(missing.status, 400)
      assert.deepEqual(missing.body, { error: 'ref is missing' })
    })

    it('applies the push rules: a Developer may not create a branch only Maintainers may push to', async () => {
      await protect(t, r.project.id, 'locked-*')
      const refused = await t.api('POST', `${r.base}/branches`, { token: m.tokens.developer, body: { branch: 'locked-1', ref: 'master' } })
      assert.equal(refused.status, 400)
      assert.match(refused.body.message, /not allowed/)
      assert.equal(await branchRef('locked-1'), null)
      const allowed = await t.api('POST', `${r.base}/branches`, { token: m.tokens.maintainer, body: { branch: 'locked-1', ref: 'master' } })
      assert.equal(allowed.status, 201, allowed.text)
      assert.equal(allowed.body.protected, true)
    })

    it('refuses writes to an archived project (403), whose branches nobody can push to', async () => {
      const owner = await makeUser(t)
      const project = await makeProject(t, owner, { default_branch: 'master' })
      await commitFiles(t, project.id, { a: 'a' })
      await t.ctx.db.updateTable('projects').set({ archived: 1 }).where('id', '=', project.id).execute()
      const path = `/projects/${project.id}/repository/branches`
      const create = await t.api('POST', path, { token: owner.token, body: { branch: 'new', ref: 'master' } })
      assert.equal(create.status, 403)
      assert.equal((await t.api('DELETE', `${path}/master`, { token: owner.token })).status, 403)
      const list = await t.api('GET', path, { token: owner.token })
      assert.equal(list.body[0].can_push, false)
    })

    it('lets Developers and up create branches: 401 anonymous, 403 below', async () => {
      let n = 0
      await expectStatuses(m, (token) => t.api('POST', `${r.base}/branches`, { token, body: { branch: `who-${n += 1}`, ref: 'master' } }), {
        anonymous: 401, nonMember: 404, guest: 403, reporter: 403, developer: 201, maintainer: 201, owner: 201, admin: 201,
      })
    })
  })

  describe('DELETE /projects/:id/repository/branches/:branch', () => {
    it('deletes a branch (204), as a push that removes it', async () => {
      await t.api('POST', `${r.base}/branches`, { token: m.tokens.developer, body: { branch: 'doomed/one', ref: r.sha.feature } })
      const res = await t.api('DELETE', `${r.base}/branches/${encodeURIComponent('doomed/one')}`, { token: m.tokens.developer })
      assert.equal(res.status, 204, res.text)
      assert.equal(res.text, '')
      assert.equal(await branchRef('doomed/one'), null)
      const events = await t.api('GET', `/projects/${r.project.id}/events`, { token: m.tokens.developer, query: { action: 'pushed' } })
      const removal = events.body.find((e: { push_data: { ref: string; action: string } }) => e.push_data.ref === 'doomed/one' && e.push_data.action === 'removed')
      assert.ok(removal)
      assert.equal(removal.push_data.commit_from, r.sha.feature)
      assert.equal(removal.push_data.commit_to, null)
    })

    it('explains why the default branch and a protected branch stay (400)', async () => {
      const master = await t.api('DELETE', `${r.base}/branches/master`, { token: m.tokens.maintainer })
      assert.equal(master.status, 400)
      assert.deepEqual(master.body, { message: 'The default branch of a project cannot be deleted.' })
      await t.api('POST', `${r.base}/branches`, { token: m.tokens.maintainer, body: { branch: 'release-keep', ref: 'master' } })
      const byDeveloper = await t.api('DELETE', `${r.base}/branches/release-keep`, { token: m.tokens.developer })
      assert.equal(byDeveloper.status, 400)
      assert.deepEqual(byDeveloper.body, {
        message: 'You are not allowed to delete protected branches from this project. Only a project maintainer or owner can delete a protected branch.',
      })
      assert.notEqual(await branchRef('release-keep'), null)
      const byMaintainer = await t.api('DELETE', `${r.base}/branches/release-keep`, { token: m.tokens.maintainer })
      assert.equal(byMaintainer.status, 204, byMaintainer.text)
      assert.equal(await branchRef('release-keep'), null)
    })

    it('answers 404 for an unknown branch, 400 for an invalid name and 412 for a stale If-Unmodified-Since', async () => {
      const unknown = await t.api('DELETE', `${r.base}/branches/nope`, { token: m.tokens.developer })
      assert.equal(unknown.status, 404)
      assert.deepEqual(unknown.body, { message: '404 Branch Not Found' })
      const invalid = await t.api('DELETE', `${r.base}/branches/${encodeURIComponent('-x')}`, { token: m.tokens.developer })
      assert.equal(invalid.status, 400)
      assert.deepEqual(invalid.body, { message: 'The branch refname is invalid' })
      await t.api('POST', `${r.base}/branches`, { token: m.tokens.developer, body: { branch: 'kept', ref: 'master' } })
      const stale = await t.api('DELETE', `${r.base}/branches/kept`, {
        token: m.tokens.developer, headers: { 'if-unmodified-since': new Date(0).toUTCString() },
      })
      assert.equal(stale.status, 412)
      assert.notEqual(await branchRef('kept'), null)
    })

    it('lets Developers and up delete: 401 anonymous, 403 below, 404 for outsiders', async () => {
      await expectStatuses(m, (token) => t.api('DELETE', `${r.base}/branches/same-tip`, { token }), {
        anonymous: 401, nonMember: 404, guest: 403, reporter: 403,
      })
      assert.notEqual(await branchRef('same-tip'), null)
    })
  })

  describe('DELETE /projects/:id/repository/merged_branches', () => {
    it('deletes the branches merged into the default branch, keeping the default, protected and unmerged ones (202)', async () => {
      const owner = await makeUser(t)
      const project = await makeProject(t, owner, { visibility: 'private' })
      const repo = await fillRepository(t, project)
      const before = await t.api('GET', `${repo.base}/branches`, { token: owner.token })
      assert.deepEqual(before.body.filter((b: { merged: boolean }) => b.merged).map((b: { name: string }) => b.name), ['merged', 'release-1'])
      const res = await t.api('DELETE', `${repo.base}/merged_branches`, { token: owner.token })
      assert.equal(res.status, 202, res.text)
      assert.deepEqual(res.body, { message: '202 Accepted' })
      const after = await t.api('GET', `${repo.base}/branches`, { token: owner.token })
      assert.deepEqual(after.body.map((b: { name: string }) => b.name), ['feature/x', 'master', 'release-1', 'same-tip'])
    })

    it('lets Developers and up do it: 401 anonymous, 403 below', async () => {
      await expectStatuses(m, (token) => t.api('DELETE', `${r.base}/merged_branches`, { token }), {
        anonymous: 401, nonMember: 404, guest: 403, reporter: 403,
      })
      assert.notEqual(await branchRef('merged'), null)
    })
  })

  describe('PUT …/branches/:branch/protect and /unprotect (deprecated)', () => {
    let owner: TestUser
    let repo: Repo
    before(async () => {
      owner = await makeUser(t)
      repo = await fillRepository(t, await makeProject(t, owner, { visibility: 'private' }))
    })
    const rule = (name: string) => t.ctx.db.selectFrom('protected_branches').selectAll()
      .where('project_id', '=', repo.project.id).where('name', '=', name).executeTakeFirst()

    it('protects a branch, idempotently, with the levels developers_can_push and developers_can_merge name', async () => {
      const first = await t.api('PUT', `${repo.base}/branches/${encodeURIComponent('feature/x')}/protect`, { token: owner.token })
      assert.equal(first.status, 200, first.text)
      assert.deepEqual(keysOf(first.body), BRANCH_FIELDS)
      assert.equal(first.body.name, 'feature/x')
      assert.equal(first.body.protected, true)
      assert.equal(first.body.developers_can_push, false)
      assert.equal(first.body.developers_can_merge, false)
      assert.equal((await rule('feature/x'))?.push_access_level, MAINTAINER)

      const again = await t.api('PUT', `${repo.base}/branches/${encodeURIComponent('feature/x')}/protect`, {
        token: owner.token, body: { developers_can_push: true },
      })
      assert.equal(again.status, 200, again.text)
      assert.equal(again.body.developers_can_push, true)
      assert.equal(again.body.developers_can_merge, false)

      const merge = await t.api('PUT', `${repo.base}/branches/${encodeURIComponent('feature/x')}/protect?developers_can_merge=true`, { token: owner.token })
      assert.equal(merge.body.developers_can_push, true)
      assert.equal(merge.body.developers_can_merge, true)
      const stored = await rule('feature/x')
      assert.equal(stored?.push_access_level, DEVELOPER)
      assert.equal(stored?.merge_access_level, DEVELOPER)
    })

    it('unprotects a branch, idempotently; a wildcard rule keeps it protected', async () => {
      await t.api('PUT', `${repo.base}/branches/same-tip/protect`, { token: owner.token })
      const first = await t.api('PUT', `${repo.base}/branches/same-tip/unprotect`, { token: owner.token })
      assert.equal(first.status, 200, first.text)
      assert.deepEqual(keysOf(first.body), BRANCH_FIELDS)
      assert.equal(first.body.protected, false)
      assert.equal(await rule('same-tip'), undefined)
      const again = await t.api('PUT', `${repo.base}/branches/same-tip/unprotect`, { token: owner.token })
      assert.equal(again.status, 200)
      assert.equal(again.body.protected, false)
      const wildcard = await t.api('PUT', `${repo.base}/branches/release-1/unprotect`, { token: owner.token })
      assert.equal(wildcard.body.protected, true)
    })

    it('answers 404 for an unknown branch, 400 for an invalid name or flag', async () => {
      const unknown = await t.api('PUT', `${repo.base}/branches/nope/protect`, { token: owner.token })
      assert.equal(unknown.status, 404)
      assert.deepEqual(unknown.body, { message: '404 Branch Not Found' })
      const invalid = await t.api('PUT', `${repo.base}/branches/${encodeURIComponent('a..b')}/unprotect`, { token: owner.token })
      assert.equal(invalid.status, 400)
      const flag = await t.api('PUT', `${repo.base}/branches/master/protect`, { token: owner.token, body: { developers_can_push: 'maybe' } })
      assert.equal(flag.status, 400)
      assert.deepEqual(flag.body, { error: 'developers_can_push is invalid' })
    })

    it('is for Maintainers: 401 anonymous, 403 below', async () => {
      for (const action of ['protect', 'unprotect']) {
        await expectStatuses(m, (token) => t.api('PUT', `${r.base}/branches/same-tip/${action}`, { token }), {
          anonymous: 401, nonMember: 404, guest: 403, reporter: 403, developer: 403, maintainer: 200, admin: 200,
        })
      }
    })
  })
})
