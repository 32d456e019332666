// Records the relations of project.json share, in the original's shapes (release 11.5 as_json of its
// models under import_export.yml): events, labels with their priorities, milestones with their
// events, notes with their author and events, award emoji. Each loader takes a whole batch of
// parents and reads each child relation in one query (a few for very long id lists). Next to each
// JS record is its SQL counterpart (`…Json`), the same text written by the database for the issues
// (test/services/import-export/export-sql-json.test.ts holds the two to the same bytes).
import { createHash } from 'node:crypto'
import { sql, type RawBuilder } from 'kysely'
import type { Db } from '../../db/index.js'
import type { EventAction, EventRow, LabelRow, MilestoneRow, NoteRow } from '../../db/schema.js'
import { bool, groupBy, instant, rowsIn } from './export-tree-json.js'
import { constant, type SqlJson, type SqlJsonDialect } from './export-tree-sql-json.js'

/** The original's Event action codes (app/models/event.rb). */
const EVENT_ACTIONS: Record<EventAction, number> = {
  created: 1, updated: 2, closed: 3, reopened: 4, pushed: 5, commented: 6, merged: 7, joined: 8, left: 9, destroyed: 10, expired: 11,
}

export type JsonRecord = Record<string, unknown>

export function eventRecord(event: EventRow): JsonRecord {
  return {
    id: event.id,
    project_id: event.project_id,
    author_id: event.author_id,
    target_id: event.target_id,
    created_at: instant(event.created_at),
    updated_at: instant(event.created_at),
    target_type: event.target_type,
    action: EVENT_ACTIONS[event.action],
  }
}

/** A column of a table alias in the SQL shapes below. */
const column = (alias: string, name: string) => sql.ref(`${alias}.${name}`)

/** eventRecord's JSON, by the database, of the events of one target: `targetId` is the target's id column. */
export function eventsJson(json: SqlJsonDialect, targetType: 'Issue' | 'MergeRequest' | 'Note' | 'Milestone', targetId: RawBuilder<unknown>): SqlJson {
  const e = (name: string) => column('e', name)
  const action = sql.raw<string>(`case e.action ${Object.entries(EVENT_ACTIONS).map(([name, code]) => `when '${name}' then '${code}'`).join(' ')} end`)
  return json.array(json.object([
    ['id', json.value(e('id'))],
    ['project_id', json.value(e('project_id'))],
    ['author_id', json.value(e('author_id'))],
    ['target_id', json.value(e('target_id'))],
    ['created_at', json.instant(e('created_at'))],
    ['updated_at', json.instant(e('created_at'))],
    ['target_type', json.value(e('target_type'))],
    ['action', action],
  ]), sql`from events e where e.target_type = ${sql.lit(targetType)} and e.target_id = ${targetId}`, e('id'))
}

/** The events whose target is one of `ids` of `targetType` ('Issue', 'MergeRequest', 'Note', 'Milestone'), by target id. */
export async function eventsOf(db: Db, targetType: string, ids: readonly number[]): Promise<Map<number, JsonRecord[]>> {
  const rows = await rowsIn(ids, (chunk) => db.selectFrom('events').selectAll()
    .where('target_type', '=', targetType).where('target_id', 'in', chunk).orderBy('target_id').orderBy('id').execute())
  const records = new Map<number, JsonRecord[]>()
  for (const [id, events] of groupBy(rows, (row) => row.target_id!)) records.set(id, events.map(eventRecord))
  return records
}

export function labelRecord(label: LabelRow): JsonRecord {
  const priorities = label.priority === null ? [] : [{
    project_id: label.project_id, label_id: label.id, priority: label.priority,
    created_at: instant(label.updated_at), updated_at: instant(label.updated_at),
  }]
  return {
    id: label.id,
    title: label.title,
    color: label.color,
    project_id: label.project_id,
    created_at: instant(label.created_at),
    updated_at: instant(label.updated_at),
    template: false,
    description: label.description,
    group_id: label.group_id,
    type: label.group_id === null ? 'ProjectLabel' : 'GroupLabel',
    priorities,
  }
}

/** labelRecord's JSON, by the database, of the label aliased `l`. */
function labelJson(json: SqlJsonDialect): SqlJson {
  const l = (name: string) => column('l', name)
  const priority = json.object([
    ['project_id', json.value(l('project_id'))],
    ['label_id', json.value(l('id'))],
    ['priority', json.value(l('priority'))],
    ['created_at', json.instant(l('updated_at'))],
    ['updated_at', json.instant(l('updated_at'))],
  ])
  return json.object([
    ['id', json.value(l('id'))],
    ['title', json.value(l('title'))],
    ['color', json.value(l('color'))],
    ['project_id', json.value(l('project_id'))],
    ['created_at', json.instant(l('created_at'))],
    ['updated_at', json.instant(l('updated_at'))],
    ['template', constant(false)],
    ['description', json.value(l('description'))],
    ['group_id', json.value(l('group_id'))],
    ['type', sql`case when ${l('group_id')} is null then '"ProjectLabel"' else '"GroupLabel"' end`],
    ['priorities', sql`case when ${l('priority')} is null then '[]' else '[' || ${priority} || ']' end`],
  ])
}

/** labelLinksOf's JSON, by the database, of one target's label links. */
export function labelLinksJson(json: SqlJsonDialect, targetType: 'Issue' | 'MergeRequest', targetId: RawBuilder<unknown>): SqlJson {
  const ll = (name: string) => column('ll', name)
  return json.array(json.object([
    ['label_id', json.value(ll('label_id'))],
    ['target_id', json.value(ll('target_id'))],
    ['target_type', json.value(ll('target_type'))],
    ['label', labelJson(json)],
  ]), sql`from label_links ll join labels l on l.id = ll.label_id where ll.target_type = ${sql.lit(targetType)} and ll.target_id = ${targetId}`, ll('label_id'))
}

/** Label links of the targets (each with its label and the label's priorities), by target id. */
export async function labelLinksOf(db: Db, targetType: 'Issue' | 'MergeRequest', ids: readonly number[]): Promise<Map<number, JsonRecord[]>> {
  const links = await rowsIn(ids, (chunk) => db.selectFrom('label_links').selectAll()
    .where('target_type', '=', targetType).where('target_id', 'in', chunk).orderBy('target_id').orderBy('label_id').execute())
  const labels = new Map((await rowsIn(links.map((link) => link.label_id), (chunk) => db.selectFrom('labels').selectAll()
    .where('id', 'in', chunk).execute())).map((label) => [label.id, labelRecord(label)]))
  const records = new Map<number, JsonRecord[]>()
  for (const [id, group] of groupBy(links, (link) => link.target_id)) {
    records.set(id, group.flatMap((link) => {
      const label = labels.get(link.label_id)
      return label === undefined ? [] : [{ label_id: link.label_id, target_id: link.target_id, target_type: link.target_type, label }]
    }))
  }
  return records
}

export function milestoneRecord(milestone: MilestoneRow, events: JsonRecord[]): JsonRecord {
  return {
    id: milestone.id,
    title: milestone.title,
    project_id: milestone.project_id,
    group_id: milestone.group_id,
    description: milestone.description,
    due_date: milestone.due_date,
    start_date: milestone.start_date,
    created_at: instant(milestone.created_at),
    updated_at: instant(milestone.updated_at),
    state: milestone.state,
    iid: milestone.iid,
    events,
  }
}

/** milestoneRecord's JSON, by the database, of the milestone of id `milestoneId` (null when there is none). */
export function milestoneJson(json: SqlJsonDialect, milestoneId: RawBuilder<unknown>): SqlJson {
  const m = (name: string) => column('m', name)
  return sql`(select ${json.object([
    ['id', json.value(m('id'))],
    ['title', json.value(m('title'))],
    ['project_id', json.value(m('project_id'))],
    ['group_id', json.value(m('group_id'))],
    ['description', json.value(m('description'))],
    ['due_date', json.value(m('due_date'))],
    ['start_date', json.value(m('start_date'))],
    ['created_at', json.instant(m('created_at'))],
    ['updated_at', json.instant(m('updated_at'))],
    ['state', json.value(m('state'))],
    ['iid', json.value(m('iid'))],
    ['events', eventsJson(json, 'Milestone', m('id'))],
  ])} from milestones m where m.id = ${milestoneId})`
}

/** The milestones of the given ids with their events, by id. */
export async function milestonesById(db: Db, ids: Iterable<number | null>): Promise<Map<number, JsonRecord>> {
  const wanted = [...ids].filter((id): id is number => id !== null)
  const rows = await rowsIn(wanted, (chunk) => db.selectFrom('milestones').selectAll().where('id', 'in', chunk).execute())
  const events = await eventsOf(db, 'Milestone', rows.map((row) => row.id))
  return new Map(rows.map((row) => [row.id, milestoneRecord(row, events.get(row.id) ?? [])]))
}

/** Award emoji of the awardables, without awardable_id as the original leaves it out, by awardable id. */
export async function awardEmojiOf(db: Db, awardableType: 'Issue' | 'MergeRequest' | 'Snippet' | 'Note', ids: readonly number[]): Promise<Map<number, JsonRecord[]>> {
  const rows = await rowsIn(ids, (chunk) => db.selectFrom('award_emoji').selectAll()
    .where('awardable_type', '=', awardableType).where('awardable_id', 'in', chunk).orderBy('awardable_id').orderBy('id').execute())
  const records = new Map<number, JsonRecord[]>()
  for (const [id, group] of groupBy(rows, (row) => row.awardable_id)) {
    records.set(id, group.map((award) => ({
      id: award.id, name: award.name, user_id: award.user_id, awardable_type: award.awardable_type,
      created_at: instant(award.created_at), updated_at: instant(award.updated_at),
    })))
  }
  return records
}

/** awardEmojiOf's JSON, by the database, of one awardable's award emoji. */
export function awardEmojiJson(json: SqlJsonDialect, awardableType: 'Issue' | 'MergeRequest' | 'Snippet' | 'Note', awardableId: RawBuilder<unknown>): SqlJson {
  const a = (name: string) => column('a', name)
  return json.array(json.object([
    ['id', json.value(a('id'))],
    ['name', json.value(a('name'))],
    ['user_id', json.value(a('user_id'))],
    ['awardable_type', json.value(a('awardable_type'))],
    ['created_at', json.instant(a('created_at'))],
    ['updated_at', json.instant(a('updated_at'))],
  ]), sql`from award_emoji a where a.awardable_type = ${sql.lit(awardableType)} and a.awardable_id = ${awardableId}`, a('id'))
}

/** Where a diff note sits, as the original's Gitlab::Diff::Position (and its line code), from the note's line and the diff's commits. */
export interface DiffRefs {
  base_sha: string | null
  start_sha: string | null
  head_sha: string | null
}

/**
 * Where a note on a diff line sits: a merge request's diff note as the original's DiffNote
 * (its Gitlab::Diff::Position over the diff's commits, and its line code); a comment on a line of a
 * commit as a LegacyDiffNote (its line code, with the position's paths and lines kept for readers
 * that take them).
 */
function diffNotePlace(note: NoteRow, refs: DiffRefs | undefined): { type: string | null; position: JsonRecord | null; line_code: string | null } {
  if (note.path === null || note.line === null) return { type: note.type, position: null, line_code: null }
  const oldLine = note.line_type === 'old' ? note.line : null
  const newLine = note.line_type === 'old' ? null : note.line
  const position = {
    base_sha: refs?.base_sha ?? null, start_sha: refs?.start_sha ?? null, head_sha: refs?.head_sha ?? note.commit_id,
    old_path: note.path, new_path: note.path, position_type: 'text', old_line: oldLine, new_line: newLine,
  }
  const type = note.type === 'DiffNote' ? 'DiffNote' : note.commit_id !== null ? 'LegacyDiffNote' : note.type
  return { type, position, line_code: `${sha1(note.path)}_${oldLine ?? 0}_${newLine ?? 0}` }
}

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex')

export interface NoteOptions {
  /** Adds `events` to each note (issues, merge requests, pipelines; snippets' notes have none). */
  events: boolean
  /** The diff commits of a merge request, for its diff notes' positions. */
  diffRefs?: (noteableId: number) => DiffRefs | undefined
}

function noteRecord(note: NoteRow, author: string | undefined, refs: DiffRefs | undefined): JsonRecord {
  const place = diffNotePlace(note, refs)
  return {
    id: note.id,
    note: note.body,
    noteable_type: note.noteable_type,
    author_id: note.author_id,
    created_at: instant(note.created_at),
    updated_at: instant(note.updated_at),
    project_id: note.project_id,
    attachment: { url: null },
    line_code: place.line_code,
    commit_id: note.commit_id,
    noteable_id: note.noteable_id,
    system: bool(note.system),
    updated_by_id: null,
    type: place.type,
    position: place.position,
    original_position: place.position,
    resolved_at: instant(note.resolved_at),
    resolved_by_id: note.resolved_by_id,
    discussion_id: note.discussion_id,
    change_position: null,
    resolved_by_push: null,
    author: { name: author ?? '' },
  }
}

/**
 * The JSON of one noteable's notes with their events, by the database, when none of them sits on a
 * diff line (null otherwise: a diff note's line code is a SHA-1 neither database computes; such
 * notes are written by noteRecord).
 */
export function notesJson(json: SqlJsonDialect, noteableType: 'Issue', noteableId: RawBuilder<unknown>): SqlJson {
  const n = (name: string) => column('n', name)
  const note = json.object([
    ['id', json.value(n('id'))],
    ['note', json.value(n('body'))],
    ['noteable_type', json.value(n('noteable_type'))],
    ['author_id', json.value(n('author_id'))],
    ['created_at', json.instant(n('created_at'))],
    ['updated_at', json.instant(n('updated_at'))],
    ['project_id', json.value(n('project_id'))],
    ['attachment', constant({ url: null })],
    ['line_code', constant(null)],
    ['commit_id', json.value(n('commit_id'))],
    ['noteable_id', json.value(n('noteable_id'))],
    ['system', json.flag(n('system'))],
    ['updated_by_id', constant(null)],
    ['type', json.value(n('type'))],
    ['position', constant(null)],
    ['original_position', constant(null)],
    ['resolved_at', json.instant(n('resolved_at'))],
    ['resolved_by_id', json.value(n('resolved_by_id'))],
    ['discussion_id', json.value(n('discussion_id'))],
    ['change_position', constant(null)],
    ['resolved_by_push', constant(null)],
    ['author', sql`'{"name":' || coalesce((select ${json.value(sql`coalesce(u.name, '')`)} from users u where u.id = ${n('author_id')}), '""') || '}'`],
    ['events', eventsJson(json, 'Note', n('id'))],
  ])
  const where = sql`from notes n where n.noteable_type = ${sql.lit(noteableType)} and n.noteable_id = ${noteableId}`
  return sql`case when exists (select 1 ${where} and n.path is not null and n.line is not null) then null
    else ${json.array(note, where, n('id'))} end`
}

/** Records of `rows` (notes of one batch of noteables) with their author's name and, if asked, their events. */
async function noteRecords(db: Db, rows: NoteRow[], options: NoteOptions): Promise<JsonRecord[]> {
  const authors = new Map((await rowsIn(rows.map((note) => note.author_id), (chunk) => db.selectFrom('users')
    .select(['id', 'name']).where('id', 'in', chunk).execute())).map((user) => [user.id, user.name]))
  const events = options.events ? await eventsOf(db, 'Note', rows.map((note) => note.id)) : new Map<number, JsonRecord[]>()
  return rows.map((note) => {
    const record = noteRecord(note, authors.get(note.author_id), note.noteable_id === null ? undefined : options.diffRefs?.(note.noteable_id))
    if (options.events) record.events = events.get(note.id) ?? []
    return record
  })
}

/** The notes of the noteables (oldest first), by noteable id. */
export async function notesOf(db: Db, noteableType: 'Issue' | 'MergeRequest' | 'Snippet', ids: readonly number[], options: NoteOptions): Promise<Map<number, JsonRecord[]>> {
  const rows = await rowsIn(ids, (chunk) => db.selectFrom('notes').selectAll()
    .where('noteable_type', '=', noteableType).where('noteable_id', 'in', chunk).orderBy('noteable_id').orderBy('id').execute())
  const records = await noteRecords(db, rows, options)
  return groupBy(records, (record) => record.noteable_id as number)
}

/** The project's comments on the commits (oldest first), by commit id: a pipeline's notes are its commit's. */
export async function commitNotesOf(db: Db, projectId: number, shas: readonly string[]): Promise<Map<string, JsonRecord[]>> {
  const rows = await rowsIn(shas, (chunk) => db.selectFrom('notes').selectAll()
    .where('project_id', '=', projectId).where('commit_id', 'in', chunk).orderBy('commit_id').orderBy('id').execute())
  const records = await noteRecords(db, rows, { events: true })
  return groupBy(records, (record) => record.commit_id as string)
}

/** timelogsOf's JSON, by the database, of the issuable aliased `alias`. */
export function timelogsJson(json: SqlJsonDialect, alias: string, key: 'issue_id' | 'merge_request_id'): SqlJson {
  const issuable = (name: string) => column(alias, name)
  return sql`case when coalesce(${issuable('total_time_spent')}, 0) = 0 then '[]' else '[' || ${json.object([
    ['time_spent', json.number(issuable('total_time_spent'))],
    ['user_id', json.value(issuable('author_id'))],
    [key, json.value(issuable('id'))],
    ['spent_at', constant(null)],
    ['created_at', json.instant(issuable('updated_at'))],
    ['updated_at', json.instant(issuable('updated_at'))],
  ])} || ']' end`
}

/**
 * The original keeps each logged time (timelogs); Ingot keeps the total. A total is written as one
 * timelog of the issuable's author, so that the total survives an import (the original sums them).
 */
export function timelogsOf(issuable: { id: number; author_id: number; total_time_spent: number; updated_at: number }, key: 'issue_id' | 'merge_request_id'): JsonRecord[] {
  if (Number(issuable.total_time_spent) === 0) return []
  return [{
    time_spent: Number(issuable.total_time_spent), user_id: issuable.author_id, [key]: issuable.id, spent_at: null,
    created_at: instant(issuable.updated_at), updated_at: instant(issuable.updated_at),
  }]
}
