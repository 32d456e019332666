// What notes hang on — issues, merge requests and project snippets — as the notes, discussions and
// award emoji services see them, and the marks a note leaves on them: like the original's
// `belongs_to :noteable, touch: true`, every note written or removed moves the noteable's
// updated_at, and issues and merge requests count their user (non-system) notes.
import type { Db } from '../../db/index.js'
import type { IssueRow, MergeRequestRow, SnippetRow } from '../../db/schema.js'

export type NoteableType = 'Issue' | 'MergeRequest' | 'Snippet'

export interface Noteable {
  type: NoteableType
  id: number
  /** Issues and merge requests are numbered per project; snippets are not. */
  iid: number | null
  projectId: number
  title: string
  authorId: number
  discussionLocked: boolean
}

export function issueNoteable(issue: IssueRow): Noteable {
  return {
    type: 'Issue', id: issue.id, iid: issue.iid, projectId: issue.project_id, title: issue.title,
    authorId: issue.author_id, discussionLocked: issue.discussion_locked === 1,
  }
}

export function mergeRequestNoteable(mergeRequest: MergeRequestRow): Noteable {
  return {
    type: 'MergeRequest', id: mergeRequest.id, iid: mergeRequest.iid, projectId: mergeRequest.target_project_id,
    title: mergeRequest.title, authorId: mergeRequest.author_id, discussionLocked: mergeRequest.discussion_locked === 1,
  }
}

/** A project snippet (personal snippets have no project and take no notes here). */
export function snippetNoteable(snippet: SnippetRow & { project_id: number }): Noteable {
  return {
    type: 'Snippet', id: snippet.id, iid: null, projectId: snippet.project_id, title: snippet.title,
    authorId: snippet.author_id, discussionLocked: false,
  }
}

/** Merge request discussions can be resolved; other noteables' cannot. */
export function takesResolvableDiscussions(noteable: Pick<Noteable, 'type'>): boolean {
  return noteable.type === 'MergeRequest'
}

/** Marks the noteable changed at `at`, moving its count of user notes by `userNotesDelta`. */
export async function touchNoteable(trx: Db, noteable: Pick<Noteable, 'type' | 'id'>, at: number, userNotesDelta = 0): Promise<void> {
  switch (noteable.type) {
    case 'Issue':
      await trx.updateTable('issues')
        .set((eb) => ({ updated_at: at, user_notes_count: eb('user_notes_count', '+', userNotesDelta) }))
        .where('id', '=', noteable.id).execute()
      return
    case 'MergeRequest':
      await trx.updateTable('merge_requests')
        .set((eb) => ({ updated_at: at, user_notes_count: eb('user_notes_count', '+', userNotesDelta) }))
        .where('id', '=', noteable.id).execute()
      return
    case 'Snippet':
      await trx.updateTable('snippets').set({ updated_at: at }).where('id', '=', noteable.id).execute()
  }
}
