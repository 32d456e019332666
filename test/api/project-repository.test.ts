// What a project shows of its repository: initialize_with_readme on POST /projects and
// POST /projects/user/:user_id (the original's first commit, a pushed event, the default branch),
// `statistics` (commit_count, sizes) kept by the project.refresh_statistics job, and readme_url.
// Run on SQLite, and on PostgreSQL with INGOT_TEST_DATABASE_URL.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs/promises'
import path from 'node:path'
import { buildTestApp, EXTERNAL_URL, type TestApp } from '../helpers/app.js'
import { makeMember, makeProject, makeUser, rootActor, type TestUser } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import { GUEST, REPORTER } from '../../src/policies/access-levels.js'
import { REFRESH_STATISTICS } from '../../src/services/projects/jobs.js'
import { afterPush } from '../../src/services/push/after-push.js'
import { NULL_OID } from '../../src/git/repository.js'
import { STATISTICS_REFRESH_DELAY_MS } from '../../src/services/projects/refresh-statistics.js'

describe('project repository facts', () => {
  let t: TestApp
  before(async () => { t = await buildTestApp() })
  after(async () => { await t.close() })

  const create = (token: string, body: Record<string, unknown>) => t.api('POST', '/projects', { token, body })
  const getProject = (id: number, token: string, query: Record<string, string | boolean> = {}) =>
    t.api('GET', `/projects/${id}`, { token, query })
  /** Works every due job, as the in-process worker would, and the statistics refreshes changes scheduled a moment later. */
  const runJobs = () => t.ctx.jobs.runDue(Date.now() + STATISTICS_REFRESH_DELAY_MS)
  const setDefaultBranch = (id: number, branch: string) =>
    t.ctx.db.updateTable('projects').set({ default_branch: branch }).where('id', '=', id).execute()

  describe('initialize_with_readme', () => {
    it('commits README.md "# <name>\\n\\n<description>" as the creator on master, with a pushed event', async () => {
      const owner = await makeUser(t)
      const res = await create(owner.token, { name: 'Readme Thing', description: 'What it does', initialize_with_readme: true })
      assert.equal(res.status, 201, res.text)
      assert.equal(res.body.default_branch, 'master')
      assert.equal(res.body.readme_url, `${EXTERNAL_URL}/${owner.user.username}/readme-thing/blob/master/README.md`)

      const repo = t.ctx.repositories.open(res.body.id)
      assert.equal((await repo.read('master:README.md'))?.data.toString(), '# Readme Thing\n\nWhat it does')
      assert.equal(await repo.headBranch(), 'master')
      const head = await repo.resolveCommit('master')
      const commit = await repo.readCommit(head!)
      assert.equal(commit?.message, 'Initial commit')
      assert.deepEqual(commit?.parents, [])
      assert.deepEqual([commit?.author.name, commit?.author.email], [owner.user.name, owner.user.email])
      assert.deepEqual([commit?.committer.name, commit?.committer.email], [owner.user.name, owner.user.email])

      const events = await t.api('GET', `/projects/${res.body.id}/events`, { token: owner.token })
      assert.deepEqual(events.body.map((e: { action_name: string }) => e.action_name).sort(), ['created', 'pushed new'])
      const pushed = events.body.find((e: { action_name: string }) => e.action_name === 'pushed new')
      assert.equal(pushed.author_id, owner.user.id)
      assert.deepEqual([pushed.push_data.ref, pushed.push_data.commit_to, pushed.push_data.commit_count, pushed.push_data.commit_title],
        ['master', head, 1, 'Initial commit'])
      // The first push protects the default branch (default_branch_protection 2).
      const protectedBranches = await t.ctx.db.selectFrom('protected_branches').select('name').where('project_id', '=', res.body.id).execute()
      assert.deepEqual(protectedBranches, [{ name: 'master' }])

      await runJobs()
      const stats = await getProject(res.body.id, owner.token, { statistics: true })
      assert.equal(stats.body.statistics.commit_count, 1)
      assert.equal(stats.body.readme_url, res.body.readme_url)
    })

    it('uses the given default branch, an empty description, and leaves projects without it empty', async () => {
      const owner = await makeUser(t)
      const main = await create(owner.token, { path: 'on-main', default_branch: 'main', initialize_with_readme: 'true' })
      assert.equal(main.status, 201, main.text)
      assert.equal(main.body.default_branch, 'main')
      assert.equal(main.body.readme_url, `${EXTERNAL_URL}/${owner.user.username}/on-main/blob/main/README.md`)
      const repo = t.ctx.repositories.open(main.body.id)
      assert.equal((await repo.read('main:README.md'))?.data.toString(), '# on-main\n\n')
      assert.deepEqual((await repo.refs('refs/heads/')).map((r) => r.name), ['refs/heads/main'])

      const bare = await create(owner.token, { path: 'left-empty' })
      assert.equal(bare.body.default_branch, null)
      assert.equal(bare.body.readme_url, null)
      assert.equal(await t.ctx.repositories.open(bare.body.id).isEmpty(), true)
      const no = await create(owner.token, { path: 'said-no', initialize_with_readme: false })
      assert.equal(await t.ctx.repositories.open(no.body.id).isEmpty(), true)

      const bad = await create(owner.token, { path: 'bad-flag', initialize_with_readme: 'perhaps' })
      assert.equal(bad.status, 400)
      assert.deepEqual(bad.body, { error: 'initialize_with_readme is invalid' })
    })

    it('commits as the user a project is created for by an admin', async () => {
      const user = await makeUser(t)
      const res = await t.api('POST', `/projects/user/${user.user.id}`, { body: { name: 'For Someone', initialize_with_readme: true } })
      assert.equal(res.status, 201, res.text)
      const repo = t.ctx.repositories.open(res.body.id)
      const commit = await repo.readCommit((await repo.resolveCommit('master'))!)
      assert.equal(commit?.author.email, user.user.email)
      const pushed = await t.ctx.db.selectFrom('events').select('author_id').where('project_id', '=', res.body.id).where('action', '=', 'pushed').execute()
      assert.deepEqual(pushed, [{ author_id: user.user.id }])
    })
  })

  describe('statistics', () => {
    async function projectWithCommits(owner: TestUser, count: number) {
      const project = await makeProject(t, owner)
      for (let i = 0; i < count; i += 1) await commitFiles(t, project.id, { [`file${i}.txt`]: `content ${i}\n`.repeat(100) })
      return project
    }

    it('counts the default branch\'s commits and the repository\'s bytes once the job has run', async () => {
      const owner = await makeUser(t)
      const project = await projectWithCommits(owner, 3)
      await commitFiles(t, project.id, { 'side.txt': 'side\n' }, { branch: 'side' })
      await setDefaultBranch(project.id, 'master')
      await runJobs() // whatever earlier tests left queued
      const zero = await getProject(project.id, owner.token, { statistics: true })
      assert.deepEqual(zero.body.statistics, { commit_count: 0, storage_size: 0, repository_size: 0, lfs_objects_size: 0, job_artifacts_size: 0 })

      await t.ctx.jobs.enqueue(REFRESH_STATISTICS, { projectId: project.id })
      assert.equal(await runJobs(), 1)
      const res = await getProject(project.id, owner.token, { statistics: true })
      const repo = t.ctx.repositories.open(project.id)
      const counts = Object.fromEntries((await repo.run(['count-objects', '-v'])).trim().split('\n').map((l) => l.split(': ')))
      const expectedSize = (Number(counts.size) + Number(counts['size-pack'])) * 1024
      assert.ok(expectedSize > 0)
      assert.deepEqual(res.body.statistics, {
        commit_count: 3, storage_size: expectedSize, repository_size: expectedSize, lfs_objects_size: 0, job_artifacts_size: 0,
      })
      // The job also brought the commit-graph (with changed-path filters) up to date.
      const chain = await fs.readFile(path.join(repo.gitDir, 'objects', 'info', 'commit-graphs', 'commit-graph-chain'), 'utf8')
      assert.equal(chain.trim().split('\n').length, 1)
      await repo.run(['commit-graph', 'verify'])

      // Packing changes the bytes on disk, and the next refresh sees it.
      await repo.run(['repack', '-a', '-d', '-q'])
      await t.ctx.jobs.enqueue(REFRESH_STATISTICS, { projectId: project.id })
      await runJobs()
      const packed = Object.fromEntries((await repo.run(['count-objects', '-v'])).trim().split('\n').map((l) => l.split(': ')))
      const after = await getProject(project.id, owner.token, { statistics: true })
      assert.equal(after.body.statistics.repository_size, (Number(packed.size) + Number(packed['size-pack'])) * 1024)
      assert.equal(after.body.statistics.commit_count, 3)
    })

    it('is refreshed after pushes and forks, and shown to Reporters and up only', async () => {
      const owner = await makeUser(t)
      const res = await create(owner.token, { path: 'refreshed', initialize_with_readme: true, visibility: 'private' })
      const id = res.body.id as number
      // The README commit went through the push path, which enqueued the refresh.
      assert.equal(await runJobs(), 1)
      assert.equal((await getProject(id, owner.token, { statistics: true })).body.statistics.commit_count, 1)
      await commitFiles(t, id, { 'two.txt': '2\n' })
      const fork = await t.api('POST', `/projects/${id}/fork`, { token: t.root.token })
      assert.equal(fork.status, 201, fork.text)
      await runJobs()
      const forkStats = await getProject(fork.body.id, t.root.token, { statistics: true })
      assert.equal(forkStats.body.statistics.commit_count, 2)
      assert.ok(forkStats.body.statistics.repository_size > 0)

      const [guest, reporter] = [await makeUser(t), await makeUser(t)]
      await makeMember(t, { type: 'project', id }, guest, GUEST)
      await makeMember(t, { type: 'project', id }, reporter, REPORTER)
      assert.ok(!('statistics' in (await getProject(id, guest.token, { statistics: true })).body))
      assert.equal((await getProject(id, reporter.token, { statistics: true })).body.statistics.commit_count, 1)
    })

    it('is right after every way the API changes the repository', async () => {
      const owner = await makeUser(t)
      /** What git says of the repository now: the default branch's commits and the bytes on disk. */
      const truth = async (id: number) => {
        const repo = t.ctx.repositories.open(id)
        const counts = Object.fromEntries((await repo.run(['count-objects', '-v'])).trim().split('\n').map((l) => l.split(': ')))
        return { commit_count: Number((await repo.run(['rev-list', '--count', 'HEAD'])).trim()), repository_size: (Number(counts.size) + Number(counts['size-pack'])) * 1024 }
      }
      const shown = async (id: number) => {
        const { commit_count, repository_size } = (await getProject(id, owner.token, { statistics: true })).body.statistics
        return { commit_count, repository_size }
      }
      const created = await create(owner.token, { path: 'every-way', initialize_with_readme: true })
      const id = created.body.id as number
      // Right in the first answer after creating, before any job has run.
      assert.deepEqual(await shown(id), await truth(id))
      assert.equal((await shown(id)).commit_count, 1)
      await runJobs()

      const api = (method: string, url: string, body?: Record<string, unknown>) => t.api(method, `/projects/${id}${url}`, { token: owner.token, ...(body === undefined ? {} : { body }) })
      const feature = await api('POST', '/repository/commits', {
        branch: 'feature', start_branch: 'master', commit_message: 'Feature', actions: [{ action: 'create', file_path: 'f.txt', content: 'f\n' }],
      })
      const steps: [string, () => Promise<{ status: number; text: string }>][] = [
        ['commits', () => api('POST', '/repository/commits', { branch: 'master', commit_message: 'Two', actions: [{ action: 'create', file_path: 'two.txt', content: '2\n'.repeat(500) }] })],
        ['file create', () => api('POST', '/repository/files/three.txt', { branch: 'master', content: '3\n', commit_message: 'Three' })],
        ['file update', () => api('PUT', '/repository/files/three.txt', { branch: 'master', content: '33\n', commit_message: 'Three again' })],
        ['file delete', () => api('DELETE', '/repository/files/three.txt', { branch: 'master', commit_message: 'No three' })],
        ['cherry-pick', () => api('POST', `/repository/commits/${feature.body.id}/cherry_pick`, { branch: 'master' })],
        ['branch create', () => api('POST', '/repository/branches', { branch: 'other', ref: 'master' })],
        ['tag create', () => api('POST', '/repository/tags', { tag_name: 'v1', ref: 'master' })],
        ['tag delete', () => api('DELETE', '/repository/tags/v1')],
        ['branch delete', () => api('DELETE', '/repository/branches/other')],
        ['default branch', () => api('PUT', '', { default_branch: 'feature' })],
        ['default branch back', () => api('PUT', '', { default_branch: 'master' })],
        ['merge', async () => {
          await api('POST', '/repository/commits', { branch: 'topic', start_branch: 'master', commit_message: 'Topic', actions: [{ action: 'create', file_path: 't.txt', content: 't\n' }] })
          const mr = await api('POST', '/merge_requests', { source_branch: 'topic', target_branch: 'master', title: 'Topic' })
          return api('PUT', `/merge_requests/${mr.body.iid}/merge`, { should_remove_source_branch: true })
        }],
        ['merged branches', async () => {
          // A merged branch behind the default branch (one at its tip stays, as in the original).
          await api('POST', '/repository/branches', { branch: 'merged-away', ref: 'master' })
          await api('POST', '/repository/files/four.txt', { branch: 'master', content: '4\n', commit_message: 'Four' })
          await runJobs()
          return api('DELETE', '/repository/merged_branches')
        }],
      ]
      for (const [name, step] of steps) {
        const res = await step()
        assert.ok(res.status < 300, `${name}: ${res.text}`)
        const queued = await t.ctx.jobs.list({ kind: REFRESH_STATISTICS.name })
        assert.ok(queued.some((job) => (job.payload as { projectId: number }).projectId === id), `${name} schedules a refresh`)
        // Until none is left: a housekeeping job that repacked beside the refresh schedules another.
        while (await runJobs() > 0) { /* the jobs the last ones enqueued */ }
        assert.deepEqual(await shown(id), await truth(id), name)
      }
      assert.equal((await shown(id)).commit_count, 9)
    })

    it('ignores a job for a project deleted meanwhile', async () => {
      const owner = await makeUser(t)
      const project = await projectWithCommits(owner, 1)
      await runJobs()
      await t.ctx.jobs.enqueue(REFRESH_STATISTICS, { projectId: project.id })
      assert.equal((await t.api('DELETE', `/projects/${project.id}`, { token: owner.token })).status, 202)
      assert.equal(await runJobs(), 1)
      assert.deepEqual(await t.ctx.jobs.list({ kind: REFRESH_STATISTICS.name }), [])
    })
  })

  describe('empty_repo', () => {
    it('is true until the repository has a branch, in every full form, from stored state', async () => {
      const owner = await makeUser(t)
      const bare = await create(owner.token, { path: 'still-empty', default_branch: 'main' })
      assert.equal(bare.body.empty_repo, true)
      const withReadme = await create(owner.token, { path: 'not-empty', initialize_with_readme: true })
      assert.equal(withReadme.body.empty_repo, false)
      const id = bare.body.id as number
      assert.equal((await getProject(id, owner.token)).body.empty_repo, true)
      // A tag alone would not do; a branch pushed through the API does.
      const first = await t.api('POST', `/projects/${id}/repository/commits`, {
        token: owner.token, body: { branch: 'main', commit_message: 'First', actions: [{ action: 'create', file_path: 'a.txt', content: 'a' }] },
      })
      assert.equal(first.status, 201, first.text)
      assert.equal((await getProject(id, owner.token)).body.empty_repo, false)
      const listed = await t.api('GET', '/projects', { token: owner.token, query: { owned: true } })
      assert.deepEqual(listed.body.map((p: { id: number; empty_repo: boolean }) => [p.id, p.empty_repo]).sort(),
        [[id, false], [withReadme.body.id, false]].sort())
      // A fork is as empty as its source.
      const emptySource = await create(owner.token, { path: 'empty-source' })
      const emptyFork = await t.api('POST', `/projects/${emptySource.body.id}/fork`, { token: t.root.token })
      const fullFork = await t.api('POST', `/projects/${id}/fork`, { token: t.root.token })
      assert.deepEqual([emptyFork.body.empty_repo, fullFork.body.empty_repo], [true, false])

      // The last branch deleted by a push (here the push path itself, past the default branch
      // rule, which refuses it to callers) leaves it empty again.
      const repo = t.ctx.repositories.open(id)
      const tip = (await repo.resolveCommit('refs/heads/main'))!
      assert.ok(await repo.compareAndSwapRef('refs/heads/main', NULL_OID, tip))
      const row = await t.ctx.db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
      await afterPush(t.ctx, row, await rootActor(t), [{ ref: 'refs/heads/main', oldId: tip, newId: NULL_OID }])
      assert.equal((await getProject(id, owner.token)).body.empty_repo, true)
    })
  })

  describe('readme_url', () => {
    async function readmeUrlAfter(files: Record<string, string | null>, project?: { id: number }, owner?: TestUser) {
      const who = owner ?? await makeUser(t)
      const target = project ?? await makeProject(t, who, { visibility: 'public' })
      await commitFiles(t, target.id, files)
      await setDefaultBranch(target.id, 'master')
      await t.ctx.jobs.enqueue(REFRESH_STATISTICS, { projectId: target.id })
      await runJobs()
      const res = await getProject(target.id, t.root.token)
      return { url: res.body.readme_url as string | null, base: res.body.web_url as string, project: target, owner: who }
    }

    it('names the root README of the default branch, a rendered format before plain text, as the original', async () => {
      const rendered = await readmeUrlAfter({ 'README.txt': 'plain', 'readme.rst': 'rst', 'README.md': 'md', 'docs/README.md': 'nested' })
      assert.equal(rendered.url, `${rendered.base}/blob/master/README.md`)
      const plain = await readmeUrlAfter({ 'Readme.txt': 'plain', 'README.pdf': 'binary', 'src/README.md': 'nested' })
      assert.equal(plain.url, `${plain.base}/blob/master/Readme.txt`)
      const bare = await readmeUrlAfter({ README: 'no extension' })
      assert.equal(bare.url, `${bare.base}/blob/master/README`)
      const none = await readmeUrlAfter({ 'README.pdf': 'binary', 'docs/README.md': 'nested', 'READ.md': 'not it' })
      assert.equal(none.url, null)
      const spaced = await readmeUrlAfter({ 'README notes.md': 'odd name' })
      assert.equal(spaced.url, `${spaced.base}/blob/master/README%20notes.md`)
    })

    it('follows pushes (through the job) and the default branch (at once)', async () => {
      const first = await readmeUrlAfter({ 'README.md': 'hello' })
      assert.equal(first.url, `${first.base}/blob/master/README.md`)
      const removed = await readmeUrlAfter({ 'README.md': null, 'other.txt': 'x' }, first.project, first.owner)
      assert.equal(removed.url, null)

      const tip = await t.ctx.repositories.open(first.project.id).resolveCommit('master')
      await commitFiles(t, first.project.id, { 'README.markdown': 'on a branch' }, { branch: 'feature/docs', parent: tip })
      const switched = await t.api('PUT', `/projects/${first.project.id}`, { token: first.owner.token, body: { default_branch: 'feature/docs' } })
      assert.equal(switched.status, 200, switched.text)
      assert.equal(switched.body.readme_url, `${first.base}/blob/feature/docs/README.markdown`)
      const back = await t.api('PUT', `/projects/${first.project.id}`, { token: first.owner.token, body: { default_branch: 'master' } })
      assert.equal(back.body.readme_url, null)
    })

    it('stays null for an empty repository, and in lists follows the same rule', async () => {
      const owner = await makeUser(t)
      const empty = await makeProject(t, owner, { visibility: 'public' })
      await t.ctx.jobs.enqueue(REFRESH_STATISTICS, { projectId: empty.id })
      await runJobs()
      assert.equal((await getProject(empty.id, owner.token)).body.readme_url, null)
      const withReadme = await readmeUrlAfter({ 'README.md': 'x' }, undefined, owner)
      const list = await t.api('GET', `/users/${owner.user.id}/projects`, { token: owner.token, query: { order_by: 'id', sort: 'asc' } })
      assert.deepEqual(list.body.map((p: { readme_url: string | null }) => p.readme_url), [null, withReadme.url])
    })
  })
})
