// Forks: POST /projects/:id/fork (who may fork what where, the fork's fields, visibility and
// repository, 409s as the original words them), forks_count and forked_from_project, GET
// /projects/:id/forks, and the admin fork relation (POST /projects/:id/fork/:forked_from_id,
// DELETE /projects/:id/fork). Run on SQLite, and on PostgreSQL with INGOT_TEST_DATABASE_URL.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, EXTERNAL_URL, type TestApp } from '../helpers/app.js'
import { makeGroup, makeMember, makeUser, type TestUser } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import { ADMIN_FIELDS, FULL_FIELDS, SIMPLE_FIELDS, fields, keysOf } from '../helpers/projects.js'
import { expectStatuses, makeMatrix } from '../shared/permission-matrix.js'
import { expectPaginates } from '../shared/pagination.js'
import { DEVELOPER, GUEST, INTERNAL, MAINTAINER, PRIVATE, PUBLIC, REPORTER, type Visibility } from '../../src/policies/access-levels.js'
import { DEFAULT_SETTINGS } from '../../src/services/settings.js'
import { forkVisibilityLevel } from '../../src/services/projects/fork-project.js'

describe('forks', () => {
  let t: TestApp
  before(async () => { t = await buildTestApp() })
  after(async () => { await t.close() })

  /** A project with a README commit (so a default branch), a second branch and two tags, made through the API. */
  async function sourceProject(owner: TestUser, body: Record<string, unknown> = {}) {
    const res = await t.api('POST', '/projects', {
      token: owner.token, body: { name: `Source ${Math.random().toString(36).slice(2, 8)}`, initialize_with_readme: true, visibility: 'private', ...body },
    })
    assert.equal(res.status, 201, res.text)
    const id = res.body.id as number
    const tip = await commitFiles(t, id, { 'src/main.c': 'int main() {}\n' })
    await commitFiles(t, id, { 'feature.txt': 'wip\n' }, { branch: 'feature', parent: tip })
    const repo = t.ctx.repositories.open(id)
    await repo.run(['tag', 'v1.0', tip])
    await repo.run(['tag', '-a', '-m', 'release', 'v1.1', tip], { env: { GIT_COMMITTER_NAME: 'A', GIT_COMMITTER_EMAIL: 'a@example.com' } })
    return res.body as { id: number; name: string; path: string; path_with_namespace: string }
  }

  const fork = (id: number | string, token: string | null, body: Record<string, unknown> = {}) =>
    t.api('POST', `/projects/${id}/fork`, { token, body })
  const getProject = (id: number, token: string | null = t.root.token) => t.api('GET', `/projects/${id}`, { token })
  const refsOf = async (id: number) =>
    (await t.ctx.repositories.open(id).refs('refs/heads/', 'refs/tags/')).map((ref) => [ref.name, ref.target])

  it('forks into the caller\'s namespace: same name and path, the source\'s branches and tags, forked_from_project', async () => {
    const owner = await makeUser(t)
    const reporter = await makeUser(t)
    const source = await sourceProject(owner, { description: 'about it', visibility: 'internal' })
    await makeMember(t, { type: 'project', id: source.id }, reporter, REPORTER)

    const res = await fork(source.id, reporter.token)
    assert.equal(res.status, 201, res.text)
    const body = res.body
    assert.deepEqual(keysOf(body), fields(FULL_FIELDS, ADMIN_FIELDS, ['owner', 'forked_from_project']))
    assert.equal(body.name, source.name)
    assert.equal(body.path, source.path)
    assert.equal(body.description, 'about it')
    assert.equal(body.path_with_namespace, `${reporter.user.username}/${source.path}`)
    assert.equal(body.owner.id, reporter.user.id)
    assert.equal(body.namespace.id, (await t.ctx.db.selectFrom('namespaces').select('id').where('owner_id', '=', reporter.user.id).executeTakeFirstOrThrow()).id)
    assert.equal(body.creator_id, reporter.user.id)
    assert.equal(body.visibility, 'internal')
    assert.equal(body.default_branch, 'master')
    assert.equal(body.import_status, 'finished')
    assert.equal(body.forks_count, 0)
    assert.equal(body.readme_url, `${EXTERNAL_URL}/${body.path_with_namespace}/blob/master/README.md`)

    const sourceNow = await getProject(source.id, owner.token)
    assert.equal(sourceNow.body.forks_count, 1)
    assert.deepEqual(keysOf(body.forked_from_project), SIMPLE_FIELDS)
    const { permissions: _permissions, ...sourceFull } = sourceNow.body
    assert.deepEqual(body.forked_from_project, Object.fromEntries(SIMPLE_FIELDS.map((key) => [key, sourceFull[key]])))

    assert.deepEqual(await refsOf(body.id), await refsOf(source.id))
    assert.deepEqual((await refsOf(body.id)).map(([name]) => name),
      ['refs/heads/feature', 'refs/heads/master', 'refs/tags/v1.0', 'refs/tags/v1.1'])
    assert.equal(await t.ctx.repositories.open(body.id).headBranch(), 'master')
    // The fork keeps no link to its source in its configuration.
    await assert.rejects(t.ctx.repositories.open(body.id).run(['config', '--get', 'remote.origin.url']))

    // The fork's owner works on it as Maintainer; its creation is the fork owner's event.
    const member = await t.ctx.db.selectFrom('members').select('access_level')
      .where('source_type', '=', 'project').where('source_id', '=', body.id).where('user_id', '=', reporter.user.id).executeTakeFirstOrThrow()
    assert.equal(member.access_level, MAINTAINER)
    const events = await t.ctx.db.selectFrom('events').select(['action', 'author_id']).where('project_id', '=', body.id).execute()
    assert.deepEqual(events, [{ action: 'created', author_id: reporter.user.id }])
  })

  it('needs a signed-in caller who may read the source\'s code (404 hidden, 409 forbidden, as the original)', async () => {
    const m = await makeMatrix(t, 'private')
    await commitFiles(t, m.project.id, { 'a.txt': 'a\n' })
    // Each persona forks into its own namespace, so only the first success per persona counts.
    await expectStatuses(m, (token) => fork(m.project.id, token), {
      anonymous: 401, nonMember: 404, guest: 409, reporter: 201, developer: 201, maintainer: 201, admin: 201, external: 404, blocked: 403,
    })
    assert.deepEqual((await fork(m.project.id, null)).body, { message: '401 Unauthorized' })
    assert.deepEqual((await fork(m.project.id, m.tokens.nonMember)).body, { message: '404 Project Not Found' })
    assert.deepEqual((await fork(m.project.id, m.tokens.guest)).body, { message: { forked_from_project_id: ['is forbidden'] } })
    assert.deepEqual((await fork(999999, t.root.token)).body, { message: '404 Project Not Found' })
  })

  it('forks public and internal projects for signed-in users who can see them, within their project limit', async () => {
    const pub = await makeMatrix(t, 'public')
    await expectStatuses(pub, (token) => fork(pub.project.id, token), { anonymous: 401, nonMember: 201, external: 409 })
    // External users may read public code but, as in the original, create no personal projects.
    assert.deepEqual((await fork(pub.project.id, pub.tokens.external)).body, {
      message: { limit_reached: ['Personal project creation is not allowed. Please contact your administrator with questions'] },
    })
    const internal = await makeMatrix(t, 'internal')
    await expectStatuses(internal, (token) => fork(internal.project.id, token), { nonMember: 201, external: 404 })
  })

  it('answers 409 with the field errors when the target namespace has the name or path', async () => {
    const owner = await makeUser(t)
    const source = await sourceProject(owner)
    const own = await fork(source.id, owner.token)
    assert.equal(own.status, 409)
    assert.deepEqual(own.body, { message: { name: ['has already been taken'], path: ['has already been taken'] } })
    const reporter = await makeUser(t)
    await makeMember(t, { type: 'project', id: source.id }, reporter, REPORTER)
    assert.equal((await fork(source.id, reporter.token)).status, 201)
    const again = await fork(source.id, reporter.token)
    assert.equal(again.status, 409)
    assert.deepEqual(again.body, { message: { name: ['has already been taken'], path: ['has already been taken'] } })
    assert.equal((await getProject(source.id)).body.forks_count, 1)
  })

  it('takes a target namespace by id or full path where the caller may create projects, else 404 Target Namespace', async () => {
    const owner = await makeUser(t)
    const forker = await makeUser(t)
    const source = await sourceProject(owner, { visibility: 'public' })
    const parent = await makeGroup(t, { visibility: 'public' }, forker)
    const child = await makeGroup(t, { visibility: 'public', parent }, forker)
    const byPath = await fork(source.id, forker.token, { namespace: child.full_path.toUpperCase() })
    assert.equal(byPath.status, 201, byPath.text)
    assert.deepEqual([byPath.body.namespace.id, byPath.body.namespace.full_path], [child.id, child.full_path])
    assert.ok(!('owner' in byPath.body))
    const byId = await fork(source.id, forker.token, { namespace: String(parent.id) })
    assert.equal(byId.status, 201)
    assert.equal(byId.body.namespace.id, parent.id)
    const ownByName = await fork(source.id, forker.token, { namespace: forker.user.username })
    assert.equal(ownByName.status, 201)
    assert.equal(ownByName.body.owner.id, forker.user.id)

    const developerGroup = await makeGroup(t, { visibility: 'public' })
    await makeMember(t, { type: 'group', id: developerGroup.id }, forker, DEVELOPER)
    const ownersNamespace = await t.ctx.db.selectFrom('namespaces').select('id').where('owner_id', '=', owner.user.id).executeTakeFirstOrThrow()
    for (const namespace of [developerGroup.full_path, String(ownersNamespace.id), '99999999', 'no/such/group', '12345678901234567890']) {
      const res = await fork(source.id, forker.token, { namespace })
      assert.equal(res.status, 404, namespace)
      assert.deepEqual(res.body, { message: '404 Target Namespace Not Found' })
    }
    // Admins fork into anyone's namespace; the fork then belongs to that user.
    const asAdmin = await fork(source.id, t.root.token, { namespace: owner.user.username.toUpperCase() })
    assert.equal(asAdmin.status, 409)
    const third = await makeUser(t)
    const forThird = await fork(source.id, t.root.token, { namespace: third.user.username })
    assert.equal(forThird.status, 201)
    assert.equal(forThird.body.owner.id, third.user.id)
    assert.equal(forThird.body.creator_id, t.root.user.id)
    assert.equal((await getProject(source.id)).body.forks_count, 4)
  })

  it('never makes a fork more open than its source, its group, or what the administrator allows', async () => {
    const owner = await makeUser(t)
    const forker = await makeUser(t)
    const source = await sourceProject(owner, { visibility: 'public' })
    const privateGroup = await makeGroup(t, { visibility: 'private' }, forker)
    const intoPrivate = await fork(source.id, forker.token, { namespace: privateGroup.full_path })
    assert.equal(intoPrivate.body.visibility, 'private')
    const internalSource = await sourceProject(owner, { visibility: 'internal' })
    assert.equal((await fork(internalSource.id, forker.token)).body.visibility, 'internal')

    // Restricted levels give way to the closest open one below.
    const sourceRow = await t.ctx.db.selectFrom('projects').selectAll().where('id', '=', source.id).executeTakeFirstOrThrow()
    const userNamespace = await t.ctx.db.selectFrom('namespaces').selectAll().where('owner_id', '=', forker.user.id).executeTakeFirstOrThrow()
    const restricting = (levels: Visibility[]) => ({ ...DEFAULT_SETTINGS, restricted_visibility_levels: levels })
    assert.equal(forkVisibilityLevel(sourceRow, userNamespace, restricting([])), PUBLIC)
    assert.equal(forkVisibilityLevel(sourceRow, userNamespace, restricting(['public'])), INTERNAL)
    assert.equal(forkVisibilityLevel(sourceRow, userNamespace, restricting(['public', 'internal'])), PRIVATE)
    assert.equal(forkVisibilityLevel(sourceRow, userNamespace, restricting(['internal'])), PUBLIC)
    assert.equal(forkVisibilityLevel(sourceRow, privateGroup, restricting(['private'])), PRIVATE)

    // Nor later: raising a fork above its source is refused as the original words it.
    const forked = await fork((await sourceProject(owner, { visibility: 'internal' })).id, forker.token)
    const raise = await t.api('PUT', `/projects/${forked.body.id}`, { token: forker.token, body: { visibility: 'public' } })
    assert.equal(raise.status, 400)
    assert.deepEqual(raise.body, { message: { visibility_level: ['public is not allowed since the fork source project has lower visibility.'] } })
  })

  it('shows forked_from_project only to those who may see the source', async () => {
    const owner = await makeUser(t)
    const forker = await makeUser(t)
    const source = await sourceProject(owner, { visibility: 'public' })
    const forked = await fork(source.id, forker.token)
    const forkId = forked.body.id as number
    assert.equal((await getProject(forkId, forker.token)).body.forked_from_project.id, source.id)
    assert.ok(!('forked_from_project' in (await getProject(forkId, null)).body), 'not in the simple form')

    const turnPrivate = await t.api('PUT', `/projects/${source.id}`, { token: owner.token, body: { visibility: 'private' } })
    assert.equal(turnPrivate.status, 200)
    const stranger = await makeUser(t)
    for (const token of [forker.token, stranger.token]) {
      const res = await getProject(forkId, token)
      assert.equal(res.status, 200)
      assert.ok(!('forked_from_project' in res.body))
      const list = await t.api('GET', '/projects', { token, query: { search: source.name } })
      const listed = (list.body as { id: number }[]).find((p) => p.id === forkId)
      assert.ok(listed !== undefined && !('forked_from_project' in listed))
    }
    await makeMember(t, { type: 'project', id: source.id }, forker, GUEST)
    assert.equal((await getProject(forkId, forker.token)).body.forked_from_project.id, source.id)
    const list = await t.api('GET', '/projects', { token: t.root.token, query: { search: source.name } })
    assert.equal((list.body as { id: number; forked_from_project?: { id: number } }[]).find((p) => p.id === forkId)?.forked_from_project?.id, source.id)
  })

  it('counts forks down when a fork is deleted, and leaves a fork whole when its source is deleted', async () => {
    const owner = await makeUser(t)
    const source = await sourceProject(owner, { visibility: 'public' })
    const [a, b] = [await makeUser(t), await makeUser(t)]
    const forkA = (await fork(source.id, a.token)).body
    const forkB = (await fork(source.id, b.token)).body
    assert.equal((await getProject(source.id)).body.forks_count, 2)
    assert.equal((await t.api('DELETE', `/projects/${forkA.id}`, { token: a.token })).status, 202)
    assert.equal((await getProject(source.id)).body.forks_count, 1)

    const refsBefore = await refsOf(forkB.id)
    assert.equal((await t.api('DELETE', `/projects/${source.id}`, { token: owner.token })).status, 202)
    const orphan = await getProject(forkB.id, b.token)
    assert.equal(orphan.status, 200)
    assert.ok(!('forked_from_project' in orphan.body))
    assert.deepEqual(await refsOf(forkB.id), refsBefore)
    const repo = t.ctx.repositories.open(forkB.id)
    await repo.run(['fsck', '--full', '--strict'])
    assert.equal((await repo.read('master:src/main.c'))?.data.toString(), 'int main() {}\n')
    // The fork is a project of its own from now on: its own pushes work.
    await commitFiles(t, forkB.id, { 'after.txt': 'still here\n' })
    await repo.run(['fsck', '--full'])
  })

  describe('GET /projects/:id/forks', () => {
    it('lists the forks the caller may see, paginated, in the caller\'s form', async () => {
      const owner = await makeUser(t)
      const source = await sourceProject(owner, { visibility: 'public' })
      const users = [await makeUser(t), await makeUser(t), await makeUser(t)]
      const forkIds: number[] = []
      for (const user of users) forkIds.push((await fork(source.id, user.token)).body.id)
      const hidden = await t.api('PUT', `/projects/${forkIds[2]}`, { token: users[2]!.token, body: { visibility: 'private' } })
      assert.equal(hidden.status, 200)

      const asStranger = await t.api('GET', `/projects/${source.id}/forks`, { token: owner.token })
      assert.equal(asStranger.status, 200)
      assert.deepEqual(asStranger.body.map((p: { id: number }) => p.id), [forkIds[1], forkIds[0]])
      assert.deepEqual(keysOf(asStranger.body[0]), fields(FULL_FIELDS, ['owner', 'permissions', 'forked_from_project']))
      assert.equal(asStranger.headers['x-total'], '2')
      const asAdmin = await t.api('GET', `/projects/${source.id}/forks`, { token: t.root.token, query: { order_by: 'id', sort: 'asc' } })
      assert.deepEqual(asAdmin.body.map((p: { id: number }) => p.id), forkIds)
      const anonymous = await t.api('GET', `/projects/${source.id}/forks`, { token: null, query: { simple: true } })
      assert.deepEqual(keysOf(anonymous.body[0]), SIMPLE_FIELDS)

      await expectPaginates({ t, path: `/projects/${source.id}/forks`, token: t.root.token, total: 3 })
      const noForks = await t.api('GET', `/projects/${forkIds[0]}/forks`, { token: null })
      assert.deepEqual(noForks.body, [])
    })

    it('answers 404 for a project the caller cannot see, 400 for bad filters', async () => {
      const m = await makeMatrix(t, 'private')
      await expectStatuses(m, (token) => t.api('GET', `/projects/${m.project.id}/forks`, { token }), {
        anonymous: 404, nonMember: 404, guest: 200, reporter: 200, admin: 200, external: 404,
      })
      const bad = await t.api('GET', `/projects/${m.project.id}/forks`, { token: t.root.token, query: { order_by: 'stars' } })
      assert.equal(bad.status, 400)
      assert.deepEqual(bad.body, { error: 'order_by is invalid' })
    })
  })

  describe('the fork relation (admin)', () => {
    it('marks a project as a fork once; only admins may, and only of a project that exists', async () => {
      const owner = await makeUser(t)
      const source = await sourceProject(owner, { visibility: 'public' })
      const other = await sourceProject(owner, { visibility: 'private' })
      const link = (token: string | null, id: number | string = other.id, from: number | string = source.id) =>
        t.api('POST', `/projects/${id}/fork/${from}`, { token })
      assert.equal((await link(null)).status, 401)
      const denied = await link(owner.token)
      assert.equal(denied.status, 403)
      assert.deepEqual(denied.body, { message: '403 Forbidden' })
      assert.deepEqual((await link(t.root.token, other.id, 999999)).body, { message: '404 Project Not Found' })
      assert.deepEqual((await link(t.root.token, 999999)).body, { message: '404 Project Not Found' })

      const linked = await link(t.root.token, other.id, encodeURIComponent(source.path_with_namespace))
      assert.equal(linked.status, 201, linked.text)
      assert.deepEqual(keysOf(linked.body), fields(FULL_FIELDS, ['owner', 'forked_from_project']))
      assert.equal(linked.body.forked_from_project.id, source.id)
      assert.equal((await getProject(source.id)).body.forks_count, 1)
      const twice = await link(t.root.token)
      assert.equal(twice.status, 409)
      assert.deepEqual(twice.body, { message: 'Project already forked' })
      const self = await link(t.root.token, source.id, source.id)
      assert.equal(self.status, 409)
      assert.equal((await getProject(source.id)).body.forks_count, 1)
    })

    it('removes the relation for the project\'s owners (204, then 304)', async () => {
      const owner = await makeUser(t)
      const forker = await makeUser(t)
      const source = await sourceProject(owner, { visibility: 'public' })
      const forked = (await fork(source.id, forker.token)).body
      const developer = await makeUser(t)
      await makeMember(t, { type: 'project', id: forked.id }, developer, DEVELOPER)
      const unlink = (token: string | null, headers: Record<string, string> = {}) =>
        t.api('DELETE', `/projects/${forked.id}/fork`, { token, headers })
      assert.equal((await unlink(null)).status, 401)
      assert.equal((await unlink(developer.token)).status, 403)
      assert.equal((await unlink((await makeUser(t)).token)).status, 403)
      const stale = await unlink(forker.token, { 'if-unmodified-since': new Date(Date.now() - 3_600_000).toUTCString() })
      assert.equal(stale.status, 412)
      const removed = await unlink(forker.token)
      assert.equal(removed.status, 204)
      assert.equal(removed.text, '')
      assert.equal((await getProject(source.id)).body.forks_count, 0)
      assert.ok(!('forked_from_project' in (await getProject(forked.id, forker.token)).body))
      assert.equal((await unlink(forker.token)).status, 304)
      // Its repository stays as it was.
      assert.deepEqual(await refsOf(forked.id), await refsOf(source.id))
    })
  })
})
