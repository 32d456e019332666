// The repository side of merge requests: creating them (same project and from a fork, every
// refusal), merging them on the three merge methods (conflicts, moved heads, work in progress,
// closed, unresolved discussions, protected targets, squash, source branch removal), what pushes
// do to them (refreshed sha and merge_status, "added N commits", merged by a push of the target),
// their commits, changes and diffs, and refs/merge-requests/:iid/head over git smart HTTP. Through
// HTTP and real repositories; on SQLite, and on PostgreSQL when INGOT_TEST_DATABASE_URL is set.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { commitFiles, TEST_AUTHOR } from '../helpers/git.js'
import { startGitClient, type GitClient } from '../helpers/git-server.js'
import { expectPaginates } from '../shared/pagination.js'
import type { ProjectRow } from '../../src/db/schema.js'
import { DEVELOPER, MAINTAINER, REPORTER } from '../../src/policies/access-levels.js'
import { projectFullPath } from '../helpers/projects.js'

const PASSWORD = 'password1234'

describe('merge requests: repository side', () => {
  let t: TestApp
  let owner: TestUser
  let developer: TestUser
  let reporter: TestUser
  let stranger: TestUser
  let client: GitClient

  const repoOf = (projectId: number) => t.ctx.repositories.open(projectId)
  const headOf = (projectId: number, branch: string) => repoOf(projectId).resolveCommit(`refs/heads/${branch}`)
  const fullPathOf = (project: ProjectRow) => projectFullPath(t, project)
  const rowOf = (projectId: number, iid: number) => t.ctx.db.selectFrom('merge_requests').selectAll()
    .where('target_project_id', '=', projectId).where('iid', '=', iid).executeTakeFirstOrThrow()
  const notesOf = async (mergeRequestId: number) => (await t.ctx.db.selectFrom('notes').select('body')
    .where('noteable_type', '=', 'MergeRequest').where('noteable_id', '=', mergeRequestId).orderBy('id').execute()).map((n) => n.body)
  const eventsOf = (mergeRequestId: number) => t.ctx.db.selectFrom('events').select(['action', 'author_id', 'target_type', 'target_iid'])
    .where('target_type', '=', 'MergeRequest').where('target_id', '=', mergeRequestId).orderBy('id').execute()

  /** A project (owner's) with master (README) and feature (one more file) branches, developer and reporter members. */
  async function projectWithFeature(visibility: 'private' | 'public' = 'private') {
    const project = await makeProject(t, owner, { visibility })
    await makeMember(t, { type: 'project', id: project.id }, developer, DEVELOPER)
    await makeMember(t, { type: 'project', id: project.id }, reporter, REPORTER)
    const base = await commitFiles(t, project.id, { 'README.md': 'hello\n' })
    const feature = await commitFiles(t, project.id, { 'feature.txt': 'feature\n' }, { branch: 'feature', parent: base })
    return { project, base, feature }
  }

  const open = (projectId: number, body: Record<string, unknown>, token: string | null = owner.token) =>
    t.api('POST', `/projects/${projectId}/merge_requests`, { token, body })

  async function openMergeRequest(projectId: number, body: Record<string, unknown> = {}, token = owner.token) {
    const res = await open(projectId, { source_branch: 'feature', target_branch: 'master', title: 'Add feature', ...body }, token)
    assert.equal(res.status, 201, res.text)
    return res.body as Record<string, any>
  }

  const merge = (projectId: number, iid: number, body: Record<string, unknown> = {}, token: string | null = owner.token) =>
    t.api('PUT', `/projects/${projectId}/merge_requests/${iid}/merge`, { token, body })

  /** A commit through the API (the push path), so push listeners run. */
  async function pushCommit(projectId: number, branch: string, file: string, content: string, token = owner.token) {
    const res = await t.api('POST', `/projects/${projectId}/repository/commits`, {
      token, body: { branch, commit_message: `Change ${file}`, actions: [{ action: 'create', file_path: file, content }] },
    })
    assert.equal(res.status, 201, res.text)
    return res.body.id as string
  }

  before(async () => {
    t = await buildTestApp()
    owner = await makeUser(t)
    developer = await makeUser(t)
    reporter = await makeUser(t)
    stranger = await makeUser(t)
    client = await startGitClient(t)
  })
  after(async () => {
    await client.close()
    await t.close()
  })

  describe('POST /projects/:id/merge_requests', () => {
    it('opens a merge request in the same project, with its head ref, merge_status and created event', async () => {
      const { project, feature } = await projectWithFeature()
      const milestone = await t.api('POST', `/projects/${project.id}/milestones`, { token: owner.token, body: { title: 'v1' } })
      const mr = await openMergeRequest(project.id, {
        description: 'Why', labels: 'bug, new-label', assignee_id: developer.user.id, remove_source_branch: true, squash: true,
        ...(milestone.status === 201 ? { milestone_id: milestone.body.id } : {}),
      })
      assert.equal(mr.iid, 1)
      assert.equal(mr.project_id, project.id)
      assert.equal(mr.source_project_id, project.id)
      assert.equal(mr.target_project_id, project.id)
      assert.equal(mr.state, 'opened')
      assert.equal(mr.sha, feature)
      assert.equal(mr.merge_status, 'can_be_merged')
      assert.equal(mr.merge_commit_sha, null)
      assert.equal(mr.description, 'Why')
      assert.deepEqual(mr.labels, ['bug', 'new-label'])
      assert.equal(mr.assignee.id, developer.user.id)
      assert.equal(mr.author.id, owner.user.id)
      assert.equal(mr.force_remove_source_branch, true)
      assert.equal(mr.squash, true)
      if (milestone.status === 201) assert.equal(mr.milestone.id, milestone.body.id)
      assert.equal(await repoOf(project.id).resolveCommit('refs/merge-requests/1/head'), feature)
      assert.deepEqual(await eventsOf(mr.id), [{ action: 'created', author_id: owner.user.id, target_type: 'MergeRequest', target_iid: 1 }])
      const labels = await t.ctx.db.selectFrom('labels').select('title').where('project_id', '=', project.id).execute()
      assert.deepEqual(labels.map((l) => l.title).sort(), ['bug', 'new-label'])

      const second = await commitFiles(t, project.id, { 'other.txt': 'other\n' }, { branch: 'other' })
      const next = await openMergeRequest(project.id, { source_branch: 'other' })
      assert.equal(next.iid, 2)
      assert.equal(next.sha, second)
    })

    it('answers as the original when it cannot: 401, 403, 404, 400, 409, 422', async () => {
      const { project } = await projectWithFeature()
      const valid = { source_branch: 'feature', target_branch: 'master', title: 'A title' }
      assert.equal((await open(project.id, valid, null)).status, 401)
      assert.equal((await open(project.id, valid, stranger.token)).status, 404)
      assert.equal((await open(project.id, valid, reporter.token)).status, 403)
      assert.equal((await open(project.id, { ...valid, title: undefined })).body.error, 'title is missing')
      assert.equal((await open(project.id, { ...valid, source_branch: undefined })).body.error, 'source_branch is missing')

      const same = await open(project.id, { ...valid, source_branch: 'master' })
      assert.equal(same.status, 422)
      assert.deepEqual(same.body, { message: ['You can not use same project/branch for source and target'] })
      const missing = await open(project.id, { ...valid, source_branch: 'nope' })
      assert.equal(missing.status, 400)
      assert.deepEqual(missing.body, { message: { source_branch: ['does not exist'] } })
      const missingTarget = await open(project.id, { ...valid, target_branch: '--upload-pack=evil' })
      assert.deepEqual(missingTarget.body, { message: { target_branch: ['does not exist'] } })
      const blank = await open(project.id, { ...valid, title: '  ' })
      assert.deepEqual(blank.body, { message: { title: ["can't be blank"] } })

      assert.equal((await open(project.id, valid)).status, 201)
      const twin = await open(project.id, { ...valid, title: 'Another' })
      assert.equal(twin.status, 409)
      assert.deepEqual(twin.body, { message: ['Cannot Create: This merge request already exists: ["A title"]'] })
      assert.equal((await rowOf(project.id, 1)).title, 'A title')
      // The failed creation took no iid.
      await commitFiles(t, project.id, { 'b.txt': 'b\n' }, { branch: 'b' })
      assert.equal((await openMergeRequest(project.id, { source_branch: 'b' })).iid, 2)

      const unrelated = await makeProject(t, owner, { visibility: 'private' })
      await commitFiles(t, unrelated.id, { 'x.txt': 'x\n' })
      const outside = await open(project.id, { ...valid, title: 'Elsewhere', target_project_id: unrelated.id })
      assert.equal(outside.status, 422)
      assert.deepEqual(outside.body, { message: ['Source project is not a fork of the target project'] })
      const hidden = await makeProject(t, stranger, { visibility: 'private' })
      assert.deepEqual((await open(project.id, { ...valid, target_project_id: hidden.id })).body, { message: '404 Project Not Found' })
      assert.equal((await open(project.id, { ...valid, target_project_id: 2_000_000_000 })).status, 404)
    })

    it('opens a merge request from a fork into its source, fetching the fork\'s commits there', async () => {
      const { project: upstream, base } = await projectWithFeature('public')
      const forked = await t.api('POST', `/projects/${upstream.id}/fork`, { token: stranger.token })
      assert.equal(forked.status, 201, forked.text)
      const fork = await t.ctx.db.selectFrom('projects').selectAll().where('id', '=', forked.body.id).executeTakeFirstOrThrow()
      const fix = await commitFiles(t, fork.id, { 'fix.txt': 'fix\n' }, { branch: 'fix', parent: base })
      assert.equal(await repoOf(upstream.id).info(fix), null)

      const mr = await openMergeRequest(fork.id, { source_branch: 'fix', target_project_id: upstream.id, labels: 'ignored' }, stranger.token)
      assert.equal(mr.project_id, upstream.id)
      assert.equal(mr.source_project_id, fork.id)
      assert.equal(mr.sha, fix)
      assert.equal(mr.merge_status, 'can_be_merged')
      // Labels are the target's Developers' to set.
      assert.deepEqual(mr.labels, [])
      assert.equal(await repoOf(upstream.id).resolveCommit('refs/merge-requests/1/head'), fix)
      assert.equal((await repoOf(fork.id).refNames('refs/merge-requests/')).length, 0)

      // A push to the fork's branch refreshes the merge request in the upstream.
      const more = await pushCommit(fork.id, 'fix', 'more.txt', 'more\n', stranger.token)
      const refreshed = await rowOf(upstream.id, mr.iid)
      assert.equal(refreshed.sha, more)
      assert.equal(await repoOf(upstream.id).resolveCommit('refs/merge-requests/1/head'), more)
      assert.match((await notesOf(mr.id)).at(-1) ?? '', /^added 1 commit\n\n<ul><li>[0-9a-f]{8} - Change more\.txt<\/li><\/ul>$/)

      // The fork's owner may not merge into the upstream; its owner may.
      assert.equal((await merge(upstream.id, mr.iid, {}, stranger.token)).status, 401)
      const merged = await merge(upstream.id, mr.iid)
      assert.equal(merged.status, 200, merged.text)
      assert.equal(merged.body.state, 'merged')
      const head = await repoOf(upstream.id).readCommit((await headOf(upstream.id, 'master'))!)
      assert.deepEqual(head?.parents, [base, more])
    })
  })

  describe('PUT …/merge', () => {
    it('merges with a merge commit, records who merged, the event and the note', async () => {
      const { project, base, feature } = await projectWithFeature()
      await commitFiles(t, project.id, { 'master.txt': 'moved on\n' })
      const masterBefore = (await headOf(project.id, 'master'))!
      const mr = await openMergeRequest(project.id, { title: 'Add feature' })
      const res = await merge(project.id, mr.iid, { sha: feature }, developer.token)
      assert.equal(res.status, 200, res.text)
      assert.equal(res.body.state, 'merged')
      assert.equal(res.body.merged_by.id, developer.user.id)
      assert.ok(res.body.merged_at)
      const head = (await headOf(project.id, 'master'))!
      assert.equal(res.body.merge_commit_sha, head)
      const commit = (await repoOf(project.id).readCommit(head))!
      assert.deepEqual(commit.parents, [masterBefore, feature])
      assert.equal(commit.message.trimEnd(), `Merge branch 'feature' into 'master'\n\nAdd feature\n\nSee merge request ${await fullPathOf(project)}!1`)
      assert.equal(commit.committer.email, developer.user.email)
      assert.equal(commit.author.name, developer.user.name)
      assert.ok(base)
      const row = await rowOf(project.id, mr.iid)
      assert.equal(row.merged_by_id, developer.user.id)
      assert.deepEqual((await eventsOf(mr.id)).map((e) => [e.action, e.author_id]), [['created', owner.user.id], ['merged', developer.user.id]])
      assert.deepEqual(await notesOf(mr.id), ['merged'])
      // The source branch stays unless asked; a second merge is 405.
      assert.equal(await headOf(project.id, 'feature'), feature)
      assert.equal((await merge(project.id, mr.iid)).status, 405)
      // The target's push was recorded by the push path.
      const pushed = await t.ctx.db.selectFrom('events').select('push_data').where('project_id', '=', project.id).where('action', '=', 'pushed').execute()
      assert.ok(pushed.some((event) => JSON.parse(event.push_data ?? '{}').commit_to === head))
    })

    it('takes a custom merge commit message and removes the source branch when asked', async () => {
      const { project } = await projectWithFeature()
      const mr = await openMergeRequest(project.id)
      const res = await merge(project.id, mr.iid, { merge_commit_message: 'Custom message', should_remove_source_branch: true })
      assert.equal(res.status, 200, res.text)
      assert.equal(res.body.should_remove_source_branch, true)
      assert.equal((await repoOf(project.id).readCommit(res.body.merge_commit_sha))?.message.trimEnd(), 'Custom message')
      assert.equal(await headOf(project.id, 'feature'), null)
    })

    it('removes the source branch of a merge request opened with remove_source_branch', async () => {
      const { project } = await projectWithFeature()
      const mr = await openMergeRequest(project.id, { remove_source_branch: true })
      assert.equal((await merge(project.id, mr.iid)).status, 200)
      assert.equal(await headOf(project.id, 'feature'), null)
    })

    it('fast-forwards with merge_method ff, and refuses (406) when the target moved on', async () => {
      const { project, feature } = await projectWithFeature()
      assert.equal((await t.api('PUT', `/projects/${project.id}`, { body: { merge_method: 'ff' } })).status, 200)
      const mr = await openMergeRequest(project.id)
      const res = await merge(project.id, mr.iid)
      assert.equal(res.status, 200, res.text)
      assert.equal(res.body.merge_commit_sha, null)
      assert.equal(await headOf(project.id, 'master'), feature)

      await commitFiles(t, project.id, { 'next.txt': 'next\n' }, { branch: 'next', parent: feature })
      await commitFiles(t, project.id, { 'master.txt': 'moved\n' })
      const behind = await openMergeRequest(project.id, { source_branch: 'next' })
      const refused = await merge(project.id, behind.iid)
      assert.equal(refused.status, 406)
      assert.deepEqual(refused.body, { message: 'Branch cannot be merged' })
      assert.equal((await rowOf(project.id, behind.iid)).state, 'opened')
    })

    it('writes a merge commit with rebase_merge only when a fast-forward is possible', async () => {
      const { project, base, feature } = await projectWithFeature()
      assert.equal((await t.api('PUT', `/projects/${project.id}`, { body: { merge_method: 'rebase_merge' } })).status, 200)
      const mr = await openMergeRequest(project.id)
      const res = await merge(project.id, mr.iid)
      assert.equal(res.status, 200, res.text)
      const commit = (await repoOf(project.id).readCommit(res.body.merge_commit_sha))!
      assert.deepEqual(commit.parents, [base, feature])
      assert.equal(commit.tree, (await repoOf(project.id).readCommit(feature))!.tree)

      await commitFiles(t, project.id, { 'late.txt': 'late\n' }, { branch: 'late', parent: base })
      const late = await openMergeRequest(project.id, { source_branch: 'late' })
      assert.equal((await merge(project.id, late.iid)).status, 406)
    })

    it('squashes the source commits into one authored by the merge request author', async () => {
      const { project, base, feature } = await projectWithFeature()
      const second = await commitFiles(t, project.id, { 'feature2.txt': 'two\n' }, { branch: 'feature' })
      const mr = await openMergeRequest(project.id, { title: 'Squashed feature' })
      const res = await merge(project.id, mr.iid, { squash: true }, developer.token)
      assert.equal(res.status, 200, res.text)
      assert.equal(res.body.squash, true)
      const mergeCommit = (await repoOf(project.id).readCommit(res.body.merge_commit_sha))!
      assert.equal(mergeCommit.parents[0], base)
      const squash = (await repoOf(project.id).readCommit(mergeCommit.parents[1]!))!
      assert.notEqual(squash.id, second)
      assert.deepEqual(squash.parents, [base])
      assert.equal(squash.message.trimEnd(), 'Squashed feature')
      assert.equal(squash.author.email, owner.user.email)
      assert.equal(squash.committer.email, developer.user.email)
      assert.equal(squash.tree, (await repoOf(project.id).readCommit(second))!.tree)
      assert.ok(feature)
    })

    it('squashes and fast-forwards with merge_method ff', async () => {
      const { project, base } = await projectWithFeature()
      await commitFiles(t, project.id, { 'feature2.txt': 'two\n' }, { branch: 'feature' })
      assert.equal((await t.api('PUT', `/projects/${project.id}`, { body: { merge_method: 'ff' } })).status, 200)
      const mr = await openMergeRequest(project.id, { squash: true })
      const res = await merge(project.id, mr.iid)
      assert.equal(res.status, 200, res.text)
      const head = (await repoOf(project.id).readCommit((await headOf(project.id, 'master'))!))!
      assert.deepEqual(head.parents, [base])
      assert.equal(res.body.merge_commit_sha, null)
    })

    it('refuses conflicts (406), a moved head (409), work in progress and closed ones (405)', async () => {
      const { project, base } = await projectWithFeature()
      await commitFiles(t, project.id, { 'README.md': 'theirs\n' }, { branch: 'clash', parent: base })
      await commitFiles(t, project.id, { 'README.md': 'ours\n' })
      const clash = await openMergeRequest(project.id, { source_branch: 'clash', title: 'Clash' })
      assert.equal(clash.merge_status, 'cannot_be_merged')
      const conflicting = await merge(project.id, clash.iid)
      assert.equal(conflicting.status, 406)
      assert.deepEqual(conflicting.body, { message: 'Branch cannot be merged' })

      const mr = await openMergeRequest(project.id)
      const moved = await merge(project.id, mr.iid, { sha: base })
      assert.equal(moved.status, 409)
      assert.deepEqual(moved.body, { message: `SHA does not match HEAD of source branch: ${mr.sha}` })

      await commitFiles(t, project.id, { 'wip.txt': 'wip\n' }, { branch: 'wip', parent: base })
      const wip = await openMergeRequest(project.id, { source_branch: 'wip', title: 'WIP: not yet' })
      const refused = await merge(project.id, wip.iid)
      assert.equal(refused.status, 405)
      assert.deepEqual(refused.body, { message: '405 Method Not Allowed' })

      await t.ctx.db.updateTable('merge_requests').set({ state: 'closed' }).where('id', '=', mr.id).execute()
      assert.equal((await merge(project.id, mr.iid)).status, 405)
    })

    it('refuses a merge request without commits or with a missing branch (405)', async () => {
      const { project, base, feature } = await projectWithFeature()
      await commitFiles(t, project.id, { 'same.txt': 'x\n' }, { branch: 'gone', parent: base })
      const mr = await openMergeRequest(project.id)
      const gone = await openMergeRequest(project.id, { source_branch: 'gone' })
      // Both reach master outside the merge request's knowledge (no push path, no listener).
      const repo = repoOf(project.id)
      assert.ok(await repo.compareAndSwapRef('refs/heads/master', feature, base))
      assert.equal((await merge(project.id, mr.iid)).status, 405)
      assert.ok(await repo.compareAndSwapRef('refs/heads/gone', '0'.repeat(40), gone.sha))
      assert.equal((await merge(project.id, gone.iid)).status, 405)
    })

    it('refuses while the project wants discussions resolved and one is not (405)', async () => {
      const { project } = await projectWithFeature()
      assert.equal((await t.api('PUT', `/projects/${project.id}`, { body: { only_allow_merge_if_all_discussions_are_resolved: true } })).status, 200)
      const mr = await openMergeRequest(project.id)
      const now = Date.now()
      const note = await t.ctx.db.insertInto('notes').values({
        project_id: project.id, author_id: reporter.user.id, noteable_type: 'MergeRequest', noteable_id: mr.id, commit_id: null,
        body: 'Please fix', path: null, line: null, line_type: null, discussion_id: 'a'.repeat(40), type: 'DiscussionNote',
        resolvable: 1, resolved_at: null, resolved_by_id: null, created_at: now, updated_at: now,
      }).returning('id').executeTakeFirstOrThrow()
      assert.equal((await merge(project.id, mr.iid)).status, 405)
      await t.ctx.db.updateTable('notes').set({ resolved_at: now, resolved_by_id: owner.user.id }).where('id', '=', note.id).execute()
      assert.equal((await merge(project.id, mr.iid)).status, 200)
    })

    it('lets only those who may push or merge into the target branch merge (401)', async () => {
      const { project } = await projectWithFeature()
      const mr = await openMergeRequest(project.id)
      assert.equal((await merge(project.id, mr.iid, {}, null)).status, 401)
      assert.equal((await merge(project.id, mr.iid, {}, stranger.token)).status, 404)
      const asReporter = await merge(project.id, mr.iid, {}, reporter.token)
      assert.equal(asReporter.status, 401)
      assert.deepEqual(asReporter.body, { message: '401 Unauthorized' })

      const protect = (merge_access_level: number) => t.api('POST', `/projects/${project.id}/protected_branches`, {
        body: { name: 'master', push_access_level: MAINTAINER, merge_access_level },
      })
      assert.equal((await protect(MAINTAINER)).status, 201)
      assert.equal((await merge(project.id, mr.iid, {}, developer.token)).status, 401)
      assert.equal((await rowOf(project.id, mr.iid)).state, 'opened')
      assert.equal((await t.api('DELETE', `/projects/${project.id}/protected_branches/master`)).status, 204)
      // Developers may merge where they may not push.
      assert.equal((await protect(DEVELOPER)).status, 201)
      const merged = await merge(project.id, mr.iid, {}, developer.token)
      assert.equal(merged.status, 200, merged.text)
      assert.equal(merged.body.merged_by.id, developer.user.id)
    })

    it('merges once when asked at the same time, and opens one of twin merge requests asked at once', async () => {
      const { project } = await projectWithFeature()
      const mr = await openMergeRequest(project.id)
      const statuses = (await Promise.all([1, 2, 3, 4].map(() => merge(project.id, mr.iid)))).map((res) => res.status).sort()
      assert.deepEqual(statuses, [200, 405, 405, 405])
      assert.deepEqual((await eventsOf(mr.id)).map((e) => e.action), ['created', 'merged'])
      const master = (await repoOf(project.id).readCommit((await headOf(project.id, 'master'))!))!
      assert.equal(master.parents[1], mr.sha)

      await commitFiles(t, project.id, { 'twin.txt': 'twin\n' }, { branch: 'twin' })
      const body = { source_branch: 'twin', target_branch: 'master', title: 'Twin' }
      const created = (await Promise.all([1, 2, 3].map(() => open(project.id, body)))).map((res) => res.status).sort()
      assert.deepEqual(created, [201, 409, 409])
    })

    it('is 404 for an unknown merge request and 400 for a bad iid', async () => {
      const { project } = await projectWithFeature()
      assert.deepEqual((await merge(project.id, 99)).body, { message: '404 Merge Request Not Found' })
      assert.equal((await merge(project.id, 99999999999)).status, 404)
      assert.equal((await t.api('PUT', `/projects/${project.id}/merge_requests/abc/merge`)).status, 400)
    })
  })

  describe('pushes', () => {
    it('refresh sha, head ref and merge_status of the merge requests they feed, and note the commits', async () => {
      const { project } = await projectWithFeature()
      const mr = await openMergeRequest(project.id)
      const pushed = await pushCommit(project.id, 'feature', 'more.txt', 'more\n')
      const row = await rowOf(project.id, mr.iid)
      assert.equal(row.sha, pushed)
      assert.equal(row.merge_status, 'can_be_merged')
      assert.equal(await repoOf(project.id).resolveCommit('refs/merge-requests/1/head'), pushed)
      assert.match((await notesOf(mr.id)).at(-1) ?? '', new RegExp(`^added 1 commit\\n\\n<ul><li>${pushed.slice(0, 8)} - Change more\\.txt</li></ul>$`))

      // A push of the target that conflicts: unchecked until the re-check job runs.
      const res = await t.api('POST', `/projects/${project.id}/repository/commits`, {
        body: { branch: 'master', commit_message: 'Clash', actions: [{ action: 'create', file_path: 'more.txt', content: 'other\n' }] },
      })
      assert.equal(res.status, 201, res.text)
      assert.equal((await rowOf(project.id, mr.iid)).merge_status, 'unchecked')
      await t.ctx.jobs.runDue()
      const rechecked = await rowOf(project.id, mr.iid)
      assert.equal(rechecked.merge_status, 'cannot_be_merged')
      assert.equal(rechecked.target_sha, res.body.id)
      const got = await t.api('GET', `/projects/${project.id}/merge_requests/${mr.iid}/changes`)
      assert.equal(got.body.merge_status, 'cannot_be_merged')
    })

    it('mark a merge request merged when its head reaches the target branch', async () => {
      const { project, feature } = await projectWithFeature()
      const mr = await openMergeRequest(project.id)
      // Fast-forward master to the source with git, as a developer.
      const dir = path.join(client.dir, `ff-${project.id}`)
      await client.ok(['clone', client.url(await fullPathOf(project), { username: developer.user.username, password: PASSWORD }), dir])
      await client.ok(['push', 'origin', `${feature}:refs/heads/master`], { cwd: dir })
      const row = await rowOf(project.id, mr.iid)
      assert.equal(row.state, 'merged')
      assert.equal(row.merged_by_id, developer.user.id)
      assert.equal(row.merge_commit_sha, null)
      assert.deepEqual((await eventsOf(mr.id)).map((e) => e.action), ['created', 'merged'])
      assert.deepEqual(await notesOf(mr.id), ['merged'])
    })
  })

  describe('commits, changes and diffs', () => {
    it('lists the commits newest first, paginated, and the diffs from the merge base', async () => {
      const { project, feature } = await projectWithFeature('public')
      const second = await commitFiles(t, project.id, { 'feature.txt': 'feature\nmore\n', 'gone.txt': 'g\n' }, { branch: 'feature' })
      const third = await commitFiles(t, project.id, { 'third.txt': '3\n' }, { branch: 'feature' })
      await commitFiles(t, project.id, { 'master-only.txt': 'm\n' })
      const mr = await openMergeRequest(project.id)
      const commits = await t.api('GET', `/projects/${project.id}/merge_requests/${mr.iid}/commits`, { token: null })
      assert.equal(commits.status, 200, commits.text)
      assert.deepEqual(commits.body.map((c: { id: string }) => c.id), [third, second, feature])
      assert.equal(commits.body[0].author_email, TEST_AUTHOR.email)
      assert.deepEqual(Object.keys(commits.body[0]).sort(), [
        'author_email', 'author_name', 'authored_date', 'committed_date', 'committer_email', 'committer_name', 'created_at',
        'id', 'message', 'parent_ids', 'short_id', 'title',
      ])
      await expectPaginates({ t, path: `/projects/${project.id}/merge_requests/${mr.iid}/commits`, token: owner.token, total: 3 })

      const changes = await t.api('GET', `/projects/${project.id}/merge_requests/${mr.iid}/changes`, { token: null })
      assert.equal(changes.status, 200, changes.text)
      assert.equal(changes.body.iid, mr.iid)
      assert.equal(changes.body.overflow, false)
      assert.deepEqual(changes.body.changes.map((c: { new_path: string }) => c.new_path), ['feature.txt', 'gone.txt', 'third.txt'])
      const added = changes.body.changes[0]
      assert.equal(added.new_file, true)
      assert.equal(added.a_mode, '0')
      assert.equal(added.b_mode, '100644')
      assert.match(added.diff, /^--- \/dev\/null\n\+\+\+ b\/feature\.txt\n@@ -0,0 \+1,2 @@\n\+feature\n\+more\n/)

      const diffs = await t.api('GET', `/projects/${project.id}/merge_requests/${mr.iid}/diffs`, { token: null, query: { per_page: 1 } })
      assert.equal(diffs.status, 200)
      assert.equal(diffs.headers['x-total'], '3')
      assert.deepEqual(diffs.body, [added])
    })

    it('hides private projects (404) and the code from Guests', async () => {
      const { project } = await projectWithFeature()
      const mr = await openMergeRequest(project.id)
      for (const suffix of ['commits', 'changes', 'diffs']) {
        const url = `/projects/${project.id}/merge_requests/${mr.iid}/${suffix}`
        assert.equal((await t.api('GET', url, { token: null })).status, 404, suffix)
        assert.equal((await t.api('GET', url, { token: stranger.token })).status, 404, suffix)
        assert.equal((await t.api('GET', url, { token: reporter.token })).status, 200, suffix)
      }
    })
  })

  describe('git smart HTTP', () => {
    it('fetches refs/merge-requests/:iid/head, refuses pushes to it, and refreshes on a real push', async () => {
      const { project, feature } = await projectWithFeature()
      const mr = await openMergeRequest(project.id)
      const credentials = { username: developer.user.username, password: PASSWORD }
      const dir = path.join(client.dir, `clone-${project.id}`)
      await client.ok(['clone', client.url(await fullPathOf(project), credentials), dir])
      await client.ok(['fetch', 'origin', 'refs/merge-requests/1/head'], { cwd: dir })
      assert.equal((await client.ok(['rev-parse', 'FETCH_HEAD'], { cwd: dir })).trim(), feature)

      const master = (await client.ok(['rev-parse', 'origin/master'], { cwd: dir })).trim()
      const refused = await client.git(['push', 'origin', `${master}:refs/merge-requests/1/head`], { cwd: dir })
      assert.notEqual(refused.code, 0)
      assert.equal(await repoOf(project.id).resolveCommit('refs/merge-requests/1/head'), feature)

      await client.ok(['checkout', '-q', '-b', 'feature', 'origin/feature'], { cwd: dir })
      await client.ok(['commit', '-q', '--allow-empty', '-m', 'Pushed for real'], { cwd: dir })
      await client.ok(['push', '-q', 'origin', 'feature'], { cwd: dir })
      const pushed = (await client.ok(['rev-parse', 'HEAD'], { cwd: dir })).trim()
      assert.equal((await rowOf(project.id, mr.iid)).sha, pushed)
      assert.equal(await repoOf(project.id).resolveCommit('refs/merge-requests/1/head'), pushed)
      await client.ok(['fetch', 'origin', '+refs/merge-requests/*:refs/remotes/origin/merge-requests/*'], { cwd: dir })
      assert.equal((await client.ok(['rev-parse', 'origin/merge-requests/1/head'], { cwd: dir })).trim(), pushed)
    })
  })
})
