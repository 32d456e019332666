// @gitbeaker/rest against a real Ingot socket: projects (list with filters and page following, a
// user's projects, one project by id and by path, create, create for a user, edit, remove, star,
// archive, share with a group) and project custom attributes.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { expectStatus, startCompatServer, untypedParams, type Client, type CompatServer } from './server.js'
import { makeGroup, makeMember, makeProject, makeUser, uniqueName, type TestUser } from '../helpers/factories.js'
import type { ProjectRow } from '../../src/db/schema.js'
import { DEVELOPER, MAINTAINER, REPORTER } from '../../src/policies/access-levels.js'

const idsOf = (list: readonly { id: number }[]) => list.map((item) => item.id)
const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b)

/** The simple form's fields (anonymous callers and `simple: true`). */
const SIMPLE_FIELDS = [
  'avatar_url', 'created_at', 'default_branch', 'description', 'forks_count', 'http_url_to_repo', 'id', 'last_activity_at',
  'name', 'name_with_namespace', 'path', 'path_with_namespace', 'readme_url', 'ssh_url_to_repo', 'star_count', 'tag_list',
  'web_url',
]

describe('compat: projects', () => {
  let server: CompatServer
  let root: Client
  let owner: TestUser
  let asOwner: Client
  let developer: TestUser
  let asDeveloper: Client
  let stranger: TestUser
  let asStranger: Client
  /** owner's private project, where developer is a Developer. */
  let secret: ProjectRow
  /** owner's public project. */
  let open: ProjectRow

  before(async () => {
    server = await startCompatServer()
    root = server.client()
    owner = await makeUser(server.t, { username: uniqueName('Owner') })
    asOwner = server.client(owner.token)
    developer = await makeUser(server.t)
    asDeveloper = server.client(developer.token)
    stranger = await makeUser(server.t)
    asStranger = server.client(stranger.token)
    secret = await makeProject(server.t, owner, { path: uniqueName('secret'), visibility: 'private' })
    open = await makeProject(server.t, owner, { path: uniqueName('open'), visibility: 'public' })
    await makeMember(server.t, { type: 'project', id: secret.id }, developer, DEVELOPER)
  })
  after(async () => { await server.close() })

  describe('Projects.create', () => {
    it('creates a project in the personal namespace with 201 and the full form', async () => {
      const response = await asOwner.Projects.create({
        name: 'Made By Client', description: 'from gitbeaker', visibility: 'internal', mergeMethod: 'ff', showExpanded: true,
        ...untypedParams({ issuesEnabled: false, tagList: ['compat', 'client'] }),
      })
      assert.equal(response.status, 201)
      const project = response.data
      assert.equal(project.name, 'Made By Client')
      assert.equal(project.path, 'made-by-client')
      assert.equal(project.path_with_namespace, `${owner.user.username}/made-by-client`)
      assert.equal(project.description, 'from gitbeaker')
      assert.equal(project.visibility, 'internal')
      assert.equal(project.issues_enabled, false)
      assert.deepEqual(project.tag_list, ['client', 'compat'])
      assert.equal(project.merge_method, 'ff')
      assert.equal(project.creator_id, owner.user.id)
      assert.deepEqual(project.namespace.kind, 'user')
      assert.equal(project.web_url, `${server.url}/${owner.user.username}/made-by-client`)
      assert.equal(project.http_url_to_repo, `${server.url}/${owner.user.username}/made-by-client.git`)
      assert.equal(project.archived, false)
      assert.equal(project.empty_repo, true)
      const withReadme = await asOwner.Projects.create({ name: 'Made With Readme', initializeWithReadme: true })
      assert.equal(withReadme.empty_repo, false)
      assert.equal((await asOwner.Projects.show(withReadme.id)).empty_repo, false)
    })

    it('creates in a group by namespace id or path', async () => {
      const group = await makeGroup(server.t, {}, owner)
      const byId = await asOwner.Projects.create({ name: 'In Group', namespaceId: group.id })
      assert.equal(byId.path_with_namespace, `${group.full_path}/in-group`)
      assert.equal(byId.namespace.id, group.id)
      const byPath = await asOwner.Projects.create({ path: 'by-path', namespaceId: group.full_path as unknown as number })
      assert.equal(byPath.name, 'by-path')
      assert.equal(byPath.namespace.id, group.id)
    })

    it('answers 400 for a missing name and path or a taken one, 401 anonymously', async () => {
      assert.equal(await expectStatus(asOwner.Projects.create({ description: 'nameless' } as never), 400),
        'name, path are missing, at least one parameter must be provided')
      const taken = await expectStatus(asOwner.Projects.create({ name: 'Taken', path: open.path }), 400)
      assert.match(taken, /has already been taken/)
      await expectStatus(server.client(null).Projects.create({ name: 'anonymous' }), 401)
    })

    it('creates a project for another user, as administrators only', async () => {
      const response = await root.Projects.create({ userId: developer.user.id, name: 'For Dev', showExpanded: true })
      assert.equal(response.status, 201)
      assert.equal(response.data.path_with_namespace, `${developer.user.username}/for-dev`)
      assert.equal(response.data.creator_id, developer.user.id)
      assert.equal(response.data.owner?.id, developer.user.id)
      await expectStatus(asOwner.Projects.create({ userId: developer.user.id, name: 'Nope' }), 403)
      await expectStatus(root.Projects.create({ userId: 999999, name: 'Nobody' }), 404)
    })
  })

  describe('Projects.show', () => {
    it('shows a project by id and by its URL-encoded path, with permissions', async () => {
      const byId = await asDeveloper.Projects.show(secret.id)
      const byPath = await asDeveloper.Projects.show(`${owner.user.username}/${secret.path}`)
      assert.equal(byPath.id, secret.id)
      assert.deepEqual(byId, byPath)
      assert.equal(byId.visibility, 'private')
      const permissions = byId.permissions as { project_access: { access_level: number } | null; group_access: unknown }
      assert.equal(permissions.project_access?.access_level, DEVELOPER)
      assert.equal(permissions.group_access, null)
      assert.equal('runners_token' in byId, false)
      assert.equal(typeof (await asOwner.Projects.show(secret.id)).runners_token, 'string')
    })

    it('adds statistics and custom attributes on request, and gives anonymous callers the simple form', async () => {
      await root.ProjectCustomAttributes.set(open.id, 'kind', 'library')
      const shown = await root.Projects.show(open.id, { statistics: true, ...untypedParams({ withCustomAttributes: true }) })
      assert.deepEqual(Object.keys(shown.statistics as object).sort(),
        ['commit_count', 'job_artifacts_size', 'lfs_objects_size', 'repository_size', 'storage_size'])
      assert.deepEqual((shown as { custom_attributes?: unknown }).custom_attributes, [{ key: 'kind', value: 'library' }])
      const anonymous = await server.client(null).Projects.show(open.id)
      assert.deepEqual(Object.keys(anonymous).sort(), SIMPLE_FIELDS)
    })

    it('answers 404 for a private project the caller may not see', async () => {
      assert.equal(await expectStatus(asStranger.Projects.show(secret.id), 404), '404 Project Not Found')
      await expectStatus(server.client(null).Projects.show(`${owner.user.username}/${secret.path}`), 404)
    })
  })

  describe('Projects.all and Users.allProjects', () => {
    it('lists visible projects with filters', async () => {
      const visible = idsOf(await asStranger.Projects.all())
      assert.ok(visible.includes(open.id) && !visible.includes(secret.id))
      assert.ok(idsOf(await asDeveloper.Projects.all({ membership: true })).includes(secret.id))
      assert.ok(!idsOf(await asDeveloper.Projects.all({ membership: true })).includes(open.id))
      assert.deepEqual(sorted(idsOf(await asOwner.Projects.all({ owned: true, search: 'secret' }))), [secret.id])
      assert.deepEqual(idsOf(await asOwner.Projects.all({ owned: true, visibility: 'public' })).includes(open.id), true)
      assert.ok(!idsOf(await asOwner.Projects.all({ owned: true, visibility: 'private' })).includes(open.id))
      assert.ok(!idsOf(await asDeveloper.Projects.all({ minAccessLevel: MAINTAINER })).includes(secret.id))
      assert.ok(idsOf(await asDeveloper.Projects.all({ minAccessLevel: REPORTER })).includes(secret.id))
      assert.ok(idsOf(await asOwner.Projects.all({ withIssuesEnabled: true, owned: true })).includes(secret.id))

      // Lower-case names only: how capitals sort is the database's collation.
      const byName = (await asOwner.Projects.all({ owned: true, orderBy: 'name', sort: 'desc' })).map((p) => p.name)
        .filter((name) => name === name.toLowerCase())
      assert.ok(byName.length >= 2)
      assert.deepEqual(byName, [...byName].sort().reverse())
      const simple = await asOwner.Projects.all({ owned: true, simple: true })
      assert.deepEqual(Object.keys(simple[0]!).sort(), SIMPLE_FIELDS)
      const full = await asOwner.Projects.all({ owned: true, perPage: 1, maxPages: 1 })
      assert.ok('permissions' in full[0]!)
      const [withStatistics] = await asOwner.Projects.all({ owned: true, statistics: true, perPage: 1, maxPages: 1 })
      assert.equal(typeof (withStatistics!.statistics as { commit_count: number }).commit_count, 'number')
    })

    it('filters by archived state and by custom attributes', async () => {
      const archived = await makeProject(server.t, owner, { path: uniqueName('old') })
      await asOwner.Projects.archive(archived.id)
      assert.ok(idsOf(await asOwner.Projects.all({ owned: true, archived: true })).includes(archived.id))
      assert.ok(!idsOf(await asOwner.Projects.all({ owned: true, archived: false })).includes(archived.id))

      await root.ProjectCustomAttributes.set(archived.id, 'lifecycle', 'retired')
      const tagged = await root.Projects.all({ withCustomAttributes: true, ...untypedParams({ customAttributes: { lifecycle: 'retired' } }) })
      assert.deepEqual(idsOf(tagged), [archived.id])
    })

    it('follows the pages of the project list', async () => {
      for (let i = 0; i < 3; i += 1) await makeProject(server.t, stranger, { path: uniqueName('many') })
      const every = idsOf(await asStranger.Projects.all({ owned: true, orderBy: 'id', sort: 'asc' }))
      assert.equal(every.length, 3)
      assert.deepEqual(idsOf(await asStranger.Projects.all({ owned: true, orderBy: 'id', sort: 'asc', perPage: 1 })), every)
      const expanded = await asStranger.Projects.all<true, 'offset'>({ owned: true, orderBy: 'id', sort: 'asc', perPage: 2, showExpanded: true })
      assert.deepEqual(idsOf(expanded.data), every)
      assert.deepEqual([expanded.paginationInfo.total, expanded.paginationInfo.totalPages, expanded.paginationInfo.current], [3, 2, 2])
    })

    it("lists a user's personal projects by id or username", async () => {
      const mine = sorted(idsOf(await asOwner.Users.allProjects(owner.user.id)))
      assert.ok(mine.includes(secret.id) && mine.includes(open.id))
      assert.deepEqual(sorted(idsOf(await asOwner.Users.allProjects(owner.user.username))), mine)
      assert.deepEqual(sorted(idsOf(await asOwner.Projects.all({ userId: String(owner.user.id) }))), mine)
      const seenByStranger = idsOf(await asStranger.Users.allProjects(owner.user.id))
      assert.ok(seenByStranger.includes(open.id) && !seenByStranger.includes(secret.id))
      assert.deepEqual(idsOf(await server.client(null).Users.allProjects(owner.user.username, { search: open.path })), [open.id])
      await expectStatus(asOwner.Users.allProjects('no-such-user-anywhere'), 404)
    })
  })

  describe('Projects.edit and remove', () => {
    it('edits settings for those who administer the project', async () => {
      const project = await makeProject(server.t, owner, { path: uniqueName('editable') })
      await makeMember(server.t, { type: 'project', id: project.id }, developer, DEVELOPER)
      const edited = await asOwner.Projects.edit(project.id, {
        name: 'Renamed', path: 'renamed-path', description: 'edited', visibility: 'public', defaultBranch: 'main',
        onlyAllowMergeIfPipelineSucceeds: true, ...untypedParams({ issuesEnabled: false, wikiEnabled: false, tagList: ['one'] }),
      })
      assert.deepEqual(
        [edited.name, edited.path, edited.description, edited.issues_enabled, edited.wiki_enabled, edited.visibility, edited.tag_list],
        ['Renamed', 'renamed-path', 'edited', false, false, 'public', ['one']],
      )
      assert.equal(edited.only_allow_merge_if_pipeline_succeeds, true)
      assert.equal((await asOwner.Projects.show(`${owner.user.username}/renamed-path`)).id, project.id)

      await expectStatus(asDeveloper.Projects.edit(project.id, { description: 'no' }), 403)
      await expectStatus(asStranger.Projects.edit(secret.id, { description: 'no' }), 404)
      assert.match(await expectStatus(asOwner.Projects.edit(project.id, {}), 400), /at least one parameter must be provided/)
    })

    it('removes a project with 202 for its owner', async () => {
      const project = await makeProject(server.t, owner, { path: uniqueName('doomed') })
      await makeMember(server.t, { type: 'project', id: project.id }, developer, MAINTAINER)
      await expectStatus(asDeveloper.Projects.remove(project.id), 403)
      const response = await asOwner.Projects.remove(project.id, { showExpanded: true })
      assert.deepEqual([response.status, response.data], [202, { message: '202 Accepted' }])
      await expectStatus(asOwner.Projects.show(project.id), 404)
      await expectStatus(asStranger.Projects.remove(secret.id), 404)
    })
  })

  describe('Projects.star and unstar', () => {
    it('stars and unstars with 201, 304 when nothing changes, and the starred filter follows', async () => {
      const starred = await asStranger.Projects.star(open.id, { showExpanded: true })
      assert.equal(starred.status, 201)
      assert.equal(starred.data.star_count, 1)
      assert.ok(idsOf(await asStranger.Projects.all({ starred: true })).includes(open.id))
      await expectStatus(asStranger.Projects.star(open.id), 304)

      assert.equal((await asStranger.Projects.unstar(open.id)).star_count, 0)
      assert.deepEqual(await asStranger.Projects.all({ starred: true }), [])
      await expectStatus(asStranger.Projects.unstar(open.id), 304)
      await expectStatus(asStranger.Projects.star(secret.id), 404)
      await expectStatus(server.client(null).Projects.star(open.id), 401)
    })
  })

  describe('Projects.archive and unarchive', () => {
    it('archives and unarchives with 201 for the owner, 403 for a developer', async () => {
      const project = await makeProject(server.t, owner, { path: uniqueName('shelf') })
      await makeMember(server.t, { type: 'project', id: project.id }, developer, DEVELOPER)
      const archived = await asOwner.Projects.archive(project.id, { showExpanded: true })
      assert.deepEqual([archived.status, archived.data.archived], [201, true])
      assert.equal((await asOwner.Projects.show(project.id)).archived, true)
      assert.equal((await asOwner.Projects.unarchive(project.id)).archived, false)
      await expectStatus(asDeveloper.Projects.archive(project.id), 403)
      await expectStatus(asDeveloper.Projects.unarchive(project.id), 403)
    })
  })

  describe('Projects.share and unshare', () => {
    it('shares with a group, shows the share, refuses duplicates, and unshares with 204', async () => {
      const project = await makeProject(server.t, owner, { path: uniqueName('shared') })
      const group = await makeGroup(server.t, { visibility: 'private' }, owner)
      const response = await asOwner.Projects.share(project.id, group.id, DEVELOPER, { expiresAt: '2099-06-30', showExpanded: true })
      assert.equal(response.status, 201)
      const link = response.data as unknown as { id: number }
      assert.deepEqual(link, { id: link.id, project_id: project.id, group_id: group.id, group_access: DEVELOPER, expires_at: '2099-06-30' })

      const shown = await asOwner.Projects.show(project.id)
      assert.deepEqual(shown.shared_with_groups, [
        { group_id: group.id, group_name: group.name, group_access_level: DEVELOPER, expires_at: '2099-06-30' },
      ])
      assert.equal(await expectStatus(asOwner.Projects.share(project.id, group.id, DEVELOPER), 409), 'Group already shared with this group')
      await expectStatus(asOwner.Projects.share(project.id, group.id, 99 as never), 400)
      await expectStatus(asStranger.Projects.share(open.id, group.id, DEVELOPER), 403)

      const unshared = await asOwner.Projects.unshare(project.id, group.id, { showExpanded: true })
      assert.deepEqual([unshared.status, unshared.data], [204, null])
      assert.deepEqual((await asOwner.Projects.show(project.id)).shared_with_groups, [])
      await expectStatus(asOwner.Projects.unshare(project.id, group.id), 404)
    })
  })

  describe('ProjectCustomAttributes', () => {
    it('sets, lists, shows and removes attributes by id or path, for administrators only', async () => {
      const path = `${owner.user.username}/${secret.path}`
      assert.deepEqual(await root.ProjectCustomAttributes.set(path, 'cost_center', '42'), { key: 'cost_center', value: '42' })
      assert.deepEqual(await root.ProjectCustomAttributes.all(secret.id), [{ key: 'cost_center', value: '42' }])
      assert.deepEqual(await root.ProjectCustomAttributes.show(path, 'cost_center'), { key: 'cost_center', value: '42' })
      await expectStatus(asOwner.ProjectCustomAttributes.set(secret.id, 'cost_center', '1'), 403)
      await expectStatus(asStranger.ProjectCustomAttributes.all(secret.id), 404)
      assert.equal(await root.ProjectCustomAttributes.remove(secret.id, 'cost_center'), null)
      assert.deepEqual(await root.ProjectCustomAttributes.all(secret.id), [])
    })
  })
})
