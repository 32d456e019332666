// The issues of project.json are written by the database (export-tree-sql-json.ts): their text must
// be what JSON.stringify writes for the same records. Checked on values that tell escapings,
// number forms and instant formats apart: each issue's text is JSON.stringify's own form (it
// survives a parse and stringify unchanged), its relations equal the JS records of
// export-tree-records.ts, and single values formatted by the database equal JSON.stringify's.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { PassThrough } from 'node:stream'
import { sql } from 'kysely'
import { buildTestApp, type ApiResponse, type TestApp } from '../../helpers/app.js'
import { makeProject, makeUser, type TestUser } from '../../helpers/factories.js'
import type { ProjectRow } from '../../../src/db/schema.js'
import { MAX_INSTANT, MIN_INSTANT, isoTime } from '../../../src/db/values.js'
import { writeProjectTree } from '../../../src/services/import-export/project-tree-writer.js'
import { instant } from '../../../src/services/import-export/export-tree-json.js'
import {
  awardEmojiOf, eventsOf, labelLinksOf, milestonesById, notesOf, timelogsOf,
} from '../../../src/services/import-export/export-tree-records.js'
import { SqlJsonDialect } from '../../../src/services/import-export/export-tree-sql-json.js'

const ok = (res: ApiResponse, status = 201) => {
  assert.equal(res.status, status, `${res.status} ${res.text}`)
  return res.body
}

/** Text that JSON escapes in every way it can: quotes, backslashes, control characters, non-ASCII, emoji, a lone surrogate. */
const TRICKY = 'a "quoted" \\ back\\slash / slash \b\f\n\r\t \u0001\u001f\u007f \u2028\u2029 é 中文 😀 \ud800 end'

async function projectJson(t: TestApp, projectId: number): Promise<string> {
  const out = new PassThrough()
  const chunks: Buffer[] = []
  out.on('data', (chunk: Buffer) => chunks.push(chunk))
  await writeProjectTree(t.ctx, projectId, out)
  out.end()
  return Buffer.concat(chunks).toString('utf8')
}

/** The issues' lines of project.json (one issue per line), by iid. */
function issueLines(text: string): Map<number, string> {
  const start = text.indexOf('"issues":[\n') + '"issues":[\n'.length
  const end = text.indexOf('\n]', start)
  const lines = text.slice(start, end).split(',\n')
  return new Map(lines.map((line) => [JSON.parse(line).iid as number, line]))
}

describe('project.json issues written by the database', () => {
  let t: TestApp
  let author: TestUser
  let project: ProjectRow
  let lines: Map<number, string>

  before(async () => {
    t = await buildTestApp()
    author = await makeUser(t, { name: `Author ${TRICKY}` })
    project = await makeProject(t, null)
    const base = `/projects/${project.id}`
    ok(await t.api('POST', `${base}/members`, { body: { user_id: author.user.id, access_level: 30 } }))
    ok(await t.api('POST', `${base}/labels`, { body: { name: 'bug "é" 中 😀', color: '#ff0000', description: TRICKY, priority: 2 } }))
    ok(await t.api('POST', `${base}/labels`, { body: { name: 'plain', color: '#00ff00' } }))
    const milestone = ok(await t.api('POST', `${base}/milestones`, { body: { title: `v1 ${TRICKY}`, description: TRICKY, due_date: '2030-01-31' } }))
    const tricky = ok(await t.api('POST', `${base}/issues`, {
      body: { title: TRICKY, description: TRICKY, labels: 'bug "é" 中 😀,plain', milestone_id: milestone.id, assignee_ids: [author.user.id], due_date: '2024-02-29' },
    }))
    ok(await t.api('POST', `${base}/issues/${tricky.iid}/notes`, { body: { body: TRICKY } }))
    ok(await t.api('POST', `${base}/issues/${tricky.iid}/notes`, { body: { body: 'by the author' }, token: author.token }))
    ok(await t.api('POST', `${base}/issues/${tricky.iid}/award_emoji`, { body: { name: 'heart' } }))
    ok(await t.api('PUT', `${base}/issues/${tricky.iid}`, { body: { state_event: 'close' } }), 200)
    // Instants with and without milliseconds, before 1970, and past the range (shown clamped);
    // the largest 32-bit numbers (the columns' range on PostgreSQL).
    await t.ctx.db.updateTable('issues').set({ confidential: 1, created_at: 1_465_916_528_340, updated_at: 1_465_916_528_000, closed_at: -1, time_estimate: 2_147_483_647, total_time_spent: 2_000_000_000 })
      .where('id', '=', tricky.id).execute()
    await t.ctx.db.updateTable('notes').set({ resolved_at: -86_400_001, created_at: 0, updated_at: 999 }).where('noteable_id', '=', tricky.id).execute()
    // A note on a diff line (as an import may restore one on an issue): its line code is written by noteRecord.
    const positioned = ok(await t.api('POST', `${base}/issues`, { body: { title: 'with a diff note' } }))
    const diffNote = ok(await t.api('POST', `${base}/issues/${positioned.iid}/notes`, { body: { body: 'on a line' } }))
    ok(await t.api('POST', `${base}/issues/${positioned.iid}/notes`, { body: { body: 'plain' } }))
    await t.ctx.db.updateTable('notes').set({ path: 'dir/a "b".txt', line: 3, line_type: 'new', type: 'DiffNote' }).where('id', '=', diffNote.id).execute()
    // Mostly nulls: no description, milestone, labels, notes or time.
    const bare = ok(await t.api('POST', `${base}/issues`, { body: { title: 'bare' } }))
    await t.ctx.db.updateTable('issues').set({ description: null, created_at: MAX_INSTANT, updated_at: MIN_INSTANT }).where('id', '=', bare.id).execute()
    lines = issueLines(await projectJson(t, project.id))
  })

  after(async () => {
    await t?.close()
  })

  it('writes each issue in JSON.stringify\'s form', () => {
    assert.equal(lines.size, 3)
    for (const line of lines.values()) assert.equal(JSON.stringify(JSON.parse(line)), line)
  })

  it('writes the relations as the JS records do', async () => {
    const { db } = t.ctx
    const issues = await db.selectFrom('issues').selectAll().where('project_id', '=', project.id).orderBy('iid').execute()
    const ids = issues.map((issue) => issue.id)
    const [events, notes, labelLinks, milestones, awards] = await Promise.all([
      eventsOf(db, 'Issue', ids), notesOf(db, 'Issue', ids, { events: true }), labelLinksOf(db, 'Issue', ids),
      milestonesById(db, issues.map((issue) => issue.milestone_id)), awardEmojiOf(db, 'Issue', ids),
    ])
    for (const issue of issues) {
      const written = JSON.parse(lines.get(issue.iid)!)
      assert.deepEqual(written.events, events.get(issue.id) ?? [])
      assert.deepEqual(written.notes, notes.get(issue.id) ?? [])
      assert.deepEqual(written.label_links, labelLinks.get(issue.id) ?? [])
      assert.deepEqual(written.milestone, issue.milestone_id === null ? undefined : milestones.get(issue.milestone_id))
      assert.deepEqual(written.award_emoji, awards.get(issue.id) ?? [])
      assert.deepEqual(written.timelogs, timelogsOf(issue, 'issue_id'))
      assert.deepEqual(Object.keys(written).includes('milestone'), issue.milestone_id !== null)
    }
    const tricky = JSON.parse(lines.get(issues[0]!.iid)!)
    assert.equal(tricky.notes.length, 3, 'two comments and the closing system note')
    assert.ok(tricky.notes.some((note: { events: unknown[] }) => note.events.length > 0), 'comments carry their events')
    assert.equal(tricky.label_links.length, 2)
    assert.equal(tricky.label_links[0].label.priorities.length, 1)
    const positioned = JSON.parse(lines.get(issues[1]!.iid)!)
    assert.match(positioned.notes[0].line_code, /^[0-9a-f]{40}_0_3$/)
    assert.equal(positioned.notes[1].line_code, null)
  })

  it('writes the issue\'s own values as the JS record does', async () => {
    const issues = await t.ctx.db.selectFrom('issues').selectAll().where('project_id', '=', project.id).orderBy('iid').execute()
    for (const issue of issues) {
      const written = JSON.parse(lines.get(issue.iid)!)
      assert.deepEqual({
        id: written.id, title: written.title, description: written.description, created_at: written.created_at, updated_at: written.updated_at,
        closed_at: written.closed_at, confidential: written.confidential, due_date: written.due_date, time_estimate: written.time_estimate,
        issue_assignees: written.issue_assignees,
      }, {
        id: issue.id, title: issue.title, description: issue.description, created_at: instant(issue.created_at), updated_at: instant(issue.updated_at),
        closed_at: instant(issue.closed_at), confidential: issue.confidential === 1, due_date: issue.due_date, time_estimate: Number(issue.time_estimate),
        issue_assignees: written.iid === issues[0]!.iid ? [{ user_id: author.user.id, issue_id: issue.id }] : [],
      })
    }
    assert.equal(JSON.parse(lines.get(issues[0]!.iid)!).title, issues[0]!.title)
  })

  it('formats single values as JSON.stringify, instants as isoTime', async () => {
    const json = new SqlJsonDialect(t.ctx.db)
    const select = async (expression: ReturnType<typeof json.value>) => (await sql<{ j: string }>`select ${expression} as j`.execute(t.ctx.db)).rows[0]!.j
    // Compared with the text as it reads back: a lone surrogate is stored as U+FFFD.
    for (const text of [TRICKY, '', "it's", null]) {
      const stored = sql`cast(${text} as text)`
      const { rows } = await sql<{ j: string; v: string | null }>`select ${json.value(stored)} as j, ${stored} as v`.execute(t.ctx.db)
      assert.equal(rows[0]!.j, JSON.stringify(rows[0]!.v), JSON.stringify(text))
    }
    for (const n of [0, -1, 2_147_483_647, 9_007_199_254_740_991, null]) {
      assert.equal(await select(json.number(sql`cast(${n} as bigint)`)), JSON.stringify(Number(n)))
    }
    const instants = [
      0, 1, -1, 999, -999, -1000, -1001, 1_465_916_528_340, 1_465_916_528_000, 951_782_400_000, 951_868_799_999, 4_102_444_800_000,
      -2_208_988_800_001, -62_135_596_800_000, -62_135_596_800_001, MIN_INSTANT, MIN_INSTANT - 1, MAX_INSTANT, MAX_INSTANT + 1, -9_007_199_254_740_991, 9_007_199_254_740_991,
    ]
    for (const ms of instants) assert.equal(await select(json.instant(sql`cast(${ms} as bigint)`)), JSON.stringify(isoTime(ms)), String(ms))
    assert.equal(await select(json.instant(sql`cast(${null} as bigint)`)), 'null')
    assert.equal(await select(json.flag(sql`cast(${1} as integer)`)), 'true')
    assert.equal(await select(json.flag(sql`cast(${0} as integer)`)), 'false')
    assert.equal(await select(json.flag(sql`cast(${null} as integer)`)), 'false')
  })
})
