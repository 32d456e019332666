// Project writes: POST /projects, POST /projects/user/:user_id, PUT /projects/:id and
// DELETE /projects/:id — who may, the rules a name, path, namespace, visibility and default branch
// follow, the answers, and what the database and repository storage hold afterwards.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeGroup, makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { ADMIN_FIELDS, FULL_FIELDS, fields, keysOf, setProjectAttribute, shareWith } from '../helpers/projects.js'
import { expectStatuses, makeMatrix, type Persona } from '../shared/permission-matrix.js'
import { DEVELOPER, MAINTAINER, REPORTER } from '../../src/policies/access-levels.js'
import { runGit } from '../../src/git/command.js'

describe('project writes', () => {
  let t: TestApp
  before(async () => { t = await buildTestApp() })
  after(async () => { await t.close() })

  const projectRow = (id: number) => t.ctx.db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirst()
  const repositoryExists = (id: number) => fs.existsSync(t.ctx.repositories.repositoryPath(id))

  describe('POST /projects', () => {
    const create = (token: string | null, body?: unknown) => t.api('POST', '/projects', { token, body })

    it('creates a project in the caller\'s namespace, path from the name, with its repository', async () => {
      const user = await makeUser(t)
      const res = await create(user.token, { name: 'My Great Project' })
      assert.equal(res.status, 201)
      assert.equal(res.headers['content-type'], 'application/json')
      assert.deepEqual(keysOf(res.body), fields(FULL_FIELDS, ADMIN_FIELDS, ['owner']))
      assert.equal(res.body.name, 'My Great Project')
      assert.equal(res.body.path, 'my-great-project')
      assert.equal(res.body.path_with_namespace, `${user.user.username}/my-great-project`)
      assert.equal(res.body.visibility, 'private')
      assert.equal(res.body.creator_id, user.user.id)
      assert.equal(res.body.namespace.kind, 'user')
      assert.equal(res.body.owner.id, user.user.id)
      assert.equal(res.body.description, null)
      assert.equal(res.body.default_branch, null)
      assert.equal(typeof res.body.runners_token, 'string')
      const id: number = res.body.id
      assert.ok(repositoryExists(id))
      const member = await t.ctx.db.selectFrom('members').selectAll()
        .where('source_type', '=', 'project').where('source_id', '=', id).executeTakeFirstOrThrow()
      assert.deepEqual([member.user_id, member.access_level], [user.user.id, MAINTAINER])
      const event = await t.ctx.db.selectFrom('events').selectAll().where('project_id', '=', id).executeTakeFirstOrThrow()
      assert.deepEqual([event.action, event.author_id], ['created', user.user.id])
      assert.ok(await t.ctx.db.selectFrom('project_statistics').select('project_id').where('project_id', '=', id).executeTakeFirst())
    })

    it('takes the name from the path when only the path is given', async () => {
      const user = await makeUser(t)
      const res = await create(user.token, { path: 'only-a-path' })
      assert.equal(res.status, 201)
      assert.deepEqual([res.body.name, res.body.path], ['only-a-path', 'only-a-path'])
    })

    it('applies every setting given, from JSON or a form', async () => {
      const user = await makeUser(t)
      const res = await create(user.token, {
        name: 'Configured', path: 'configured', description: 'all set', visibility: 'public',
        issues_enabled: false, merge_requests_enabled: false, wiki_enabled: false, jobs_enabled: false, snippets_enabled: false,
        container_registry_enabled: false, shared_runners_enabled: false, lfs_enabled: false, public_builds: false,
        request_access_enabled: true, resolve_outdated_diff_discussions: true, only_allow_merge_if_pipeline_succeeds: true,
        only_allow_merge_if_all_discussions_are_resolved: true, printing_merge_request_link_enabled: false,
        merge_method: 'ff', tag_list: ['web', ' api ', 'web', ''], ci_config_path: 'build/ci.yml', default_branch: 'trunk',
      })
      assert.equal(res.status, 201, res.text)
      const b = res.body
      assert.deepEqual(
        [b.description, b.visibility, b.issues_enabled, b.merge_requests_enabled, b.wiki_enabled, b.jobs_enabled, b.snippets_enabled,
          b.container_registry_enabled, b.shared_runners_enabled, b.lfs_enabled, b.public_jobs, b.request_access_enabled,
          b.resolve_outdated_diff_discussions, b.only_allow_merge_if_pipeline_succeeds, b.only_allow_merge_if_all_discussions_are_resolved,
          b.printing_merge_request_link_enabled, b.merge_method, b.tag_list, b.ci_config_path, b.default_branch],
        ['all set', 'public', false, false, false, false, false, false, false, false, false, true, true, true, true, false, 'ff',
          ['api', 'web'], 'build/ci.yml', 'trunk'],
      )
      assert.ok(!('open_issues_count' in b) && !('issues' in b._links))
      const head = await runGit(['symbolic-ref', 'HEAD'], { gitDir: t.ctx.repositories.repositoryPath(b.id) })
      assert.equal(head.trim(), 'refs/heads/trunk')

      const form = await t.api('POST', '/projects', {
        token: user.token, form: 'name=Form+Made&visibility=internal&tag_list[]=one&tag_list[]=two&wiki_enabled=false&public_jobs=false',
      })
      assert.equal(form.status, 201, form.text)
      assert.deepEqual([form.body.path, form.body.visibility, form.body.tag_list, form.body.wiki_enabled, form.body.public_jobs],
        ['form-made', 'internal', ['one', 'two'], false, false])
    })

    it('creates in a group the caller is a Maintainer of, by id or full path', async () => {
      const user = await makeUser(t)
      const group = await makeGroup(t, { visibility: 'internal' })
      await makeMember(t, { type: 'group', id: group.id }, user, MAINTAINER)
      const byId = await create(user.token, { name: 'In Group', namespace_id: group.id, visibility: 'internal' })
      assert.equal(byId.status, 201, byId.text)
      assert.deepEqual(byId.body.namespace, { id: group.id, name: group.name, path: group.path, kind: 'group', full_path: group.full_path, parent_id: null })
      assert.ok(!('owner' in byId.body))
      assert.equal(byId.body.visibility, 'internal')
      const byPath = await create(user.token, { name: 'By Path', namespace_id: group.full_path.toUpperCase() })
      assert.equal(byPath.status, 201, byPath.text)
      assert.equal(byPath.body.namespace.id, group.id)
      assert.equal(byPath.body.creator_id, user.user.id)
    })

    it('refuses namespaces the caller may not create projects in, as the original: namespace is not valid', async () => {
      const user = await makeUser(t)
      const other = await makeUser(t)
      const group = await makeGroup(t, { visibility: 'public' })
      await makeMember(t, { type: 'group', id: group.id }, user, DEVELOPER)
      const hidden = await makeGroup(t, { visibility: 'private' })
      const otherNamespace = await t.ctx.db.selectFrom('namespaces').select('id').where('owner_id', '=', other.user.id).executeTakeFirstOrThrow()
      for (const namespaceId of [group.id, hidden.id, otherNamespace.id, 999999, 'no/such/path']) {
        const res = await create(user.token, { name: 'Nope', namespace_id: namespaceId })
        assert.equal(res.status, 400, String(namespaceId))
        assert.deepEqual(res.body, { message: { namespace: ['is not valid'] } })
      }
      const asAdmin = await create(t.root.token, { name: 'Placed By Admin', namespace_id: otherNamespace.id })
      assert.equal(asAdmin.status, 201)
      assert.equal(asAdmin.body.namespace.id, otherNamespace.id)
      assert.equal(asAdmin.body.creator_id, t.root.user.id)
    })

    it('answers 400 for missing and invalid parameters', async () => {
      const user = await makeUser(t)
      for (const body of [undefined, {}, { description: 'no name' }]) {
        const res = await create(user.token, body)
        assert.equal(res.status, 400)
        assert.deepEqual(res.body, { error: 'name, path are missing, at least one parameter must be provided' })
      }
      for (const [key, value] of [['visibility', 'secret'], ['merge_method', 'squash'], ['issues_enabled', 'maybe'], ['tag_list', { a: 1 }]] as const) {
        const res = await create(user.token, { name: 'Bad', [key]: value })
        assert.equal(res.status, 400, key)
        assert.deepEqual(res.body, { error: `${key} is invalid` })
      }
    })

    it('answers field errors for a taken name or path and for malformed values', async () => {
      const user = await makeUser(t)
      await create(user.token, { name: 'Taken', path: 'taken-path' })
      const taken = await create(user.token, { name: 'Taken', path: 'TAKEN-PATH' })
      assert.equal(taken.status, 400)
      assert.deepEqual(taken.body, { message: { name: ['has already been taken'], path: ['has already been taken'] } })
      const malformed = await create(user.token, { name: '-bad', path: 'bad.git', default_branch: 'bad..branch', ci_config_path: '../escape.yml' })
      assert.equal(malformed.status, 400)
      assert.deepEqual(Object.keys(malformed.body.message).sort(), ['ci_config_path', 'default_branch', 'name', 'path'])
      assert.deepEqual(malformed.body.message.ci_config_path, ['cannot include leading slash or directory traversal.'])
      assert.deepEqual(malformed.body.message.default_branch, ['is invalid'])
    })

    it('refuses the path of a subgroup of the same namespace', async () => {
      const user = await makeUser(t)
      const group = await makeGroup(t, { visibility: 'private' }, user)
      await makeGroup(t, { path: 'nested', parent: group, visibility: 'private' }, user)
      const res = await create(user.token, { name: 'Nested Clash', path: 'NESTED', namespace_id: group.id })
      assert.equal(res.status, 400)
      assert.deepEqual(res.body, { message: { path: ['has already been taken'] } })
    })

    it('refuses a visibility above the group\'s', async () => {
      const user = await makeUser(t)
      const group = await makeGroup(t, { visibility: 'private' }, user)
      const res = await create(user.token, { name: 'Too Open', namespace_id: group.id, visibility: 'public' })
      assert.equal(res.status, 400)
      assert.deepEqual(res.body, { message: { visibility_level: ['public is not allowed in a private group.'] } })
    })

    it('answers 403 with the limit messages when the personal project limit is reached', async () => {
      const none = await makeUser(t, { projects_limit: 0 })
      const refused = await create(none.token, { name: 'Not Allowed' })
      assert.equal(refused.status, 403)
      assert.deepEqual(refused.body, { message: ['Personal project creation is not allowed. Please contact your administrator with questions'] })
      const one = await makeUser(t, { projects_limit: 1 })
      assert.equal((await create(one.token, { name: 'First' })).status, 201)
      const second = await create(one.token, { name: 'Second' })
      assert.equal(second.status, 403)
      assert.deepEqual(second.body, { message: ['Your project limit is 1 projects! Please contact your administrator to increase it'] })
      const group = await makeGroup(t, {}, none)
      assert.equal((await create(none.token, { name: 'In A Group', namespace_id: group.id })).status, 201)
    })

    it('answers 401 without credentials', async () => {
      const res = await create(null, { name: 'Anonymous' })
      assert.equal(res.status, 401)
      assert.deepEqual(res.body, { message: '401 Unauthorized' })
    })
  })

  describe('POST /projects/user/:user_id', () => {
    const createFor = (userId: number | string, token: string | null, body?: unknown) =>
      t.api('POST', `/projects/user/${userId}`, { token, body })

    it('creates the project in the user\'s namespace with the user as its creator', async () => {
      const user = await makeUser(t)
      const res = await createFor(user.user.id, t.root.token, { name: 'Made For You', visibility: 'internal', description: 'gift' })
      assert.equal(res.status, 201, res.text)
      assert.deepEqual(keysOf(res.body), fields(FULL_FIELDS, ADMIN_FIELDS, ['owner']))
      assert.equal(res.body.path_with_namespace, `${user.user.username}/made-for-you`)
      assert.equal(res.body.creator_id, user.user.id)
      assert.equal(res.body.owner.id, user.user.id)
      assert.deepEqual([res.body.visibility, res.body.description], ['internal', 'gift'])
      const event = await t.ctx.db.selectFrom('events').selectAll().where('project_id', '=', res.body.id).executeTakeFirstOrThrow()
      assert.equal(event.author_id, user.user.id)
      const own = await t.api('GET', `/projects/${res.body.id}`, { token: user.token })
      assert.equal(own.body.permissions.project_access.access_level, MAINTAINER)
    })

    it('is for administrators only', async () => {
      const user = await makeUser(t)
      const res = await createFor(user.user.id, user.token, { name: 'Self Service' })
      assert.equal(res.status, 403)
      assert.deepEqual(res.body, { message: '403 Forbidden' })
      assert.equal((await createFor(user.user.id, null, { name: 'Anonymous' })).status, 401)
    })

    it('answers 404 for an unknown user and 400 for bad input', async () => {
      const missing = await createFor(999999, t.root.token, { name: 'Nobody' })
      assert.equal(missing.status, 404)
      assert.deepEqual(missing.body, { message: '404 User Not Found' })
      const user = await makeUser(t)
      const noName = await createFor(user.user.id, t.root.token, { path: 'only-path' })
      assert.equal(noName.status, 400)
      assert.deepEqual(noName.body, { error: 'name is missing' })
      const badId = await createFor('someone', t.root.token, { name: 'X' })
      assert.equal(badId.status, 400)
      assert.deepEqual(badId.body, { error: 'user_id is invalid' })
      const limited = await makeUser(t, { projects_limit: 0 })
      const limit = await createFor(limited.user.id, t.root.token, { name: 'Over' })
      assert.equal(limit.status, 400)
      assert.deepEqual(limit.body, { message: { limit_reached: ['Personal project creation is not allowed. Please contact your administrator with questions'] } })
    })
  })

  describe('PUT /projects/:id', () => {
    const update = (id: number | string, token: string | null, body?: unknown) => t.api('PUT', `/projects/${id}`, { token, body })

    it('lets Maintainers, Owners and admins change settings; hides private projects from others', async () => {
      const m = await makeMatrix(t, 'private')
      await expectStatuses(m, (token, persona) => update(m.project.id, token, { description: `by ${persona}` }), {
        anonymous: 401, nonMember: 404, guest: 403, reporter: 403, developer: 403, maintainer: 200, owner: 200, admin: 200,
        external: 404, blocked: 403,
      })
      assert.equal((await projectRow(m.project.id))?.description, 'by admin')
      const forbidden = await update(m.project.id, m.tokens.developer, { description: 'no' })
      assert.deepEqual(forbidden.body, { message: '403 Forbidden' })
    })

    it('keeps renaming and visibility changes to Owners and admins, as the original', async () => {
      const m = await makeMatrix(t, 'internal')
      await expectStatuses(m, (token, persona) => update(m.project.id, token, { name: `Renamed by ${persona}` }), {
        developer: 403, maintainer: 403, owner: 200, admin: 200,
      })
      await expectStatuses(m, (token) => update(m.project.id, token, { visibility: 'private' }), {
        maintainer: 403, owner: 200, admin: 200,
      })
      const row = await projectRow(m.project.id)
      assert.deepEqual([row?.name, row?.visibility_level], ['Renamed by admin', 0])
    })

    it('changes every setting given and answers the full form', async () => {
      const owner = await makeUser(t)
      const project = await makeProject(t, owner, { name: 'Before', path: 'before', tag_list: ['old'] })
      const res = await update(project.id, owner.token, {
        name: 'After', path: 'after', description: 'changed', visibility: 'public', issues_enabled: false,
        merge_requests_enabled: false, wiki_enabled: false, jobs_enabled: false, snippets_enabled: false,
        container_registry_enabled: false, shared_runners_enabled: false, lfs_enabled: false, public_builds: false,
        request_access_enabled: true, resolve_outdated_diff_discussions: true, only_allow_merge_if_pipeline_succeeds: true,
        only_allow_merge_if_all_discussions_are_resolved: true, printing_merge_request_link_enabled: false,
        merge_method: 'rebase_merge', tag_list: ['new', 'fresh'], ci_config_path: 'ci.yml', default_branch: 'develop',
      })
      assert.equal(res.status, 200, res.text)
      assert.deepEqual(keysOf(res.body), fields(FULL_FIELDS, ADMIN_FIELDS, ['owner']).filter((k) => k !== 'open_issues_count'))
      const b = res.body
      assert.deepEqual(
        [b.name, b.path, b.path_with_namespace, b.description, b.visibility, b.issues_enabled, b.merge_requests_enabled,
          b.wiki_enabled, b.jobs_enabled, b.snippets_enabled, b.container_registry_enabled, b.shared_runners_enabled,
          b.lfs_enabled, b.public_jobs, b.request_access_enabled, b.resolve_outdated_diff_discussions,
          b.only_allow_merge_if_pipeline_succeeds, b.only_allow_merge_if_all_discussions_are_resolved,
          b.printing_merge_request_link_enabled, b.merge_method, b.tag_list, b.ci_config_path, b.default_branch],
        ['After', 'after', `${owner.user.username}/after`, 'changed', 'public', false, false, false, false, false, false, false,
          false, false, true, true, true, true, false, 'rebase_merge', ['fresh', 'new'], 'ci.yml', 'develop'],
      )
      const row = await projectRow(project.id)
      assert.deepEqual([row?.path_lower, row?.visibility_level, row?.tag_list], ['after', 20, '["new","fresh"]'])
      assert.ok(row!.updated_at >= project.updated_at)
      const head = await runGit(['symbolic-ref', 'HEAD'], { gitDir: t.ctx.repositories.repositoryPath(project.id) })
      assert.equal(head.trim(), 'refs/heads/develop')
      const partial = await update(`${owner.user.username}%2Fafter`, owner.token, { jobs_enabled: true })
      assert.equal(partial.status, 200)
      assert.deepEqual([partial.body.jobs_enabled, partial.body.name, partial.body.wiki_enabled], [true, 'After', false])
    })

    it('needs at least one parameter', async () => {
      const owner = await makeUser(t)
      const project = await makeProject(t, owner)
      for (const body of [undefined, {}, { unknown: 1 }]) {
        const res = await update(project.id, owner.token, body)
        assert.equal(res.status, 400)
        assert.match(res.body.error, /^jobs_enabled, resolve_outdated_diff_discussions, .* are missing, at least one parameter must be provided$/)
      }
      const invalid = await update(project.id, owner.token, { visibility: 'secret' })
      assert.deepEqual([invalid.status, invalid.body], [400, { error: 'visibility is invalid' }])
    })

    it('keeps names and paths unique within the namespace', async () => {
      const owner = await makeUser(t)
      await makeProject(t, owner, { name: 'Existing', path: 'existing' })
      const project = await makeProject(t, owner, { name: 'Mine', path: 'mine' })
      const res = await update(project.id, owner.token, { name: 'Existing', path: 'EXISTING' })
      assert.equal(res.status, 400)
      assert.deepEqual(res.body, { message: { name: ['has already been taken'], path: ['has already been taken'] } })
      const same = await update(project.id, owner.token, { name: 'Mine', path: 'mine' })
      assert.equal(same.status, 200)
      const elsewhere = await makeUser(t)
      assert.equal((await makeProject(t, elsewhere, { name: 'Existing', path: 'existing' })).name, 'Existing')
      const bad = await update(project.id, owner.token, { path: '-dash' })
      assert.deepEqual(Object.keys(bad.body.message), ['path'])
    })

    it('follows the visibility rules of creation', async () => {
      const owner = await makeUser(t)
      const group = await makeGroup(t, { visibility: 'internal' }, owner)
      const project = await makeProject(t, owner, { namespace: group, visibility: 'internal' })
      const res = await update(project.id, owner.token, { visibility: 'public' })
      assert.equal(res.status, 400)
      assert.deepEqual(res.body, { message: { visibility_level: ['public is not allowed in a internal group.'] } })
      assert.equal((await update(project.id, owner.token, { visibility: 'internal' })).status, 200)
      assert.equal((await update(project.id, owner.token, { visibility: 'private' })).status, 200)
    })

    it('sets the default branch to a branch of the repository, or any valid name while it is empty', async () => {
      const owner = await makeUser(t)
      const project = await makeProject(t, owner)
      const invalid = await update(project.id, owner.token, { default_branch: 'no..dots' })
      assert.equal(invalid.status, 400)
      assert.deepEqual(invalid.body, { message: { default_branch: ['is invalid'] } })
      const gitDir = t.ctx.repositories.repositoryPath(project.id)
      const env = { GIT_AUTHOR_NAME: 'T', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 'T', GIT_COMMITTER_EMAIL: 't@example.com' }
      const tree = (await runGit(['mktree'], { gitDir })).trim()
      const commit = (await runGit(['commit-tree', tree, '-m', 'first'], { gitDir, env })).trim()
      await runGit(['update-ref', 'refs/heads/main', commit], { gitDir })
      const missing = await update(project.id, owner.token, { default_branch: 'elsewhere' })
      assert.equal(missing.status, 400)
      assert.deepEqual(missing.body, { message: { base: ["Could not change HEAD: branch 'elsewhere' does not exist"] } })
      const ok = await update(project.id, owner.token, { default_branch: 'main' })
      assert.equal(ok.status, 200)
      assert.equal(ok.body.default_branch, 'main')
      assert.equal((await runGit(['symbolic-ref', 'HEAD'], { gitDir })).trim(), 'refs/heads/main')
    })
  })

  describe('DELETE /projects/:id', () => {
    const remove = (id: number | string, token: string | null, headers: Record<string, string> = {}) =>
      t.api('DELETE', `/projects/${id}`, { token, headers })

    it('is for the project\'s owners and admins; hides private projects from others', async () => {
      const m = await makeMatrix(t, 'private')
      await expectStatuses(m, (token) => remove(m.project.id, token), {
        anonymous: 401, nonMember: 404, guest: 403, reporter: 403, developer: 403, maintainer: 403, external: 404, blocked: 403,
      })
      for (const persona of ['owner', 'admin'] as Persona[]) {
        const fresh = await makeMatrix(t, 'private')
        const res = await remove(fresh.project.id, fresh.tokens[persona])
        assert.equal(res.status, 202, persona)
        assert.deepEqual(res.body, { message: '202 Accepted' })
      }
    })

    it('removes the rows, what hangs off them and the repository', async () => {
      const owner = await makeUser(t)
      const fan = await makeUser(t)
      const project = await makeProject(t, owner, { visibility: 'public' })
      const group = await makeGroup(t)
      await makeMember(t, { type: 'project', id: project.id }, fan, REPORTER)
      await shareWith(t, project.id, group.id, DEVELOPER)
      await setProjectAttribute(t, project.id, 'k', 'v')
      assert.equal((await t.api('POST', `/projects/${project.id}/star`, { token: fan.token })).status, 201)
      assert.ok(repositoryExists(project.id))
      const res = await remove(encodeURIComponent(`${owner.user.username}/${project.path}`), owner.token)
      assert.equal(res.status, 202)
      assert.equal(await projectRow(project.id), undefined)
      const count = async (table: 'members' | 'stars' | 'project_group_links' | 'custom_attributes' | 'events' | 'project_statistics') => {
        const column = table === 'members' ? 'source_id' : table === 'custom_attributes' ? 'subject_id' : 'project_id'
        const rows = await t.ctx.db.selectFrom(table).select(column).where(column, '=', project.id).execute()
        return rows.length
      }
      for (const table of ['members', 'stars', 'project_group_links', 'custom_attributes', 'events', 'project_statistics'] as const) {
        assert.equal(await count(table), 0, table)
      }
      assert.ok(!repositoryExists(project.id))
      assert.equal((await t.api('GET', `/projects/${project.id}`, { token: owner.token })).status, 404)
      assert.equal((await remove(project.id, owner.token)).status, 404)
    })

    it('lets the owner of a personal project delete it, but not its Maintainer members', async () => {
      const owner = await makeUser(t)
      const maintainer: TestUser = await makeUser(t)
      const project = await makeProject(t, owner)
      await makeMember(t, { type: 'project', id: project.id }, maintainer, MAINTAINER)
      assert.equal((await remove(project.id, maintainer.token)).status, 403)
      assert.equal((await remove(project.id, owner.token)).status, 202)
    })

    it('answers 412 when the project changed after If-Unmodified-Since', async () => {
      const owner = await makeUser(t)
      const project = await makeProject(t, owner)
      const stale = await remove(project.id, owner.token, { 'if-unmodified-since': new Date(project.updated_at - 60_000).toUTCString() })
      assert.equal(stale.status, 412)
      assert.deepEqual(stale.body, { message: '412 Precondition Failed' })
      assert.ok(await projectRow(project.id))
      const fresh = await remove(project.id, owner.token, { 'if-unmodified-since': new Date(project.updated_at + 60_000).toUTCString() })
      assert.equal(fresh.status, 202)
    })
  })
})
