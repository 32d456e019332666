// Merges whose process died (recover-stuck-merges.ts): a merge request left `locked` becomes merged
// when its target branch holds the commit the merge built, opened otherwise, and a merge still
// within its time is left alone. The dead merges are the states a real merge leaves at each point:
// before building, built but the branch not moved, the branch moved but the row not written.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { makeMergeRequest, setMergeRequestColumns } from '../helpers/merge-requests.js'
import { commitFiles } from '../helpers/git.js'
import { recoverStuckMerges, STUCK_AFTER_MS } from '../../src/services/merge-requests/recover-stuck-merges.js'
import type { ProjectRow } from '../../src/db/schema.js'

describe('stuck merges', () => {
  let t: TestApp
  let owner: TestUser
  let project: ProjectRow

  before(async () => {
    t = await buildTestApp()
    owner = await makeUser(t)
    project = await makeProject(t, owner)
    await commitFiles(t, project.id, { 'README.md': 'hello\n' })
  })
  after(() => t.close())

  const rowOf = (id: number) => t.ctx.db.selectFrom('merge_requests').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
  const later = () => Date.now() + STUCK_AFTER_MS + 1000

  it('records when a merge began and the commit it moved the branch to, and clears both when it ends', async () => {
    const mr = await makeMergeRequest(t, project, null)
    const res = await t.api('PUT', `/projects/${project.id}/merge_requests/${mr.iid}/merge`, {})
    assert.equal(res.status, 200, res.text)
    const merged = await rowOf(mr.id)
    assert.equal(merged.merge_started_at, null)
    assert.equal(merged.in_progress_merge_commit_sha, null)
  })

  it('marks merged the one whose branch moved to the built merge, keeping the merge commit; opens the others', async () => {
    // Moved: the merge landed, then the process died before writing the row.
    const moved = await makeMergeRequest(t, project, null)
    assert.equal((await t.api('PUT', `/projects/${project.id}/merge_requests/${moved.iid}/merge`, {})).status, 200)
    const mergeCommit = (await rowOf(moved.id)).merge_commit_sha!
    const startedAt = Date.now() - 1000
    await setMergeRequestColumns(t, moved.id, {
      state: 'locked', merged_at: null, merged_by_id: null, merge_commit_sha: null, merge_started_at: startedAt, in_progress_merge_commit_sha: mergeCommit,
    })
    // Built, not moved: a commit that is not on master.
    const built = await makeMergeRequest(t, project, null)
    const stray = await commitFiles(t, project.id, { 'stray.txt': 'x\n' }, { branch: 'stray' })
    await setMergeRequestColumns(t, built.id, { state: 'locked', merge_started_at: startedAt, in_progress_merge_commit_sha: stray })
    // Died before building.
    const early = await makeMergeRequest(t, project, null)
    await setMergeRequestColumns(t, early.id, { state: 'locked', merge_started_at: startedAt })
    // Still merging: within its time.
    const running = await makeMergeRequest(t, project, null)
    await setMergeRequestColumns(t, running.id, { state: 'locked', merge_started_at: Date.now() })

    // Within their time, nothing is touched.
    assert.deepEqual(await recoverStuckMerges(t.ctx), { merged: 0, reopened: 0 })
    const now = startedAt + STUCK_AFTER_MS + 1
    assert.deepEqual(await recoverStuckMerges(t.ctx, now), { merged: 1, reopened: 2 })

    const landed = await rowOf(moved.id)
    assert.equal(landed.state, 'merged')
    assert.equal(landed.merge_commit_sha, mergeCommit)
    assert.equal(landed.merged_at, now)
    for (const id of [built.id, early.id]) {
      const row = await rowOf(id)
      assert.equal(row.state, 'opened')
      assert.equal(row.merge_started_at, null)
      assert.equal(row.in_progress_merge_commit_sha, null)
    }
    assert.equal((await rowOf(running.id)).state, 'locked')
    await setMergeRequestColumns(t, running.id, { state: 'opened', merge_started_at: null })
    // An opened one merges normally again.
    assert.equal((await t.api('PUT', `/projects/${project.id}/merge_requests/${early.iid}/merge`, {})).status, 200)
  })

  it('keeps no merge commit for a fast-forward that landed', async () => {
    const mr = await makeMergeRequest(t, project, null)
    const master = await t.ctx.repositories.open(project.id).resolveCommit('refs/heads/master')
    // The source branch's commit sits on master: a fast-forward moved it there.
    const ahead = await commitFiles(t, project.id, { 'ff.txt': 'ff\n' }, { branch: 'master', parent: master! })
    await setMergeRequestColumns(t, mr.id, { state: 'locked', merge_started_at: 1, in_progress_merge_commit_sha: ahead })
    assert.deepEqual(await recoverStuckMerges(t.ctx, later()), { merged: 1, reopened: 0 })
    const row = await rowOf(mr.id)
    assert.equal(row.state, 'merged')
    assert.equal(row.merge_commit_sha, null)
  })
})
