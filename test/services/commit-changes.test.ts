// commitChanges, the one writer of file actions (commits and files APIs), against real repositories:
// every action and its checks, the branch rules (start_branch, an empty repository, push rules),
// and concurrent writers on one branch, where each commit either lands or is refused, never lost.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import { projectAccessFor, NO_PROJECT_ACCESS } from '../../src/finders/access.js'
import { DEVELOPER, MAINTAINER } from '../../src/policies/access-levels.js'
import type { ProjectRow } from '../../src/db/schema.js'
import type { ProjectSubject } from '../../src/policies/project-policy.js'
import { createProtectedBranch } from '../../src/services/protected-refs/protected-branches.js'
import { ApiError } from '../../src/common/errors.js'
import {
  branchMovedMessage, commitChanges, DIRECTORY_EXISTS, FILE_CHANGED, FILE_EXISTS, FILE_MISSING, SAME_CONTENT,
  type CommitAction, type CommitChangesRequest,
} from '../../src/services/commits/commit-changes.js'

describe('commitChanges', () => {
  let t: TestApp
  let owner: TestUser
  before(async () => {
    t = await buildTestApp()
    owner = await makeUser(t)
  })
  after(async () => { await t.close() })

  async function subjectOf(project: ProjectRow, user: TestUser): Promise<ProjectSubject> {
    const namespace = await t.ctx.db.selectFrom('namespaces').selectAll().where('id', '=', project.namespace_id).executeTakeFirstOrThrow()
    const access = (await projectAccessFor(t.ctx.db, user.user.id, [project.id])).get(project.id) ?? NO_PROJECT_ACCESS
    return { project, namespace, access }
  }

  /** A project of `owner` whose master holds `files`, and the commit that wrote them. */
  async function projectWith(files: Record<string, string>, executable: string[] = []) {
    const project = await makeProject(t, owner)
    const first = await commitFiles(t, project.id, files, { executable })
    return { project, first, subject: await subjectOf(project, owner), repo: t.ctx.repositories.open(project.id) }
  }

  /** The commit's id, or the status and message of the error it was refused with. */
  const commit = async (subject: ProjectSubject, request: Partial<CommitChangesRequest> & { actions: CommitAction[] }, user = owner) => {
    try {
      return { ok: true as const, commitId: await commitChanges(t.ctx, subject, user.actor, { branch: 'master', message: 'change', ...request }) }
    } catch (err) {
      if (err instanceof ApiError) return { ok: false as const, status: err.statusCode, message: err.body.message }
      throw err
    }
  }

  /** The files of a commit: path → [mode, content]. */
  async function filesAt(project: ProjectRow, revision: string): Promise<Record<string, [string, string]>> {
    const repo = t.ctx.repositories.open(project.id)
    const entries = await repo.listTree(revision, '', true)
    const files: Record<string, [string, string]> = {}
    for (const entry of entries.filter((e) => e.type === 'blob')) {
      files[entry.path] = [entry.mode, (await repo.read(entry.id))?.data.toString('utf8') ?? '']
    }
    return files
  }

  it('applies every action in one commit by the caller, on the branch tip', async () => {
    const { project, first, subject, repo } = await projectWith({ 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.sh': 'c\n', 'd.txt': 'd\n' })
    const result = await commit(subject, {
      message: 'all actions\n\nbody',
      actions: [
        { action: 'create', file_path: 'new/dir/n.txt', content: 'bmV3Cg==', encoding: 'base64' },
        { action: 'update', file_path: 'a.txt', content: 'A\n' },
        { action: 'delete', file_path: 'b.txt' },
        { action: 'chmod', file_path: 'c.sh', execute_filemode: true },
        { action: 'move', file_path: 'moved/d.txt', previous_path: 'd.txt' },
        { action: 'create', file_path: 'd.txt', content: 'again\n' },
      ],
    })
    assert.equal(result.ok, true)
    if (!result.ok) return
    assert.equal(await repo.resolveCommit('master'), result.commitId)
    const written = await repo.readCommit(result.commitId)
    assert.deepEqual(written?.parents, [first])
    assert.equal(written?.message, 'all actions\n\nbody')
    assert.deepEqual([written?.author.name, written?.author.email], [owner.user.name, owner.user.email])
    assert.deepEqual([written?.committer.name, written?.committer.email], [owner.user.name, owner.user.email])
    assert.deepEqual(await filesAt(project, result.commitId), {
      'a.txt': ['100644', 'A\n'],
      'c.sh': ['100755', 'c\n'],
      'd.txt': ['100644', 'again\n'],
      'moved/d.txt': ['100644', 'd\n'],
      'new/dir/n.txt': ['100644', 'new\n'],
    })
  })

  it('moves with new content, keeps the mode, and takes author overrides', async () => {
    const { project, subject } = await projectWith({ 'run.sh': 'old\n' }, ['run.sh'])
    const result = await commit(subject, {
      authorName: 'Grace Hopper', authorEmail: 'grace@example.com',
      actions: [{ action: 'move', previous_path: 'run.sh', file_path: 'bin/run.sh', content: 'new\n' }],
    })
    assert.equal(result.ok, true)
    if (!result.ok) return
    assert.deepEqual(await filesAt(project, result.commitId), { 'bin/run.sh': ['100755', 'new\n'] })
    const written = await t.ctx.repositories.open(project.id).readCommit(result.commitId)
    assert.deepEqual([written?.author.name, written?.author.email], ['Grace Hopper', 'grace@example.com'])
    assert.deepEqual([written?.committer.name, written?.committer.email], [owner.user.name, owner.user.email])
  })

  it('refuses actions the tree does not allow, moving nothing', async () => {
    const { subject, repo, first } = await projectWith({ 'a.txt': 'a\n', 'dir/x.txt': 'x\n' })
    const cases: [CommitAction, string][] = [
      [{ action: 'create', file_path: 'a.txt', content: '' }, FILE_EXISTS],
      [{ action: 'create', file_path: 'dir', content: '' }, DIRECTORY_EXISTS],
      [{ action: 'create', file_path: 'a.txt/inside', content: '' }, 'A file with the name `a.txt` already exists, so it cannot be a directory'],
      [{ action: 'update', file_path: 'nope.txt', content: 'x' }, FILE_MISSING],
      [{ action: 'update', file_path: 'dir', content: 'x' }, FILE_MISSING],
      [{ action: 'delete', file_path: 'nope.txt' }, FILE_MISSING],
      [{ action: 'chmod', file_path: 'nope.txt', execute_filemode: true }, FILE_MISSING],
      [{ action: 'move', file_path: 'b.txt', previous_path: 'nope.txt' }, FILE_MISSING],
      [{ action: 'move', file_path: 'dir/x.txt', previous_path: 'a.txt' }, FILE_EXISTS],
      [{ action: 'move', file_path: 'b.txt' }, 'You must supply the original file path when moving file `b.txt`'],
      [{ action: 'create', file_path: '../escape', content: '' }, 'Path cannot include directory traversal'],
      [{ action: 'create', file_path: 'dir/../../escape', content: '' }, 'Path cannot include directory traversal'],
      [{ action: 'create', file_path: '', content: '' }, 'You must provide a file path'],
      [{ action: 'create', file_path: '.git/config', content: '' }, 'The file path `.git/config` is not valid'],
      [{ action: 'create', file_path: 'a//b', content: '' }, 'The file path `a//b` is not valid'],
      [{ action: 'create', file_path: 'b.txt', content: '%%%', encoding: 'base64' }, 'The content of `b.txt` is not valid Base64'],
      [{ action: 'update', file_path: 'a.txt', content: 'x', last_commit_id: '0'.repeat(40) }, FILE_CHANGED],
    ]
    for (const [action, message] of cases) {
      assert.deepEqual(await commit(subject, { actions: [action] }), { ok: false, status: 400, message }, JSON.stringify(action))
    }
    assert.equal(await repo.resolveCommit('master'), first)
  })

  it('accepts the last commit id that touched the path, and strips leading slashes', async () => {
    const { project, subject, first } = await projectWith({ 'a.txt': 'a\n' })
    const result = await commit(subject, { actions: [{ action: 'update', file_path: '/a.txt', content: 'b\n', last_commit_id: first }] })
    assert.equal(result.ok, true)
    if (result.ok) assert.deepEqual(await filesAt(project, result.commitId), { 'a.txt': ['100644', 'b\n'] })
  })

  it('refuses an unchanged tree only when asked to', async () => {
    const { subject, first } = await projectWith({ 'a.txt': 'a\n' })
    const same = { actions: [{ action: 'update' as const, file_path: 'a.txt', content: 'a\n' }] }
    assert.deepEqual(await commit(subject, { ...same, refuseEmptyCommit: true }), { ok: false, status: 400, message: SAME_CONTENT })
    const empty = await commit(subject, same)
    assert.equal(empty.ok, true)
    if (empty.ok) assert.notEqual(empty.commitId, first)
  })

  it('starts a new branch from start_branch, and refuses one that exists or a missing start', async () => {
    const { subject, repo, first } = await projectWith({ 'a.txt': 'a\n' })
    const created = await commit(subject, { branch: 'feature', startBranch: 'master', actions: [{ action: 'create', file_path: 'f.txt', content: 'f' }] })
    assert.equal(created.ok, true)
    if (created.ok) assert.deepEqual((await repo.readCommit(created.commitId))?.parents, [first])
    assert.equal(await repo.resolveCommit('master'), first)
    const action: CommitAction = { action: 'create', file_path: 'g.txt', content: 'g' }
    assert.deepEqual(await commit(subject, { branch: 'feature', startBranch: 'master', actions: [action] }), {
      ok: false, status: 400, message: "A branch called 'feature' already exists. Switch to that branch in order to make changes",
    })
    assert.deepEqual(await commit(subject, { branch: 'other', actions: [action] }), {
      ok: false, status: 400, message: 'You can only create or edit files when you are on a branch',
    })
    assert.deepEqual(await commit(subject, { branch: 'other', startBranch: 'nope', actions: [action] }), {
      ok: false, status: 400, message: 'You can only create or edit files when you are on a branch',
    })
    assert.deepEqual(await commit(subject, { branch: 'bad..name', startBranch: 'master', actions: [action] }), {
      ok: false, status: 400, message: "Something went wrong when we tried to create 'bad..name' for you: Branch name is invalid",
    })
  })

  it('writes the first commit of an empty repository, which sets the default branch', async () => {
    const project = await makeProject(t, owner)
    const subject = await subjectOf(project, owner)
    const result = await commit(subject, { branch: 'main', actions: [{ action: 'create', file_path: 'README.md', content: '# hi\n' }] })
    assert.equal(result.ok, true)
    if (!result.ok) return
    assert.deepEqual((await t.ctx.repositories.open(project.id).readCommit(result.commitId))?.parents, [])
    const row = await t.ctx.db.selectFrom('projects').select('default_branch').where('id', '=', project.id).executeTakeFirstOrThrow()
    assert.equal(row.default_branch, 'main')
  })

  it('answers the push rules refusal for a protected branch', async () => {
    const { project, repo, first } = await projectWith({ 'a.txt': 'a\n' })
    const developer = await makeUser(t)
    await makeMember(t, { type: 'project', id: project.id }, developer, DEVELOPER)
    await createProtectedBranch(t.ctx.db, project.id, { name: 'master', pushAccessLevel: MAINTAINER, mergeAccessLevel: MAINTAINER })
    const result = await commit(await subjectOf(project, developer), { actions: [{ action: 'create', file_path: 'b.txt', content: 'b' }] }, developer)
    assert.deepEqual(result, { ok: false, status: 400, message: 'You are not allowed to push code to protected branches on this project.' })
    assert.equal(await repo.resolveCommit('master'), first)
  })

  it('never loses a commit when writers race on one branch', async () => {
    const { project, subject, repo } = await projectWith({ 'seed.txt': 'seed\n' })
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) =>
      commit(subject, { message: `writer ${i}`, actions: [{ action: 'create', file_path: `w${i}.txt`, content: `${i}\n` }] })))
    const winners = results.flatMap((r) => (r.ok ? [r.commitId] : []))
    const losers = results.filter((r) => !r.ok)
    assert.ok(winners.length >= 1)
    for (const loser of losers) assert.deepEqual(loser, { ok: false, status: 400, message: branchMovedMessage('master') })
    const history = (await repo.run(['rev-list', 'master'])).split('\n').filter((line) => line !== '')
    for (const id of winners) assert.ok(history.includes(id), `commit ${id} is in the history`)
    assert.equal(history.length, 1 + winners.length)
    const files = await filesAt(project, 'master')
    assert.equal(Object.keys(files).length, 1 + winners.length)
  })
})
