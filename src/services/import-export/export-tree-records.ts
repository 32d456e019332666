// Records the relations of project.json share, in the original's shapes (release 11.5 as_json of its
// models under import_export.yml): events, labels with their priorities, milestones with their
// events, notes with their author and events, award emoji. Each loader takes a whole batch of
// parents and reads each child relation in one query (a few for very long id lists).
import { createHash } from 'node:crypto'
import type { Db } from '../../db/index.js'
import type { EventAction, EventRow, LabelRow, MilestoneRow, NoteRow } from '../../db/schema.js'
import { bool, groupBy, instant, rowsIn } from './export-tree-json.js'

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
