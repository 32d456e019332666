// GET /projects/:id: who may read a project (404, never 403, for those who may not), by id or
// URL-encoded path, and the exact forms: simple for anonymous callers, full with permissions for
// signed-in ones, runners_token and import_error for those who administer it, statistics and custom
// attributes on request.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, EXTERNAL_URL, type TestApp } from '../helpers/app.js'
import { makeGroup, makeMember, makeProject, makeUser } from '../helpers/factories.js'
import { ADMIN_FIELDS, FULL_FIELDS, fields, keysOf, setProjectAttribute, setProjectColumns, shareWith } from '../helpers/projects.js'
import { expectStatuses, makeMatrix } from '../shared/permission-matrix.js'
import { GUEST, MAINTAINER, REPORTER } from '../../src/policies/access-levels.js'

describe('GET /projects/:id', () => {
  let t: TestApp
  before(async () => { t = await buildTestApp() })
  after(async () => { await t.close() })

  const get = (id: string | number, token: string | null, query: Record<string, string | boolean> = {}) =>
    t.api('GET', `/projects/${id}`, { token, query })

  it('hides a private project from everyone but its members and admins', async () => {
    const m = await makeMatrix(t, 'private')
    await expectStatuses(m, (token) => get(m.project.id, token), {
      anonymous: 404, nonMember: 404, guest: 200, reporter: 200, developer: 200, maintainer: 200, owner: 200,
      admin: 200, external: 404, blocked: 403,
    })
    const res = await get(m.project.id, m.tokens.nonMember)
    assert.deepEqual(res.body, { message: '404 Project Not Found' })
  })

  it('shows an internal project to every signed-in user but external ones', async () => {
    const m = await makeMatrix(t, 'internal')
    await expectStatuses(m, (token) => get(m.project.id, token), {
      anonymous: 404, nonMember: 200, guest: 200, admin: 200, external: 404, blocked: 403,
    })
  })

  it('shows a public project to everyone', async () => {
    const m = await makeMatrix(t, 'public')
    await expectStatuses(m, (token) => get(m.project.id, token), {
      anonymous: 200, nonMember: 200, guest: 200, maintainer: 200, admin: 200, external: 200, blocked: 403,
    })
  })

  it('answers 404 for an unknown id or path', async () => {
    for (const id of ['999999', encodeURIComponent('nobody/nothing'), 'no-slash']) {
      const res = await get(id, t.root.token)
      assert.equal(res.status, 404)
      assert.deepEqual(res.body, { message: '404 Project Not Found' })
    }
  })

  it('finds a project by its URL-encoded full path, case-insensitively', async () => {
    const owner = await makeUser(t)
    const group = await makeGroup(t, { visibility: 'public' }, owner)
    const project = await makeProject(t, owner, { namespace: group, path: 'Mixed-Case', visibility: 'public' })
    const res = await get(encodeURIComponent(`${group.path.toUpperCase()}/mixed-case`), null)
    assert.equal(res.status, 200)
    assert.equal(res.body.id, project.id)
    const byPlainSlash = await t.api('GET', `/projects/${group.path}/mixed-case`, { token: null })
    assert.equal(byPlainSlash.status, 404)
  })

  it('presents the simple form, exactly, to anonymous callers', async () => {
    const owner = await makeUser(t)
    const project = await makeProject(t, owner, {
      name: 'Open Thing', path: 'open-thing', visibility: 'public', description: 'about', tag_list: ['zeta', 'alpha'],
    })
    const res = await get(project.id, null, { statistics: true })
    assert.equal(res.status, 200)
    assert.equal(res.headers['content-type'], 'application/json')
    const path = `${owner.user.username}/open-thing`
    assert.deepEqual(res.body, {
      id: project.id,
      description: 'about',
      name: 'Open Thing',
      name_with_namespace: `${owner.user.name} / Open Thing`,
      path: 'open-thing',
      path_with_namespace: path,
      created_at: new Date(project.created_at).toISOString(),
      default_branch: null,
      tag_list: ['alpha', 'zeta'],
      ssh_url_to_repo: `ssh://git@ingot.test:2222/${path}.git`,
      http_url_to_repo: `${EXTERNAL_URL}/${path}.git`,
      web_url: `${EXTERNAL_URL}/${path}`,
      readme_url: null,
      avatar_url: null,
      star_count: 0,
      forks_count: 0,
      last_activity_at: new Date(project.last_activity_at).toISOString(),
    })
  })

  it('presents the full form with permissions, and the admin fields to those who administer it', async () => {
    const owner = await makeUser(t)
    const project = await makeProject(t, owner, { name: 'Own Thing', path: 'own-thing', visibility: 'internal', ci_config_path: 'ci/pipeline.yml' })
    const res = await get(project.id, owner.token)
    assert.equal(res.status, 200)
    assert.deepEqual(keysOf(res.body), fields(FULL_FIELDS, ADMIN_FIELDS, ['owner', 'permissions']))
    const self = `${EXTERNAL_URL}/api/v4/projects/${project.id}`
    const { body } = res
    assert.deepEqual(body.owner, {
      id: owner.user.id, name: owner.user.name, username: owner.user.username, state: 'active', avatar_url: null,
      web_url: `${EXTERNAL_URL}/${owner.user.username}`, created_at: new Date(owner.user.created_at).toISOString(),
    })
    assert.deepEqual(body.namespace, {
      id: project.namespace_id, name: owner.user.username, path: owner.user.username, kind: 'user',
      full_path: owner.user.username, parent_id: null,
    })
    assert.deepEqual(body._links, {
      self, issues: `${self}/issues`, merge_requests: `${self}/merge_requests`, repo_branches: `${self}/repository/branches`,
      labels: `${self}/labels`, events: `${self}/events`, members: `${self}/members`,
    })
    assert.deepEqual(body.permissions, { project_access: { access_level: MAINTAINER, notification_level: 3 }, group_access: null })
    assert.equal(body.visibility, 'internal')
    assert.equal(body.creator_id, owner.user.id)
    assert.equal(body.runners_token, project.runners_token)
    assert.equal(body.import_error, null)
    assert.equal(body.import_status, 'none')
    assert.equal(body.open_issues_count, 0)
    assert.equal(body.merge_method, 'merge')
    assert.equal(body.ci_config_path, 'ci/pipeline.yml')
    assert.deepEqual(
      [body.archived, body.issues_enabled, body.merge_requests_enabled, body.wiki_enabled, body.jobs_enabled, body.snippets_enabled,
        body.container_registry_enabled, body.shared_runners_enabled, body.lfs_enabled, body.public_jobs, body.request_access_enabled,
        body.resolve_outdated_diff_discussions, body.only_allow_merge_if_pipeline_succeeds,
        body.only_allow_merge_if_all_discussions_are_resolved, body.printing_merge_request_link_enabled],
      [false, true, true, true, true, true, true, true, true, true, false, false, false, false, true],
    )
    const reader = await makeUser(t)
    const asReader = await get(project.id, reader.token)
    assert.deepEqual(keysOf(asReader.body), fields(FULL_FIELDS, ['owner', 'permissions']))
    assert.deepEqual(asReader.body.permissions, { project_access: null, group_access: null })
    const asAdmin = await get(project.id, t.root.token)
    assert.equal(asAdmin.body.runners_token, project.runners_token)
  })

  it('shows group access for group projects, no owner, and the groups the project is shared with', async () => {
    const m = await makeMatrix(t, 'private')
    const partner = await makeGroup(t, { name: 'Partner Group' })
    await shareWith(t, m.project.id, partner.id, REPORTER, '2999-01-01')
    const asOwner = await get(m.project.id, m.tokens.owner)
    assert.ok(!('owner' in asOwner.body))
    assert.deepEqual(asOwner.body.permissions, { project_access: null, group_access: { access_level: 50, notification_level: 3 } })
    assert.deepEqual(asOwner.body.shared_with_groups, [{ group_id: partner.id, group_name: 'Partner Group', group_access_level: REPORTER, expires_at: '2999-01-01' }])
    assert.ok('runners_token' in asOwner.body)
    const asGuest = await get(m.project.id, m.tokens.guest)
    assert.deepEqual(asGuest.body.permissions, { project_access: { access_level: GUEST, notification_level: 3 }, group_access: null })
    assert.ok(!('runners_token' in asGuest.body) && !('import_error' in asGuest.body))
    const asDeveloper = await get(m.project.id, m.tokens.developer)
    assert.ok(!('runners_token' in asDeveloper.body))
    const asMaintainer = await get(m.project.id, m.tokens.maintainer)
    assert.ok('runners_token' in asMaintainer.body)
  })

  it('leaves out the issue links and count when issues are disabled', async () => {
    const owner = await makeUser(t)
    const project = await makeProject(t, owner, { issues_enabled: false, merge_requests_enabled: false })
    const res = await get(project.id, owner.token)
    assert.ok(!('open_issues_count' in res.body))
    assert.deepEqual(Object.keys(res.body._links).sort(), ['events', 'labels', 'members', 'repo_branches', 'self'])
    assert.equal(res.body.issues_enabled, false)
    await setProjectColumns(t, project.id, { issues_enabled: 1 })
    assert.equal((await get(project.id, owner.token)).body.open_issues_count, 0)
  })

  it('includes statistics on request for Reporters and above', async () => {
    const m = await makeMatrix(t, 'private')
    await t.ctx.db.updateTable('project_statistics').set({ commit_count: 3, storage_size: 10, repository_size: 8, lfs_objects_size: 2 })
      .where('project_id', '=', m.project.id).execute()
    const expected = { commit_count: 3, storage_size: 10, repository_size: 8, lfs_objects_size: 2, job_artifacts_size: 0 }
    for (const persona of ['reporter', 'maintainer', 'admin'] as const) {
      assert.deepEqual((await get(m.project.id, m.tokens[persona], { statistics: true })).body.statistics, expected, persona)
    }
    assert.ok(!('statistics' in (await get(m.project.id, m.tokens.guest, { statistics: true })).body))
    assert.ok(!('statistics' in (await get(m.project.id, m.tokens.reporter)).body))
  })

  it('shows custom attributes to admins who ask', async () => {
    const owner = await makeUser(t)
    const project = await makeProject(t, owner, { visibility: 'public' })
    await setProjectAttribute(t, project.id, 'b-key', '2')
    await setProjectAttribute(t, project.id, 'a-key', '1')
    const admin = await get(project.id, t.root.token, { with_custom_attributes: true })
    assert.deepEqual(admin.body.custom_attributes, [{ key: 'a-key', value: '1' }, { key: 'b-key', value: '2' }])
    assert.ok(!('custom_attributes' in (await get(project.id, t.root.token)).body))
    assert.ok(!('custom_attributes' in (await get(project.id, owner.token, { with_custom_attributes: true })).body))
    assert.ok(!('custom_attributes' in (await get(project.id, null, { with_custom_attributes: true })).body))
  })

  it('answers 401 for an invalid token and 400 for invalid parameters', async () => {
    const owner = await makeUser(t)
    const project = await makeProject(t, owner, { visibility: 'public' })
    const unauthorized = await get(project.id, 'not-a-valid-token-0000')
    assert.equal(unauthorized.status, 401)
    assert.deepEqual(unauthorized.body, { message: '401 Unauthorized' })
    const invalid = await get(project.id, owner.token, { statistics: 'sometimes' })
    assert.equal(invalid.status, 400)
    assert.deepEqual(invalid.body, { error: 'statistics is invalid' })
  })

  it('lets a shared group\'s members read a private project, at most at the share\'s level', async () => {
    const owner = await makeUser(t)
    const project = await makeProject(t, owner)
    const team = await makeGroup(t)
    const teammate = await makeUser(t)
    await makeMember(t, { type: 'group', id: team.id }, teammate, MAINTAINER)
    assert.equal((await get(project.id, teammate.token)).status, 404)
    await shareWith(t, project.id, team.id, REPORTER)
    const res = await get(project.id, teammate.token, { statistics: true })
    assert.equal(res.status, 200)
    assert.deepEqual(res.body.permissions, { project_access: null, group_access: null })
    assert.ok('statistics' in res.body)
    assert.ok(!('runners_token' in res.body))
  })
})
