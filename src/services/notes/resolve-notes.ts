// Resolving merge request discussions (spec: Discussions; the original's Discussions::ResolveService
// and ResolvableNote): one resolvable note, or every resolvable note of a discussion at once, with
// who resolved it and when; and the question a merge asks when the project allows merging only
// once all discussions are resolved.
import type { Db } from '../../db/index.js'
import type { NoteRow } from '../../db/schema.js'

export async function setNoteResolved(db: Db, note: NoteRow, userId: number, resolved: boolean): Promise<NoteRow> {
  // Resolving a resolved note keeps who resolved it first, as the original.
  if (resolved === (note.resolved_at !== null)) return note
  return db.updateTable('notes')
    .set(resolved ? { resolved_at: Date.now(), resolved_by_id: userId } : { resolved_at: null, resolved_by_id: null })
    .where('id', '=', note.id).returningAll().executeTakeFirstOrThrow()
}

/** Resolves (or unresolves) every resolvable note of the merge request's discussion. */
export async function setDiscussionResolved(db: Db, mergeRequestId: number, discussionId: string, userId: number, resolved: boolean): Promise<void> {
  const discussion = db.updateTable('notes')
    .where('noteable_type', '=', 'MergeRequest').where('noteable_id', '=', mergeRequestId)
    .where('discussion_id', '=', discussionId).where('resolvable', '=', 1)
  if (resolved) {
    await discussion.set({ resolved_at: Date.now(), resolved_by_id: userId }).where('resolved_at', 'is', null).execute()
  } else {
    await discussion.set({ resolved_at: null, resolved_by_id: null }).execute()
  }
}

/** Whether the merge request has a resolvable note that is not resolved. */
export async function hasUnresolvedDiscussions(db: Db, mergeRequestId: number): Promise<boolean> {
  const row = await db.selectFrom('notes').select('id')
    .where('noteable_type', '=', 'MergeRequest').where('noteable_id', '=', mergeRequestId)
    .where('resolvable', '=', 1).where('resolved_at', 'is', null)
    .limit(1).executeTakeFirst()
  return row !== undefined
}
