// System notes: the notes the service itself writes on an issue or merge request when its state,
// labels, assignees or milestone change ("closed", "added ~bug label", …), shown with system: true.
// They are written in the transaction of the change they describe and do not count as user notes.
import { randomBytes } from 'node:crypto'
import type { Db } from '../../db/index.js'

export interface SystemNote {
  projectId: number
  noteable: { type: 'Issue' | 'MergeRequest' | 'Snippet'; id: number }
  authorId: number
  body: string
  createdAt?: number
}

/** A new discussion id: 40 hex characters, as the original's. */
export function newDiscussionId(): string {
  return randomBytes(20).toString('hex')
}

export async function addSystemNote(trx: Db, note: SystemNote): Promise<void> {
  const at = note.createdAt ?? Date.now()
  await trx.insertInto('notes').values({
    project_id: note.projectId,
    author_id: note.authorId,
    noteable_type: note.noteable.type,
    noteable_id: note.noteable.id,
    commit_id: null,
    body: note.body,
    path: null,
    line: null,
    line_type: null,
    system: 1,
    discussion_id: newDiscussionId(),
    type: null,
    resolved_at: null,
    resolved_by_id: null,
    created_at: at,
    updated_at: at,
  }).execute()
}
