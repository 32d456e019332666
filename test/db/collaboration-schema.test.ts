// What migration 0004 keeps by itself: iids handed out once per project, issue counts and
// open_issues_count kept by triggers through every write, and the issue search index kept current.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeProject } from '../helpers/factories.js'
import { nextInternalId } from '../../src/services/issuables/internal-ids.js'
import { issuableConditions } from '../../src/finders/issuable-filters.js'

describe('collaboration schema', () => {
  let t: TestApp
  before(async () => { t = await buildTestApp() })
  after(async () => { await t.close() })

  const insertIssue = async (projectId: number, iid: number, title: string, description: string | null = null) => {
    const now = Date.now()
    const row = await t.ctx.db.insertInto('issues').values({
      project_id: projectId, iid, author_id: t.root.user.id, title, description, milestone_id: null, due_date: null,
      closed_at: null, closed_by_id: null, moved_to_id: null, created_at: now, updated_at: now,
    }).returning('id').executeTakeFirstOrThrow()
    return row.id
  }
  const counts = async (projectId: number) => {
    const rows = await t.ctx.db.selectFrom('issue_counts').selectAll().where('project_id', '=', projectId).execute()
    const project = await t.ctx.db.selectFrom('projects').select('open_issues_count').where('id', '=', projectId).executeTakeFirstOrThrow()
    const byKey = Object.fromEntries(rows.map((row) => [`${row.state}/${row.confidential}`, Number(row.value)]))
    return { ...byKey, open: Number(project.open_issues_count) }
  }

  it('hands out iids once each, per owner and usage, under concurrency', async () => {
    const project = await makeProject(t, null)
    const other = await makeProject(t, null)
    const iids = await Promise.all(Array.from({ length: 20 }, () =>
      t.ctx.db.transaction().execute((trx) => nextInternalId(trx, { type: 'project', id: project.id }, 'issues'))))
    assert.deepEqual([...iids].sort((a, b) => a - b), Array.from({ length: 20 }, (_, i) => i + 1))
    assert.equal(await nextInternalId(t.ctx.db, { type: 'project', id: other.id }, 'issues'), 1)
    assert.equal(await nextInternalId(t.ctx.db, { type: 'project', id: project.id }, 'merge_requests'), 1)
  })

  it('keeps issue counts and open_issues_count through insert, close, confidentiality, move and delete', async () => {
    const project = await makeProject(t, null)
    const target = await makeProject(t, null)
    const first = await insertIssue(project.id, 1, 'First')
    await insertIssue(project.id, 2, 'Second')
    assert.deepEqual(await counts(project.id), { 'opened/0': 2, open: 2 })
    await t.ctx.db.updateTable('issues').set({ state: 'closed' }).where('id', '=', first).execute()
    assert.deepEqual(await counts(project.id), { 'opened/0': 1, 'closed/0': 1, open: 1 })
    await t.ctx.db.updateTable('issues').set({ confidential: 1 }).where('id', '=', first).execute()
    assert.deepEqual(await counts(project.id), { 'opened/0': 1, 'closed/0': 0, 'closed/1': 1, open: 1 })
    await t.ctx.db.updateTable('issues').set({ project_id: target.id, iid: 1 }).where('state', '=', 'opened').where('project_id', '=', project.id).execute()
    assert.deepEqual(await counts(project.id), { 'opened/0': 0, 'closed/0': 0, 'closed/1': 1, open: 0 })
    assert.deepEqual(await counts(target.id), { 'opened/0': 1, open: 1 })
    await t.ctx.db.deleteFrom('issues').where('project_id', '=', target.id).execute()
    assert.deepEqual(await counts(target.id), { 'opened/0': 0, open: 0 })
  })

  it('finds issues by words of title or description through the search index, as it changes', async () => {
    const project = await makeProject(t, null)
    const a = await insertIssue(project.id, 1, 'Crash on Startup', 'the parser fails')
    const b = await insertIssue(project.id, 2, 'Slow startup', null)
    const search = async (query: string) => {
      const rows = await t.ctx.db.selectFrom('issues as i').select('i.id').where('i.project_id', '=', project.id)
        .where((eb) => eb.and(issuableConditions(t.ctx.db, 'Issue', 'i', { search: query }, null))).orderBy('i.id').execute()
      return rows.map((row) => row.id)
    }
    assert.deepEqual(await search('startup'), [a, b])
    assert.deepEqual(await search('STARTUP crash'), [a])
    assert.deepEqual(await search('parser fails'), [a])
    assert.deepEqual(await search('crash parser'), [], 'every word must be in the same field')
    assert.deepEqual(await search('"on start"'), [a])
    await t.ctx.db.updateTable('issues').set({ description: 'the parser hangs' }).where('id', '=', a).execute()
    assert.deepEqual(await search('fails'), [])
    assert.deepEqual(await search('hangs'), [a])
    await t.ctx.db.deleteFrom('issues').where('id', '=', a).execute()
    assert.deepEqual(await search('startup'), [b])
    assert.deepEqual(await search('Slow startup'), [b])
  })

  it('searches with an index', async () => {
    if (t.ctx.dialect === 'postgres') {
      const plan = await t.ctx.db.transaction().execute(async (trx) => {
        await sql`set local enable_seqscan = off`.execute(trx)
        return sql`explain select id from issues where lower(title) like '%abc%'`.execute(trx)
      })
      assert.match(JSON.stringify(plan.rows), /issues_title_trgm/)
      return
    }
    const plan = await sql`explain query plan select rowid from issues_search where issues_search match 'title : ("abc")'`.execute(t.ctx.db)
    assert.match(JSON.stringify(plan.rows), /VIRTUAL TABLE INDEX/)
  })
})
