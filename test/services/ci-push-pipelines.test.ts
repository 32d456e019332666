// Pipelines from real pushes (git over HTTP): one per pushed branch or tag once the job has run,
// none for `[ci skip]`/`[skip ci]`, a deletion, or a project whose jobs are disabled; `only:
// changes` sees what a push to an existing branch changed.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs/promises'
import path from 'node:path'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { startGitClient, type GitClient } from '../helpers/git-server.js'
import { projectFullPath } from '../helpers/projects.js'
import type { ProjectRow } from '../../src/db/schema.js'

describe('pipelines from pushes', () => {
  let t: TestApp
  let client: GitClient
  let owner: TestUser
  let counter = 0

  before(async () => {
    t = await buildTestApp()
    client = await startGitClient(t)
    owner = await makeUser(t)
  })
  after(async () => {
    await client.close()
    await t.close()
  })

  async function cloneOf(project: ProjectRow): Promise<string> {
    const dir = path.join(client.dir, `work${(counter += 1)}`)
    await client.ok(['clone', '-q', client.url(await projectFullPath(t, project), { username: owner.user.username, password: owner.token }), dir])
    return dir
  }

  async function commit(dir: string, files: Record<string, string>, message: string): Promise<string> {
    for (const [name, content] of Object.entries(files)) {
      await fs.mkdir(path.dirname(path.join(dir, name)), { recursive: true })
      await fs.writeFile(path.join(dir, name), content)
    }
    await client.ok(['add', ...Object.keys(files)], { cwd: dir })
    await client.ok(['commit', '-q', '-m', message], { cwd: dir })
    return (await client.ok(['rev-parse', 'HEAD'], { cwd: dir })).trim()
  }

  async function pipelines(project: ProjectRow) {
    await t.ctx.jobs.runDue()
    return t.ctx.db.selectFrom('ci_pipelines').selectAll().where('project_id', '=', project.id).orderBy('id').execute()
  }

  async function jobNames(pipelineId: number): Promise<string[]> {
    return (await t.ctx.db.selectFrom('ci_builds').select('name').where('pipeline_id', '=', pipelineId).orderBy('id').execute()).map((j) => j.name)
  }

  it('creates one pipeline per pushed ref, none for [ci skip] or a deletion', async () => {
    const project = await makeProject(t, owner)
    const dir = await cloneOf(project)
    const first = await commit(dir, { '.gitlab-ci.yml': 'test: { script: make test }\ndocs: { script: make docs, only: { changes: ["docs/*"] } }\n' }, 'Add CI')
    await client.ok(['push', '-q', 'origin', 'HEAD:master'], { cwd: dir })
    let found = await pipelines(project)
    assert.equal(found.length, 1)
    assert.deepEqual({ ...found[0], id: 0 }, {
      ...found[0], id: 0, project_id: project.id, ref: 'master', tag: 0, sha: first, before_sha: null, source: 'push', status: 'pending', user_id: owner.user.id,
    })
    assert.deepEqual(await jobNames(found[0]!.id), ['test', 'docs'], 'a new branch satisfies every changes')

    await commit(dir, { 'src.txt': 'x' }, 'Skip this one [CI SKIP]')
    await client.ok(['push', '-q', 'origin', 'HEAD:master'], { cwd: dir })
    await commit(dir, { 'src.txt': 'y' }, 'And this\n\n[skip ci]')
    await client.ok(['push', '-q', 'origin', 'HEAD:master'], { cwd: dir })
    assert.equal((await pipelines(project)).length, 1)

    const third = await commit(dir, { 'src.txt': 'z' }, 'Change code')
    await client.ok(['push', '-q', 'origin', 'HEAD:master', 'HEAD:refs/tags/v1'], { cwd: dir })
    found = await pipelines(project)
    assert.equal(found.length, 3)
    const [branch, tag] = [found.find((p) => p.tag === 0 && p.sha === third)!, found.find((p) => p.tag === 1)!]
    assert.ok(branch.before_sha !== null)
    assert.deepEqual(await jobNames(branch.id), ['test'], 'docs did not change')
    assert.equal(tag.ref, 'v1')
    assert.deepEqual(await jobNames(tag.id), ['test', 'docs'])

    await client.ok(['push', '-q', 'origin', ':refs/tags/v1'], { cwd: dir })
    assert.equal((await pipelines(project)).length, 3)
  })

  it('creates none while the project\'s jobs are disabled, and a failed one for a bad file', async () => {
    const project = await makeProject(t, owner, { jobs_enabled: false })
    const dir = await cloneOf(project)
    await commit(dir, { '.gitlab-ci.yml': 'test: { script: x }\n' }, 'Add CI')
    await client.ok(['push', '-q', 'origin', 'HEAD:master'], { cwd: dir })
    assert.equal((await pipelines(project)).length, 0)

    const other = await makeProject(t, owner)
    const otherDir = await cloneOf(other)
    await commit(otherDir, { '.gitlab-ci.yml': 'test: { script: [1, [2]] }\n' }, 'Bad CI')
    await client.ok(['push', '-q', 'origin', 'HEAD:master'], { cwd: otherDir })
    const [failed] = await pipelines(other)
    assert.equal(failed?.status, 'failed')
    assert.ok(failed?.yaml_errors)
  })
})
