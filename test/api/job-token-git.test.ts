// A job token beyond the protocol: while its job runs, `git clone` over HTTP with the login
// gitlab-ci-token (as repo_url and CI files written for the original use it) fetches what the job's
// user may read, never pushes, and stops working when the job ends; it resolves to the job's user
// with a job marker for the routes that accept job tokens.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs/promises'
import path from 'node:path'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { commitFiles } from '../helpers/git.js'
import { startGitClient, type GitClient } from '../helpers/git-server.js'
import { makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { makeRunner, requestJob, updateJob } from '../helpers/runners.js'
import { DEVELOPER } from '../../src/policies/access-levels.js'
import { actorForJobToken } from '../../src/auth/job-token.js'
import type { ProjectRow } from '../../src/db/schema.js'

describe('job tokens over git HTTP', () => {
  let t: TestApp
  let git: GitClient
  let developer: TestUser
  let project: ProjectRow
  let projectPath: string
  let job: { id: number; token: string; git_info: { repo_url: string } }

  before(async () => {
    t = await buildTestApp({ env: { INGOT_RUNNER_LONG_POLL_SECONDS: '0' } })
    git = await startGitClient(t)
    developer = await makeUser(t)
    project = await makeProject(t, null)
    await makeMember(t, { type: 'project', id: project.id }, developer, DEVELOPER)
    await commitFiles(t, project.id, { '.gitlab-ci.yml': 'clone: { script: x }', 'README.md': 'hello' })
    projectPath = `root/${project.path}`
    // The developer runs the pipeline: the job acts as them.
    assert.equal((await t.api('POST', `/projects/${project.id}/pipeline`, { token: developer.token, body: { ref: 'master' } })).status, 201)
    const res = await requestJob(t, await makeRunner(t))
    assert.equal(res.status, 201, res.text)
    job = res.body
  })
  after(async () => {
    await git.close()
    await t.close()
  })

  const credentials = () => ({ username: 'gitlab-ci-token', password: job.token })

  it('clones with repo_url\'s credentials while the job runs, as the job\'s user', async () => {
    const repoUrl = new URL(job.git_info.repo_url)
    assert.equal(repoUrl.username, 'gitlab-ci-token')
    const dir = path.join(git.dir, 'clone')
    await git.ok(['clone', git.url(projectPath, { username: repoUrl.username, password: decodeURIComponent(repoUrl.password) }), dir])
    assert.equal(await fs.readFile(path.join(dir, 'README.md'), 'utf8'), 'hello')
    const actor = await actorForJobToken(t.ctx.db, job.token)
    assert.equal(actor?.user.id, developer.user.id)
    assert.deepEqual(actor?.job, { id: job.id, projectId: project.id, pipelineId: (await t.ctx.db.selectFrom('ci_builds').select('pipeline_id').where('id', '=', job.id).executeTakeFirstOrThrow()).pipeline_id })
  })

  it('never pushes', async () => {
    const dir = path.join(git.dir, 'push')
    await git.ok(['clone', git.url(projectPath, credentials()), dir])
    await fs.writeFile(path.join(dir, 'new.txt'), 'new')
    await git.ok(['add', 'new.txt'], { cwd: dir })
    await git.ok(['commit', '-m', 'new'], { cwd: dir })
    const push = await git.git(['push', 'origin', 'master'], { cwd: dir })
    assert.notEqual(push.code, 0)
    assert.match(push.stderr, /You are not allowed to upload code/)
  })

  it('reads only what the job\'s user may read', async () => {
    const hidden = await makeProject(t, null)
    await commitFiles(t, hidden.id, { 'secret.txt': 'secret' })
    const clone = await git.git(['clone', git.url(`root/${hidden.path}`, credentials()), path.join(git.dir, 'hidden')])
    assert.notEqual(clone.code, 0)
    assert.match(clone.stderr, /The project you were looking for could not be found/)
  })

  it('dies with its job', async () => {
    assert.equal((await updateJob(t, job.id, job.token, { state: 'success' })).status, 200)
    const clone = await git.git(['clone', git.url(projectPath, credentials()), path.join(git.dir, 'after')])
    assert.notEqual(clone.code, 0)
    assert.match(clone.stderr, /Authentication failed|HTTP Basic: Access denied/)
    assert.equal(await actorForJobToken(t.ctx.db, job.token), null)
  })
})
