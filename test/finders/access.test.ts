// The SQL behind visibility and access levels, on a real database: inheritance through ancestor
// groups, shares capped at their group_access, expiry, and the visible-project condition.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeGroup, makeMember, makeProject, makeUser } from '../helpers/factories.js'
import { groupAccessFor, groupVisibleTo, projectAccessFor, projectVisibleTo } from '../../src/finders/access.js'
import { DEVELOPER, GUEST, MAINTAINER, OWNER, REPORTER } from '../../src/policies/access-levels.js'
import type { Actor } from '../../src/auth/actor.js'

describe('access levels and visibility', () => {
  let t: TestApp
  before(async () => { t = await buildTestApp() })
  after(async () => { await t.close() })

  const visibleProjectIds = async (actor: Actor | null) =>
    (await t.ctx.db.selectFrom('projects').select('id').where(await projectVisibleTo(t.ctx.db, actor)).execute()).map((r) => r.id)
  const visibleGroupIds = async (actor: Actor | null) =>
    (await t.ctx.db.selectFrom('namespaces').select('id').where('kind', '=', 'group').where(groupVisibleTo(actor)).execute()).map((r) => r.id)

  it('inherits group membership down nested groups and caps shares', async () => {
    const user = await makeUser(t)
    const top = await makeGroup(t)
    const child = await makeGroup(t, { parent: top })
    const inChild = await makeProject(t, null, { namespace: child })
    const elsewhere = await makeGroup(t)
    const shared = await makeProject(t, null, { namespace: elsewhere })
    const other = await makeGroup(t)
    await makeMember(t, { type: 'group', id: top.id }, user, DEVELOPER)
    await makeMember(t, { type: 'group', id: other.id }, user, MAINTAINER)
    await t.ctx.db.insertInto('project_group_links')
      .values({ project_id: shared.id, group_id: other.id, group_access: REPORTER, expires_at: null, created_at: Date.now() }).execute()

    const access = await projectAccessFor(t.ctx.db, user.user.id, [inChild.id, shared.id])
    assert.deepEqual(access.get(inChild.id), { projectAccess: null, groupAccess: DEVELOPER, level: DEVELOPER })
    assert.deepEqual(access.get(shared.id), { projectAccess: null, groupAccess: null, level: REPORTER })
    assert.equal(await groupAccessFor(t.ctx.db, user.user.id, child.id), DEVELOPER)

    const visible = await visibleProjectIds(user.actor)
    assert.ok(visible.includes(inChild.id) && visible.includes(shared.id))
    const groups = await visibleGroupIds(user.actor)
    assert.ok(groups.includes(top.id) && groups.includes(child.id) && groups.includes(other.id))
    assert.ok(!groups.includes(elsewhere.id))
  })

  it('ignores expired memberships and counts direct ones as project_access', async () => {
    const user = await makeUser(t)
    const project = await makeProject(t, null)
    const expired = await makeProject(t, null)
    await makeMember(t, { type: 'project', id: project.id }, user, GUEST)
    await makeMember(t, { type: 'project', id: expired.id }, user, MAINTAINER, '2000-01-01')
    const access = await projectAccessFor(t.ctx.db, user.user.id, [project.id, expired.id])
    assert.deepEqual(access.get(project.id), { projectAccess: GUEST, groupAccess: null, level: GUEST })
    assert.equal(access.get(expired.id), undefined)
    const visible = await visibleProjectIds(user.actor)
    assert.ok(visible.includes(project.id))
    assert.ok(!visible.includes(expired.id))
  })

  it('shows anonymous callers public projects, users internal ones, admins everything', async () => {
    const owner = await makeUser(t)
    const pub = await makeProject(t, owner, { visibility: 'public' })
    const internal = await makeProject(t, owner, { visibility: 'internal' })
    const priv = await makeProject(t, owner, { visibility: 'private' })
    const anonymous = await visibleProjectIds(null)
    assert.ok(anonymous.includes(pub.id) && !anonymous.includes(internal.id) && !anonymous.includes(priv.id))
    const stranger = await makeUser(t)
    const seen = await visibleProjectIds(stranger.actor)
    assert.ok(seen.includes(pub.id) && seen.includes(internal.id) && !seen.includes(priv.id))
    const external = await makeUser(t, { external: true })
    const seenByExternal = await visibleProjectIds(external.actor)
    assert.ok(seenByExternal.includes(pub.id) && !seenByExternal.includes(internal.id))
    const ownerSees = await visibleProjectIds(owner.actor)
    assert.ok(ownerSees.includes(priv.id))
    const creator = await projectAccessFor(t.ctx.db, owner.user.id, [priv.id])
    assert.equal(creator.get(priv.id)?.projectAccess, MAINTAINER)
    const groupOwner = await makeUser(t)
    const group = await makeGroup(t, {}, groupOwner)
    assert.equal(await groupAccessFor(t.ctx.db, groupOwner.user.id, group.id), OWNER)
  })
})
