// afterPush's `commit_count`: a straight line of commits is counted through the cat-file readers,
// anything else (merges, long histories) by git rev-list, and both agree with git; a push of many
// refs is worked through a few at a time.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeProject, rootActor } from '../helpers/factories.js'
import { commitFiles, TEST_AUTHOR, writeCommitLine } from '../helpers/git.js'
import { PUSHED_REFS_AT_ONCE, afterPush } from '../../src/services/push/after-push.js'
import { gitProcessCounts } from '../../src/git/processes.js'
import { NULL_OID } from '../../src/git/repository.js'
import type { ProjectRow } from '../../src/db/schema.js'

describe('afterPush commit counts', () => {
  let t: TestApp
  before(async () => { t = await buildTestApp() })
  after(async () => { await t.close() })

  /** Records a push of master from `oldId` to its tip and returns the event's commit_count. */
  async function countOfPush(project: ProjectRow, oldId: string): Promise<number> {
    const newId = (await t.ctx.repositories.open(project.id).resolveCommit('refs/heads/master'))!
    await afterPush(t.ctx, project, await rootActor(t), [{ ref: 'refs/heads/master', oldId, newId }])
    const event = await t.ctx.db.selectFrom('events').select('push_data').where('project_id', '=', project.id)
      .orderBy('id', 'desc').executeTakeFirstOrThrow()
    return (JSON.parse(event.push_data!) as { commit_count: number }).commit_count
  }

  it('counts a straight line of commits, short or long, as git does', async () => {
    const project = await makeProject(t, null)
    const base = await commitFiles(t, project.id, { 'a.txt': '0\n' })
    for (let i = 1; i <= 3; i++) await commitFiles(t, project.id, { 'a.txt': `${i}\n` })
    assert.equal(await countOfPush(project, base), 3)
    const later = (await t.ctx.repositories.open(project.id).resolveCommit('refs/heads/master'))!
    await writeCommitLine(t.ctx.repositories.open(project.id), {
      ref: 'refs/heads/master', parent: later, count: 120, path: 'b.txt', contentOf: (i) => `${i}\n`, messageOf: (i) => `Change b.txt (${i})`,
    })
    assert.equal(await countOfPush(project, later), 120)
  })

  it('counts the commits a merge brings in', async () => {
    const project = await makeProject(t, null)
    const repo = t.ctx.repositories.open(project.id)
    const base = await commitFiles(t, project.id, { 'a.txt': 'base\n' })
    await commitFiles(t, project.id, { 's.txt': '1\n' }, { branch: 'side' })
    const side2 = await commitFiles(t, project.id, { 's.txt': '2\n' }, { branch: 'side' })
    const main = await commitFiles(t, project.id, { 'm.txt': 'main\n' })
    const tree = (await repo.run(['rev-parse', `${side2}^{tree}`])).trim()
    const env = {
      GIT_AUTHOR_NAME: TEST_AUTHOR.name, GIT_AUTHOR_EMAIL: TEST_AUTHOR.email,
      GIT_COMMITTER_NAME: TEST_AUTHOR.name, GIT_COMMITTER_EMAIL: TEST_AUTHOR.email,
    }
    const merge = (await repo.run(['commit-tree', tree, '-p', main, '-p', side2, '-m', 'Merge side'], { env })).trim()
    assert.ok(await repo.compareAndSwapRef('refs/heads/master', merge, main))
    // base..merge: main, side1, side2 and the merge itself.
    assert.equal(await countOfPush(project, base), 4)
  })

  it('works through a push of many refs a few at a time', async () => {
    const project = await makeProject(t, null)
    const repo = t.ctx.repositories.open(project.id)
    const head = await commitFiles(t, project.id, { 'a.txt': 'a\n' })
    // Each created branch is counted by a git rev-list of its own.
    const updates = Array.from({ length: 60 }, (_, i) => ({ ref: `refs/heads/many-${i}`, oldId: NULL_OID, newId: head }))
    for (const update of updates) assert.ok(await repo.compareAndSwapRef(update.ref, head, NULL_OID))
    await afterPush(t.ctx, project, await rootActor(t), updates)
    // (Nothing else in this file runs more than two at once.)
    const most = gitProcessCounts().get('rev-list')?.most ?? 0
    assert.ok(most > 0 && most <= PUSHED_REFS_AT_ONCE, `at most ${PUSHED_REFS_AT_ONCE} at once, not ${most}`)
    const events = await t.ctx.db.selectFrom('events').select('push_data').where('project_id', '=', project.id).execute()
    assert.equal(events.filter((event) => event.push_data?.includes('"many-') === true).length, 60)
  })
})
