// Notes and discussions of one noteable (spec: Notes, Discussions). Notes list in `order_by`
// (created_at | updated_at) and `sort` order, system notes included; discussions in the order of
// their first notes, each with its notes oldest first, paginated by discussion. The rows every
// note entity shows (authors, resolvers, the noteable's iid) load in one batch per page.
import type { Db } from '../db/index.js'
import type { NoteRow } from '../db/schema.js'
import { paginate, type Page, type PaginationQuery } from '../common/pages.js'
import type { DiscussionView } from '../entities/discussion.js'
import type { NoteView } from '../entities/note.js'
import type { Noteable } from '../services/notes/noteable.js'
import { usersById } from './rows.js'

export interface NoteOrder {
  orderBy: 'created_at' | 'updated_at'
  sort: 'asc' | 'desc'
}

type NoteableRef = Pick<Noteable, 'type' | 'id'>

function notesOf(db: Db, noteable: NoteableRef) {
  return db.selectFrom('notes').selectAll()
    .where('noteable_type', '=', noteable.type)
    .where('noteable_id', '=', noteable.id)
}

export function findNotes(db: Db, noteable: NoteableRef, order: NoteOrder) {
  return notesOf(db, noteable).orderBy(order.orderBy, order.sort).orderBy('id', order.sort)
}

export async function findNote(db: Db, noteable: NoteableRef, noteId: number): Promise<NoteRow | null> {
  return await notesOf(db, noteable).where('id', '=', noteId).executeTakeFirst() ?? null
}

/** The iids of the issues and merge requests the notes are on, keyed `<type>:<id>`. */
async function noteableIids(db: Db, notes: readonly NoteRow[]): Promise<Map<string, number>> {
  const idsOf = (type: string) => [...new Set(notes.flatMap((n) => (n.noteable_type === type && n.noteable_id !== null ? [n.noteable_id] : [])))]
  const issueIds = idsOf('Issue')
  const mergeRequestIds = idsOf('MergeRequest')
  const [issues, mergeRequests] = await Promise.all([
    issueIds.length === 0 ? [] : db.selectFrom('issues').select(['id', 'iid']).where('id', 'in', issueIds).execute(),
    mergeRequestIds.length === 0 ? [] : db.selectFrom('merge_requests').select(['id', 'iid']).where('id', 'in', mergeRequestIds).execute(),
  ])
  return new Map([
    ...issues.map((row) => [`Issue:${row.id}`, row.iid] as const),
    ...mergeRequests.map((row) => [`MergeRequest:${row.id}`, row.iid] as const),
  ])
}

/**
 * The views of notes, in their order: authors and resolvers in one query, the noteables' iids in
 * one more per kind (none when every note is on `known`). A note whose author is gone drops out.
 */
export async function loadNoteViews(db: Db, notes: readonly NoteRow[], known?: Noteable): Promise<NoteView[]> {
  const userIds = new Set<number>()
  for (const note of notes) {
    userIds.add(note.author_id)
    if (note.resolved_by_id !== null) userIds.add(note.resolved_by_id)
  }
  const allOnKnown = known !== undefined && notes.every((n) => n.noteable_type === known.type && n.noteable_id === known.id)
  const [users, iids] = await Promise.all([
    usersById(db, [...userIds]),
    allOnKnown ? new Map<string, number>() : noteableIids(db, notes),
  ])
  return notes.flatMap((note) => {
    const author = users.get(note.author_id)
    if (author === undefined) return []
    const noteableIid = allOnKnown ? known.iid : iids.get(`${note.noteable_type}:${note.noteable_id}`) ?? null
    const resolvedBy = note.resolved_by_id === null ? null : users.get(note.resolved_by_id) ?? null
    return [{ note, author, resolvedBy, noteableIid }]
  })
}

/** The notes of the noteable's discussions, oldest first. */
function discussionNotes(db: Db, noteable: NoteableRef, discussionIds: readonly string[]) {
  return notesOf(db, noteable).where('discussion_id', 'in', discussionIds).orderBy('created_at', 'asc').orderBy('id', 'asc')
}

/** The notes of one discussion of the noteable, oldest first; empty when there is no such discussion. */
export function findDiscussionNotes(db: Db, noteable: NoteableRef, discussionId: string): Promise<NoteRow[]> {
  return discussionNotes(db, noteable, [discussionId]).execute()
}

async function discussionsOf(db: Db, noteable: Noteable, discussionIds: readonly string[]): Promise<DiscussionView[]> {
  if (discussionIds.length === 0) return []
  const notes = await discussionNotes(db, noteable, discussionIds).execute()
  const views = await loadNoteViews(db, notes, noteable)
  const byDiscussion = new Map<string, NoteView[]>(discussionIds.map((id) => [id, []]))
  for (const view of views) byDiscussion.get(view.note.discussion_id ?? '')?.push(view)
  return [...byDiscussion].flatMap(([id, discussionNotes]) => (discussionNotes.length === 0 ? [] : [{ id, notes: discussionNotes }]))
}

/** One page of the noteable's discussions, ordered by their first notes. */
export async function findDiscussionPage(db: Db, noteable: Noteable, pagination: PaginationQuery): Promise<Page<DiscussionView>> {
  const query = db.selectFrom('notes')
    .select('discussion_id')
    .where('noteable_type', '=', noteable.type)
    .where('noteable_id', '=', noteable.id)
    .where('discussion_id', 'is not', null)
    .groupBy('discussion_id')
    .orderBy((eb) => eb.fn.min('created_at'), 'asc')
    .orderBy((eb) => eb.fn.min('id'), 'asc')
  const page = await paginate(db, query, pagination)
  const ids = page.items.flatMap((row) => (row.discussion_id === null ? [] : [row.discussion_id]))
  return { ...page, items: await discussionsOf(db, noteable, ids) }
}

/** The discussions on the noteable's diff lines (those holding a DiffNote) with all their notes, in one query, ordered by their first notes. */
export async function findDiffDiscussions(db: Db, noteable: Noteable): Promise<DiscussionView[]> {
  const onLines = notesOf(db, noteable).clearSelect().select('discussion_id').where('type', '=', 'DiffNote').where('discussion_id', 'is not', null)
  const notes = await notesOf(db, noteable).where('discussion_id', 'in', onLines).orderBy('created_at', 'asc').orderBy('id', 'asc').execute()
  const views = await loadNoteViews(db, notes, noteable)
  const byDiscussion = new Map<string, NoteView[]>()
  for (const view of views) {
    const id = view.note.discussion_id ?? ''
    const list = byDiscussion.get(id)
    if (list === undefined) byDiscussion.set(id, [view])
    else list.push(view)
  }
  return [...byDiscussion].map(([id, discussionNotes]) => ({ id, notes: discussionNotes }))
}

export async function findDiscussion(db: Db, noteable: Noteable, discussionId: string): Promise<DiscussionView | null> {
  const [discussion] = await discussionsOf(db, noteable, [discussionId])
  return discussion ?? null
}
