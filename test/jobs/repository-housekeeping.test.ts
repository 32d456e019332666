// Repository housekeeping, with real pushes (git over HTTP and the API's commits) and real git on
// disk: pushes counted per project, an incremental (geometric) repack, a full repack and gc at
// multiples of the instance's periods, each leaving a reachability bitmap git verifies (none when
// bitmaps are off), the counter starting again after gc, the first push and a large push housekept
// at once, `.keep` packs left alone, nothing while housekeeping is off, and
// POST /projects/:id/housekeeping (Maintainers; 409 while one is pending or running).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs/promises'
import path from 'node:path'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { startGitClient, type GitClient } from '../helpers/git-server.js'
import type { ProjectRow } from '../../src/db/schema.js'
import { DEVELOPER, MAINTAINER } from '../../src/policies/access-levels.js'
import { HOUSEKEEP_REPOSITORY } from '../../src/services/projects/jobs.js'
import { LARGE_PUSH_BYTES } from '../../src/services/projects/housekeeping.js'
import { projectFullPath } from '../helpers/projects.js'

describe('repository housekeeping', () => {
  let t: TestApp
  let client: GitClient
  let owner: TestUser
  let counter = 0

  const setSettings = async (settings: Record<string, unknown>) => {
    const res = await t.api('PUT', '/application/settings', { body: settings })
    assert.equal(res.status, 200, res.text)
  }
  const fullPathOf = (project: ProjectRow) => projectFullPath(t, project)
  /** A clone of the project to push from. */
  const cloneOf = async (project: ProjectRow) => {
    const dir = path.join(client.dir, `work${(counter += 1)}`)
    await client.ok(['clone', client.url(await fullPathOf(project), { username: owner.user.username, password: owner.token }), dir])
    return dir
  }
  /** One commit pushed over HTTP (a few loose objects on the server, below git's unpack limit). */
  const push = async (dir: string) => {
    counter += 1
    await fs.writeFile(path.join(dir, `file${counter}.txt`), `content ${counter}\n`)
    await client.ok(['add', '.'], { cwd: dir })
    await client.ok(['commit', '-q', '-m', `Commit ${counter}`], { cwd: dir })
    await client.ok(['push', '-q', 'origin', 'HEAD:master'], { cwd: dir })
  }
  /**
   * What is on disk: loose objects, packs, and the bitmap git reads (a multi-pack index's is read
   * before a pack's), checked by git against a walk of history from HEAD.
   */
  const objects = async (project: ProjectRow) => {
    const gitDir = t.ctx.repositories.repositoryPath(project.id)
    const repo = t.ctx.repositories.open(project.id)
    const counts = await repo.run(['count-objects', '-v'])
    const loose = Number(/^count: (\d+)$/m.exec(counts)?.[1])
    const packDir = await fs.readdir(path.join(gitDir, 'objects', 'pack'))
    const midx = packDir.includes('multi-pack-index')
    const midxBitmaps = packDir.filter((f) => /^multi-pack-index-\w+\.bitmap$/.test(f)).length
    const packBitmaps = packDir.filter((f) => /^pack-\w+\.bitmap$/.test(f)).length
    assert.ok(midx || midxBitmaps === 0, 'no multi-pack bitmap without its index')
    const bitmap = midx && midxBitmaps === 1 ? 'multi-pack' : packBitmaps === 1 ? 'pack' : midxBitmaps + packBitmaps === 0 ? null : 'several'
    if (bitmap !== null) await repo.run(['rev-list', '--test-bitmap', 'HEAD'])
    return { loose, packs: packDir.filter((f) => f.endsWith('.pack')).length, bitmap }
  }
  const projectRow = (project: ProjectRow) =>
    t.ctx.db.selectFrom('projects').select(['pushes_since_gc', 'housekeeping_lease_until']).where('id', '=', project.id).executeTakeFirstOrThrow()
  const housekeepingJobs = async (project: ProjectRow) => (await t.ctx.jobs.list({ kind: HOUSEKEEP_REPOSITORY.name }))
    .filter((job) => (job.payload as { projectId: number }).projectId === project.id)
  /** The task of the project's one pending housekeeping job, or null when none is pending. */
  const pendingTask = async (project: ProjectRow) => {
    const jobs = await housekeepingJobs(project)
    assert.ok(jobs.length <= 1, 'never two housekeeping jobs of a project')
    return jobs.length === 0 ? null : (jobs[0]!.payload as { task: string }).task
  }

  before(async () => {
    t = await buildTestApp()
    client = await startGitClient(t)
    owner = await makeUser(t)
    await setSettings({ housekeeping_incremental_repack_period: 1, housekeeping_full_repack_period: 3, housekeeping_gc_period: 6 })
  })
  after(async () => {
    await client.close()
    await t.close()
  })

  it('repacks incrementally, then fully with a bitmap, then runs gc, at multiples of the periods; gc starts the count again', async () => {
    const project = await makeProject(t, owner)
    const dir = await cloneOf(project)
    await push(dir)
    assert.equal((await projectRow(project)).pushes_since_gc, 1)
    assert.equal(await pendingTask(project), 'incremental_repack')
    assert.ok((await objects(project)).loose > 0)
    await t.ctx.jobs.runDue()
    assert.deepEqual(await objects(project), { loose: 0, packs: 1, bitmap: 'multi-pack' })
    assert.equal((await projectRow(project)).housekeeping_lease_until, null)

    await push(dir)
    await t.ctx.jobs.runDue()
    assert.deepEqual(await objects(project), { loose: 0, packs: 2, bitmap: 'multi-pack' })

    // A commit through the API is a push too.
    const commit = await t.api('POST', `/projects/${project.id}/repository/files/api.txt`, {
      token: owner.token, body: { branch: 'master', content: 'by the API\n', commit_message: 'By the API' },
    })
    assert.equal(commit.status, 201, commit.text)
    assert.equal((await projectRow(project)).pushes_since_gc, 3)
    assert.equal(await pendingTask(project), 'full_repack')
    await t.ctx.jobs.runDue()
    assert.deepEqual(await objects(project), { loose: 0, packs: 1, bitmap: 'pack' })

    await client.ok(['pull', '-q', '--ff-only', 'origin', 'master'], { cwd: dir })
    for (let pushes = 4; pushes <= 5; pushes++) {
      await push(dir)
      await t.ctx.jobs.runDue()
    }
    assert.deepEqual(await objects(project), { loose: 0, packs: 3, bitmap: 'multi-pack' })
    await push(dir)
    assert.equal(await pendingTask(project), 'gc')
    assert.equal((await projectRow(project)).pushes_since_gc, 0)
    await t.ctx.jobs.runDue()
    assert.deepEqual(await objects(project), { loose: 0, packs: 1, bitmap: 'pack' })
    // gc packs the refs too.
    await fs.access(path.join(t.ctx.repositories.repositoryPath(project.id), 'packed-refs'))

    await push(dir)
    assert.equal((await projectRow(project)).pushes_since_gc, 1)
    await t.ctx.jobs.runDue()
    await client.ok(['fetch', '-q', 'origin'], { cwd: dir })
  })

  it('writes no bitmap when bitmaps are off, and does nothing but count while housekeeping is off', async () => {
    const project = await makeProject(t, owner)
    const dir = await cloneOf(project)
    await setSettings({ housekeeping_bitmaps_enabled: false })
    try {
      for (let pushes = 1; pushes <= 3; pushes++) {
        await push(dir)
        await t.ctx.jobs.runDue()
      }
      assert.deepEqual(await objects(project), { loose: 0, packs: 1, bitmap: null })
    } finally {
      await setSettings({ housekeeping_bitmaps_enabled: true })
    }
    await setSettings({ housekeeping_enabled: false })
    try {
      for (let pushes = 4; pushes <= 6; pushes++) await push(dir)
      assert.equal((await projectRow(project)).pushes_since_gc, 6)
      assert.equal(await pendingTask(project), null)
      assert.ok((await objects(project)).loose > 0)
    } finally {
      await setSettings({ housekeeping_enabled: true })
    }
  })

  it('starts at once after the first push and after a push of a large pack; a small push waits for its count', async () => {
    await setSettings({ housekeeping_incremental_repack_period: 10, housekeeping_full_repack_period: 50, housekeeping_gc_period: 200 })
    try {
      const project = await makeProject(t, owner)
      const dir = await cloneOf(project)
      await push(dir)
      assert.equal(await pendingTask(project), 'incremental_repack')
      await t.ctx.jobs.runDue()
      assert.deepEqual(await objects(project), { loose: 0, packs: 1, bitmap: 'multi-pack' })

      await push(dir)
      assert.equal((await projectRow(project)).pushes_since_gc, 2)
      assert.equal(await pendingTask(project), null)

      // Random bytes: the pack cannot be smaller than the file.
      await fs.writeFile(path.join(dir, 'large.bin'), randomBytes(LARGE_PUSH_BYTES + 64 * 1024))
      await push(dir)
      assert.equal(await pendingTask(project), 'incremental_repack')
      await t.ctx.jobs.runDue()
      assert.deepEqual(await objects(project), { loose: 0, packs: 2, bitmap: 'multi-pack' })
    } finally {
      await setSettings({ housekeeping_incremental_repack_period: 1, housekeeping_full_repack_period: 3, housekeeping_gc_period: 6 })
    }
  })

  it('leaves .keep packs, and reads no multi-pack index from before a full repack or gc', async () => {
    const project = await makeProject(t, owner)
    const dir = await cloneOf(project)
    const packDir = path.join(t.ctx.repositories.repositoryPath(project.id), 'objects', 'pack')
    /** Runs the task the push count `count` picks, through the API. */
    const housekeepAt = async (count: number, task: string) => {
      await t.ctx.db.updateTable('projects').set({ pushes_since_gc: count }).where('id', '=', project.id).execute()
      assert.equal((await t.api('POST', `/projects/${project.id}/housekeeping`, { token: owner.token })).status, 201)
      assert.equal(await pendingTask(project), task)
      await t.ctx.jobs.runDue()
    }
    await push(dir)
    await t.ctx.jobs.runDue()
    assert.deepEqual(await objects(project), { loose: 0, packs: 1, bitmap: 'multi-pack' })
    // The full repack writes the same pack again (the same objects), so git deletes no pack and
    // keeps the multi-pack index over it.
    await housekeepAt(3, 'full_repack')
    assert.deepEqual(await objects(project), { loose: 0, packs: 1, bitmap: 'pack' })
    assert.ok(!(await fs.readdir(packDir)).some((f) => f.startsWith('multi-pack-index')))

    const [kept] = (await fs.readdir(packDir)).filter((f) => f.endsWith('.pack'))
    await fs.writeFile(path.join(packDir, kept!.replace(/\.pack$/, '.keep')), '')
    await push(dir)
    await t.ctx.jobs.runDue()
    assert.deepEqual(await objects(project), { loose: 0, packs: 2, bitmap: 'multi-pack' })
    await housekeepAt(3, 'full_repack')
    assert.deepEqual(await objects(project), { loose: 0, packs: 2, bitmap: 'pack' })
    await housekeepAt(6, 'gc')
    assert.deepEqual(await objects(project), { loose: 0, packs: 2, bitmap: 'pack' })
    assert.ok((await fs.readdir(packDir)).includes(kept!))
  })

  describe('POST /projects/:id/housekeeping', () => {
    it('starts the task the push count picks: 201 with the job id, 409 while it is pending', async () => {
      const project = await makeProject(t, owner)
      const dir = await cloneOf(project)
      await setSettings({ housekeeping_enabled: false })
      try {
        await push(dir)
        await push(dir)
      } finally {
        await setSettings({ housekeeping_enabled: true })
      }
      const res = await t.api('POST', `/projects/${project.id}/housekeeping`, { token: owner.token })
      assert.equal(res.status, 201, res.text)
      const [job] = await housekeepingJobs(project)
      assert.equal(res.body, String(job?.id))
      assert.equal(res.headers['content-type'], 'application/json')
      assert.equal(await pendingTask(project), 'incremental_repack')

      const again = await t.api('POST', `/projects/${project.id}/housekeeping`, { token: owner.token })
      assert.deepEqual([again.status, again.body], [409, { message: 'Somebody already triggered housekeeping for this project in the past 1440 minutes' }])
      // A push due housekeeping meanwhile adds no second job.
      await push(dir)
      assert.equal(await pendingTask(project), 'incremental_repack')

      await t.ctx.jobs.runDue()
      assert.deepEqual(await objects(project), { loose: 0, packs: 1, bitmap: 'multi-pack' })
      // Once done, another may start; with no push counted since gc, that is gc.
      await t.ctx.db.updateTable('projects').set({ pushes_since_gc: 0 }).where('id', '=', project.id).execute()
      assert.equal((await t.api('POST', `/projects/${project.id}/housekeeping`, { token: owner.token })).status, 201)
      assert.equal(await pendingTask(project), 'gc')
      await t.ctx.jobs.runDue()
      assert.deepEqual(await objects(project), { loose: 0, packs: 1, bitmap: 'pack' })
    })

    it('is for Maintainers: 403 for Developers, 404 for outsiders of a private project, 401 anonymous', async () => {
      const project = await makeProject(t, owner)
      const developer = await makeUser(t)
      const maintainer = await makeUser(t)
      const outsider = await makeUser(t)
      await makeMember(t, { type: 'project', id: project.id }, developer, DEVELOPER)
      await makeMember(t, { type: 'project', id: project.id }, maintainer, MAINTAINER)
      const post = (token: string | null) => t.api('POST', `/projects/${project.id}/housekeeping`, { token })
      assert.deepEqual([(await post(null)).status, (await post(null)).body], [401, { message: '401 Unauthorized' }])
      assert.deepEqual([(await post(outsider.token)).status, (await post(outsider.token)).body], [404, { message: '404 Project Not Found' }])
      assert.deepEqual([(await post(developer.token)).status, (await post(developer.token)).body], [403, { message: '403 Forbidden' }])
      assert.equal(await pendingTask(project), null)
      assert.equal((await post(maintainer.token)).status, 201)
      await t.ctx.jobs.runDue()
      assert.equal((await projectRow(project)).housekeeping_lease_until, null)
    })
  })
})
