// Deploy keys (/deploy_keys, /projects/:id/deploy_keys): every endpoint with its exact fields, who
// may call it (Maintainers of the project; administrators for the instance's list; 404 for
// private projects to outsiders), adding a key anew or enabling an existing one by its text,
// validation (bad keys, restricted types, a fingerprint some user or project holds, in both
// directions), the 11.5 rule on who may change a key, and what disabling and deleting leave.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, countQueries, type TestApp } from '../helpers/app.js'
import { makeMember, makeProject, makeUser } from '../helpers/factories.js'
import { fingerprintOf, makeKey } from '../helpers/public-keys.js'
import { expectPaginates, expectRejectsBadPagination } from '../shared/pagination.js'
import { expectStatuses, makeMatrix, type Matrix } from '../shared/permission-matrix.js'
import { DEVELOPER, MAINTAINER } from '../../src/policies/access-levels.js'

const KEY_FIELDS = ['created_at', 'id', 'key', 'title']
const PROJECT_KEY_FIELDS = ['can_push', ...KEY_FIELDS].sort()

describe('Deploy keys API', () => {
  let t: TestApp
  let m: Matrix
  let base: string

  before(async () => {
    t = await buildTestApp()
    m = await makeMatrix(t, 'private')
    base = `/projects/${m.project.id}/deploy_keys`
  })
  after(async () => { await t.close() })

  const add = (projectId: number, body: Record<string, unknown>, token: string | null = m.tokens.maintainer) =>
    t.api('POST', `/projects/${projectId}/deploy_keys`, { token, body })

  /** A key added to the matrix's project by its Maintainer. */
  const addToProject = async (body: Record<string, unknown> = {}) => {
    const res = await add(m.project.id, { title: 'deploy', key: makeKey(), ...body })
    assert.equal(res.status, 201, res.text)
    return res.body as { id: number; title: string; key: string; can_push: boolean; created_at: string }
  }

  /** A key made public, as an administrator of the original does in its admin area. */
  const makePublicKey = async () => {
    const other = await makeProject(t, null)
    const res = await add(other.id, { title: 'public', key: makeKey() }, t.root.token)
    assert.equal(res.status, 201, res.text)
    await t.ctx.db.updateTable('deploy_keys').set({ public: 1 }).where('id', '=', res.body.id).execute()
    return { ...res.body as { id: number; key: string; title: string }, projectId: other.id }
  }

  const keyRow = (id: number) => t.ctx.db.selectFrom('deploy_keys').selectAll().where('id', '=', id).executeTakeFirst()
  const links = (keyId: number) => t.ctx.db.selectFrom('deploy_keys_projects').selectAll()
    .where('deploy_key_id', '=', keyId).orderBy('project_id').execute()

  describe('POST /projects/:id/deploy_keys', () => {
    it('adds a new key with exactly the 11.5 fields, read-only unless can_push', async () => {
      const key = makeKey({ type: 'rsa', bits: 2048 }, 'ci@example.com')
      const res = await add(m.project.id, { title: 'CI', key })
      assert.equal(res.status, 201, res.text)
      assert.deepEqual(Object.keys(res.body).sort(), PROJECT_KEY_FIELDS)
      assert.deepEqual({ ...res.body, id: 0, created_at: '' }, { id: 0, title: 'CI', key, can_push: false, created_at: '' })
      assert.match(res.body.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
      const row = await keyRow(res.body.id)
      assert.equal(row?.user_id, m.users.maintainer.user.id)
      assert.equal(row?.fingerprint, fingerprintOf(key))
      assert.deepEqual([row?.key_type, row?.key_bits, row?.public], ['rsa', 2048, 0])
      assert.deepEqual((await links(res.body.id)).map((l) => [l.project_id, l.can_push]), [[m.project.id, 0]])

      const pushing = await t.api('POST', base, {
        token: m.tokens.maintainer, form: `title=pusher&can_push=true&key=${encodeURIComponent(makeKey())}`,
      })
      assert.equal(pushing.status, 201, pushing.text)
      assert.equal(pushing.body.can_push, true)
      assert.equal((await links(pushing.body.id))[0]?.can_push, 1)
    })

    it('is for Maintainers and up; private projects are 404 to outsiders, public ones 403', async () => {
      await expectStatuses(m, (token) => add(m.project.id, { title: 'who', key: makeKey() }, token), {
        anonymous: 401, nonMember: 404, guest: 403, reporter: 403, developer: 403, maintainer: 201, owner: 201, admin: 201,
        external: 404, blocked: 403,
      })
      const open = await makeProject(t, null, { visibility: 'public' })
      assert.equal((await add(open.id, { title: 'x', key: makeKey() }, m.tokens.nonMember)).status, 403)
      assert.equal((await add(open.id, { title: 'x', key: makeKey() }, null)).status, 401)
    })

    it('checks the caller before the parameters, as the original', async () => {
      assert.equal((await add(m.project.id, {}, m.tokens.developer)).status, 403)
      assert.equal((await add(m.project.id, {}, m.tokens.nonMember)).status, 404)
    })

    it('refuses missing parameters, bad keys and blank titles with the original\'s messages', async () => {
      assert.deepEqual((await add(m.project.id, { title: 'x' })).body, { error: 'key is missing' })
      assert.deepEqual((await add(m.project.id, { key: makeKey() })).body, { error: 'title is missing' })
      assert.equal((await add(m.project.id, { title: 'x', key: makeKey(), can_push: 'perhaps' })).status, 400)
      for (const key of ['not a key at all', 'ssh-rsa AAAAB3NzaC1yc2E', `ssh-ed25519 ${'A'.repeat(6000)}`]) {
        const res = await add(m.project.id, { title: 'bad', key })
        assert.equal(res.status, 400, key.slice(0, 30))
        assert.equal(Object.keys(res.body.message).join(), 'deploy_key.key')
      }
      const blank = await add(m.project.id, { title: ' ', key: makeKey() })
      assert.equal(blank.status, 400)
      assert.deepEqual(blank.body, { message: { 'deploy_key.title': ["can't be blank"] } })
      const long = await add(m.project.id, { title: 'x'.repeat(256), key: makeKey() })
      assert.deepEqual(long.body, { message: { 'deploy_key.title': ['is too long (maximum is 255 characters)'] } })
    })

    it('applies the key restriction settings', async () => {
      const setRestrictions = (body: Record<string, number>) => t.api('PUT', '/application/settings', { body })
      assert.equal((await setRestrictions({ dsa_key_restriction: -1, rsa_key_restriction: 3072 })).status, 200)
      try {
        const dsa = await add(m.project.id, { title: 'dsa', key: makeKey({ type: 'dsa' }) })
        assert.equal(dsa.status, 400)
        assert.deepEqual(dsa.body, { message: { 'deploy_key.key': ['type is forbidden. Must be RSA, ECDSA, or ED25519'] } })
        const rsa = await add(m.project.id, { title: 'rsa', key: makeKey({ type: 'rsa', bits: 2048 }) })
        assert.deepEqual(rsa.body, { message: { 'deploy_key.key': ['must be at least 3072 bits'] } })
      } finally {
        await setRestrictions({ dsa_key_restriction: 0, rsa_key_restriction: 0 })
      }
      assert.equal((await add(m.project.id, { title: 'dsa', key: makeKey({ type: 'dsa' }) })).status, 201)
    })

    it('answers a key the project holds as it is, whatever its comment or title', async () => {
      const held = await addToProject({ title: 'first' })
      const [algorithm, blob] = held.key.split(' ')
      for (const key of [held.key, `  ${held.key}\n`, `${algorithm} ${blob} another comment`]) {
        const again = await add(m.project.id, { title: 'second', key, can_push: true })
        assert.equal(again.status, 201, again.text)
        assert.deepEqual(again.body, held)
      }
      assert.equal((await links(held.id)).length, 1)
    })

    it('enables a key the caller holds on another project they maintain, with its own can_push', async () => {
      const elsewhere = await makeProject(t, m.users.maintainer)
      const first = await add(elsewhere.id, { title: 'shared', key: makeKey(), can_push: true })
      assert.equal(first.status, 201, first.text)
      const res = await add(m.project.id, { title: 'ignored', key: first.body.key })
      assert.equal(res.status, 201, res.text)
      assert.deepEqual(res.body, { ...first.body, can_push: false })
      assert.deepEqual((await links(first.body.id)).map((l) => [l.project_id, l.can_push]),
        [[m.project.id, 0], [elsewhere.id, 1]].sort((a, b) => a[0]! - b[0]!))
    })

    it('enables a public key by its text', async () => {
      const open = await makePublicKey()
      const res = await add(m.project.id, { title: 'any', key: open.key, can_push: true })
      assert.equal(res.status, 201, res.text)
      assert.deepEqual([res.body.id, res.body.title, res.body.can_push], [open.id, 'public', true])
    })

    it('refuses a key held by a project the caller does not maintain, or by a user: fingerprint taken', async () => {
      const stranger = await makeUser(t)
      const theirs = await makeProject(t, stranger)
      const theirKey = await add(theirs.id, { title: 'theirs', key: makeKey() }, stranger.token)
      assert.equal(theirKey.status, 201, theirKey.text)
      // A Developer of that project cannot hand its key on either.
      await makeMember(t, { type: 'project', id: theirs.id }, m.users.maintainer, DEVELOPER)
      const userKey = makeKey()
      assert.equal((await t.api('POST', '/user/keys', { token: stranger.token, body: { title: 'mine', key: userKey } })).status, 201)
      for (const key of [theirKey.body.key, userKey]) {
        const res = await add(m.project.id, { title: 'taken', key })
        assert.equal(res.status, 400, res.text)
        assert.deepEqual(res.body, { message: { 'deploy_key.fingerprint': ['has already been taken'] } })
      }
      assert.equal((await links(theirKey.body.id)).length, 1)
    })

    it('makes a user key with a deploy key\'s fingerprint "already taken" too', async () => {
      const held = await addToProject()
      const res = await t.api('POST', '/user/keys', { token: m.tokens.maintainer, body: { title: 'mine', key: held.key } })
      assert.equal(res.status, 400)
      assert.deepEqual(res.body, { message: { fingerprint: ['has already been taken'] } })
      const byAdmin = await t.api('POST', `/users/${m.users.developer.user.id}/keys`, { body: { title: 'theirs', key: held.key } })
      assert.deepEqual(byAdmin.body, { message: { fingerprint: ['has already been taken'] } })
    })
  })

  describe('GET /projects/:id/deploy_keys and …/:key_id', () => {
    it('lists the project\'s keys in the order they were enabled, paginated, each with its can_push', async () => {
      const project = await makeProject(t, m.users.maintainer)
      const path = `/projects/${project.id}/deploy_keys`
      const shared = await makePublicKey()
      const own = await add(project.id, { title: 'own', key: makeKey(), can_push: true })
      assert.equal((await t.api('POST', `${path}/${shared.id}/enable`, { token: m.tokens.maintainer })).status, 201)
      const third = await add(project.id, { title: 'third', key: makeKey() })
      const res = await t.api('GET', path, { token: m.tokens.maintainer })
      assert.equal(res.status, 200)
      assert.deepEqual(res.body.map((k: { id: number; can_push: boolean }) => [k.id, k.can_push]),
        [[own.body.id, true], [shared.id, false], [third.body.id, false]])
      assert.ok(res.body.every((k: object) => Object.keys(k).sort().join() === PROJECT_KEY_FIELDS.join()))
      await expectPaginates({ t, path, token: m.tokens.maintainer, total: 3 })
      await expectRejectsBadPagination(t, path, m.tokens.maintainer)
    })

    it('runs as many queries for a page of 30 keys as for a page of 3', async () => {
      const project = await makeProject(t, m.users.maintainer)
      const path = `/projects/${project.id}/deploy_keys`
      for (let i = 0; i < 30; i += 1) assert.equal((await add(project.id, { title: `k${i}`, key: makeKey() })).status, 201)
      const queriesOf = async (perPage: number) => {
        await t.api('GET', path, { token: m.tokens.maintainer, query: { per_page: perPage } })
        const { queries, result } = await countQueries(t, () => t.api('GET', path, { token: m.tokens.maintainer, query: { per_page: perPage } }))
        assert.equal(result.body.length, perPage)
        return queries
      }
      assert.equal(await queriesOf(30), await queriesOf(3))
    })

    it('is for Maintainers and up', async () => {
      await expectStatuses(m, (token) => t.api('GET', base, { token }), {
        anonymous: 401, nonMember: 404, guest: 403, reporter: 403, developer: 403, maintainer: 200, owner: 200, admin: 200, external: 404,
      })
    })

    it('shows one key; 404 for a key the project does not hold, 400 for a non-numeric id', async () => {
      const held = await addToProject({ can_push: true })
      const res = await t.api('GET', `${base}/${held.id}`, { token: m.tokens.maintainer })
      assert.equal(res.status, 200)
      assert.deepEqual(res.body, held)
      const open = await makePublicKey()
      for (const id of [open.id, 99999999, 2 ** 40]) {
        const missing = await t.api('GET', `${base}/${id}`, { token: m.tokens.maintainer })
        assert.equal(missing.status, 404, String(id))
        assert.deepEqual(missing.body, { message: '404 Not found' })
      }
      assert.deepEqual((await t.api('GET', `${base}/abc`, { token: m.tokens.maintainer })).body, { error: 'key_id is invalid' })
      await expectStatuses(m, (token) => t.api('GET', `${base}/${held.id}`, { token }), {
        anonymous: 401, nonMember: 404, guest: 403, developer: 403, maintainer: 200, admin: 200,
      })
    })
  })

  describe('PUT /projects/:id/deploy_keys/:key_id', () => {
    const put = (id: number, body: Record<string, unknown>, token: string | null = m.tokens.maintainer) =>
      t.api('PUT', `${base}/${id}`, { token, body })

    it('changes can_push on this project and the title', async () => {
      const held = await addToProject({ title: 'before' })
      const pushing = await put(held.id, { can_push: true })
      assert.equal(pushing.status, 200, pushing.text)
      assert.deepEqual(pushing.body, { ...held, can_push: true })
      assert.equal((await links(held.id))[0]?.can_push, 1)
      const renamed = await put(held.id, { title: 'after' })
      assert.deepEqual(renamed.body, { ...held, title: 'after', can_push: true })
      const back = await t.api('PUT', `${base}/${held.id}`, { token: m.tokens.maintainer, form: 'can_push=false' })
      assert.equal(back.body.can_push, false)
      assert.equal((await keyRow(held.id))?.title, 'after')
      assert.equal((await links(held.id))[0]?.can_push, 0)
    })

    it('needs a title or can_push, a valid title, a key the project holds', async () => {
      const held = await addToProject()
      assert.deepEqual((await put(held.id, {})).body, { error: 'title, can_push are missing, at least one parameter must be provided' })
      const blank = await put(held.id, { title: '', can_push: true })
      assert.equal(blank.status, 400)
      assert.deepEqual(blank.body, { message: { 'deploy_key.title': ["can't be blank"] } })
      assert.equal((await links(held.id))[0]?.can_push, 0, 'nothing changes when the title is refused')
      const missing = await put(99999999, { title: 'x' })
      assert.deepEqual([missing.status, missing.body], [404, { message: '404 Not found' }])
      await expectStatuses(m, (token) => put(held.id, { title: 'by someone' }, token), {
        anonymous: 401, nonMember: 404, guest: 403, developer: 403, maintainer: 200, owner: 200, admin: 200,
      })
    })

    it('lets a Maintainer of any project holding a private key rename it for every project (11.5)', async () => {
      const held = await addToProject({ title: 'shared' })
      const stranger = await makeUser(t)
      const theirs = await makeProject(t, stranger)
      await makeMember(t, { type: 'project', id: theirs.id }, m.users.maintainer, MAINTAINER)
      assert.equal((await add(theirs.id, { title: 'x', key: held.key })).status, 201)
      const res = await t.api('PUT', `/projects/${theirs.id}/deploy_keys/${held.id}`, { token: stranger.token, body: { title: 'renamed' } })
      assert.equal(res.status, 200, res.text)
      assert.equal((await t.api('GET', `${base}/${held.id}`, { token: m.tokens.maintainer })).body.title, 'renamed')
    })

    it('leaves a public key to administrators: 403 to Maintainers, can_push included', async () => {
      const open = await makePublicKey()
      assert.equal((await t.api('POST', `${base}/${open.id}/enable`, { token: m.tokens.maintainer })).status, 201)
      for (const body of [{ title: 'mine now' }, { can_push: true }]) {
        const res = await put(open.id, body)
        assert.equal(res.status, 403, JSON.stringify(body))
        assert.deepEqual(res.body, { message: '403 Forbidden' })
      }
      const res = await put(open.id, { title: 'renamed by admin', can_push: true }, t.root.token)
      assert.equal(res.status, 200, res.text)
      assert.deepEqual([res.body.title, res.body.can_push], ['renamed by admin', true])
      assert.equal((await keyRow(open.id))?.title, 'renamed by admin')
    })
  })

  describe('DELETE /projects/:id/deploy_keys/:key_id', () => {
    const remove = (id: number, token: string | null = m.tokens.maintainer, projectId = m.project.id) =>
      t.api('DELETE', `/projects/${projectId}/deploy_keys/${id}`, { token })

    it('disables the key; a private key no project holds any more is deleted with it', async () => {
      const held = await addToProject()
      await expectStatuses(m, (token) => remove(held.id, token), { anonymous: 401, nonMember: 404, guest: 403, developer: 403 })
      const res = await remove(held.id)
      assert.equal(res.status, 204)
      assert.equal(res.text, '')
      assert.equal(await keyRow(held.id), undefined)
      const again = await remove(held.id)
      assert.deepEqual([again.status, again.body], [404, { message: '404 Deploy Key Not Found' }])
      // Its text may be added anew.
      assert.equal((await add(m.project.id, { title: 'again', key: held.key })).status, 201)
    })

    it('keeps a private key other projects hold, and a public key', async () => {
      const held = await addToProject()
      const elsewhere = await makeProject(t, m.users.maintainer)
      assert.equal((await add(elsewhere.id, { title: 'x', key: held.key })).status, 201)
      assert.equal((await remove(held.id)).status, 204)
      assert.deepEqual((await links(held.id)).map((l) => l.project_id), [elsewhere.id])
      assert.equal((await t.api('GET', `${base}/${held.id}`, { token: m.tokens.maintainer })).status, 404)
      const open = await makePublicKey()
      assert.equal((await remove(open.id, m.tokens.maintainer, open.projectId)).status, 404)
      assert.equal((await remove(open.id, t.root.token, open.projectId)).status, 204)
      assert.ok(await keyRow(open.id))
      assert.deepEqual(await links(open.id), [])
    })

    it('answers 412 when the link changed after If-Unmodified-Since', async () => {
      const held = await addToProject()
      const res = await t.api('DELETE', `${base}/${held.id}`, {
        token: m.tokens.maintainer, headers: { 'if-unmodified-since': new Date(Date.now() - 3_600_000).toUTCString() },
      })
      assert.deepEqual([res.status, res.body], [412, { message: '412 Precondition Failed' }])
      assert.ok(await keyRow(held.id))
    })
  })

  describe('POST /projects/:id/deploy_keys/:key_id/enable', () => {
    const enable = (id: number | string, token: string | null = m.tokens.maintainer, projectId = m.project.id) =>
      t.api('POST', `/projects/${projectId}/deploy_keys/${id}/enable`, { token })

    it('enables a public key (201, the key without can_push); again changes nothing', async () => {
      const open = await makePublicKey()
      const res = await enable(open.id)
      assert.equal(res.status, 201, res.text)
      assert.deepEqual(Object.keys(res.body).sort(), KEY_FIELDS)
      assert.deepEqual([res.body.id, res.body.title, res.body.key], [open.id, open.title, open.key])
      assert.equal((await enable(open.id)).status, 201)
      assert.deepEqual((await links(open.id)).map((l) => [l.project_id, l.can_push]),
        [[open.projectId, 0], [m.project.id, 0]].sort((a, b) => a[0]! - b[0]!))
    })

    it('enables a key of another project the caller maintains, not one of a project they cannot read or only develop', async () => {
      const mine = await makeProject(t, m.users.maintainer)
      const fromMine = await add(mine.id, { title: 'mine', key: makeKey() })
      assert.equal((await enable(fromMine.body.id)).status, 201)

      const stranger = await makeUser(t)
      const hidden = await makeProject(t, stranger)
      const developed = await makeProject(t, stranger)
      await makeMember(t, { type: 'project', id: developed.id }, m.users.maintainer, DEVELOPER)
      for (const project of [hidden, developed]) {
        const theirs = await add(project.id, { title: 'theirs', key: makeKey() }, stranger.token)
        const res = await enable(theirs.body.id)
        assert.deepEqual([res.status, res.body], [404, { message: '404 Deploy Key Not Found' }])
        assert.equal((await links(theirs.body.id)).length, 1)
      }
      assert.deepEqual((await enable(99999999)).body, { message: '404 Deploy Key Not Found' })
      assert.equal((await enable('abc')).status, 400)
    })

    it('is for Maintainers and up of the project enabling it', async () => {
      const open = await makePublicKey()
      await expectStatuses(m, (token) => enable(open.id, token), {
        anonymous: 401, nonMember: 404, guest: 403, reporter: 403, developer: 403, maintainer: 201, admin: 201,
      })
    })
  })

  describe('GET /deploy_keys', () => {
    it('lists every key of the instance to administrators, paginated; 403 to others, 401 anonymous', async () => {
      await addToProject()
      const res = await t.api('GET', '/deploy_keys', { query: { per_page: 100 } })
      assert.equal(res.status, 200)
      const rows = await t.ctx.db.selectFrom('deploy_keys').select('id').orderBy('id').execute()
      assert.deepEqual(res.body.map((k: { id: number }) => k.id), rows.map((r) => r.id))
      assert.ok(res.body.every((k: object) => Object.keys(k).sort().join() === KEY_FIELDS.join()))
      await expectPaginates({ t, path: '/deploy_keys', token: t.root.token, total: rows.length })
      await expectStatuses(m, (token) => t.api('GET', '/deploy_keys', { token }), { anonymous: 401, maintainer: 403, owner: 403, admin: 200 })
    })
  })

  describe('when projects and users go', () => {
    const enable = (id: number, token: string | null, projectId: number) =>
      t.api('POST', `/projects/${projectId}/deploy_keys/${id}/enable`, { token })

    it('deleting a project deletes the private keys only it held, and keeps shared and public ones', async () => {
      const owner = await makeUser(t)
      const doomed = await makeProject(t, owner)
      const survivor = await makeProject(t, owner)
      const only = await add(doomed.id, { title: 'only', key: makeKey() }, owner.token)
      const shared = await add(doomed.id, { title: 'shared', key: makeKey() }, owner.token)
      assert.equal((await add(survivor.id, { title: 'x', key: shared.body.key }, owner.token)).status, 201)
      const open = await makePublicKey()
      assert.equal((await enable(open.id, owner.token, doomed.id)).status, 201)
      assert.equal((await t.api('DELETE', `/projects/${doomed.id}`, { token: owner.token })).status, 202)
      assert.equal(await keyRow(only.body.id), undefined)
      assert.deepEqual((await links(shared.body.id)).map((l) => l.project_id), [survivor.id])
      assert.deepEqual((await links(open.id)).map((l) => l.project_id), [open.projectId])
    })

    it('deleting the user who added a key keeps the key, without its user', async () => {
      const adder = await makeUser(t)
      await makeMember(t, { type: 'project', id: m.project.id }, adder, MAINTAINER)
      const res = await add(m.project.id, { title: 'orphan', key: makeKey() }, adder.token)
      assert.equal((await t.api('DELETE', `/users/${adder.user.id}`)).status, 204)
      assert.equal((await keyRow(res.body.id))?.user_id, null)
      assert.equal((await t.api('GET', `${base}/${res.body.id}`, { token: m.tokens.maintainer })).status, 200)
    })
  })
})
