// System notes: the notes the service itself writes on an issue or merge request when its state,
// labels, assignees or milestone change ("closed", "added ~bug label", …), shown with system: true.
// They are written in the transaction of the change they describe and do not count as user notes.
import { randomBytes } from 'node:crypto'
import type { Db } from '../../db/index.js'
import type { MilestoneRow } from '../../db/schema.js'

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

/** `%3` for a project milestone, `%"v1.0"` for a group's, as the original's milestone notes refer to them. */
export function milestoneReference(milestone: MilestoneRow): string {
  return milestone.project_id !== null ? `%${milestone.iid}` : `%"${milestone.title}"`
}

/** "changed title from **a{-b-}c** to **a{+d+}c**": the changed middle marked, as the original marks it. */
export function titleChangeNote(before: string, after: string): string {
  const a = [...before]
  const b = [...after]
  let prefix = 0
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix += 1
  let suffix = 0
  while (suffix < a.length - prefix && suffix < b.length - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix += 1
  const mark = (chars: string[], open: string, close: string) => {
    const middle = chars.slice(prefix, chars.length - suffix).join('')
    return chars.slice(0, prefix).join('') + (middle === '' ? '' : `${open}${middle}${close}`) + chars.slice(chars.length - suffix).join('')
  }
  return `changed title from **${mark(a, '{-', '-}')}** to **${mark(b, '{+', '+}')}**`
}
