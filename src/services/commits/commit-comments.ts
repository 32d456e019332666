// Commit comments (spec: Commits, comments; stored in `notes` as noteable_type 'Commit'): the
// comments on one commit of a project, oldest first, and posting one. A comment lands on a line of
// the commit's diff when `path`, `line` and `line_type` name a line the commit added (`new`) or
// removed (`old`); otherwise it is a comment on the commit as a whole, with path, line and
// line_type null (the spec's fall-back rule). Posting records a `commented` event, as the original.
import { paginate, type Page, type PaginationQuery } from '../../common/pages.js'
import type { Db } from '../../db/index.js'
import type { NoteRow } from '../../db/schema.js'
import type { CommitCommentView } from '../../entities/commit-comment.js'
import { diffCommits } from '../../git/diff.js'
import { newDiscussionId } from '../notes/system-notes.js'
import type { Commit, GitRepository } from '../../git/repository.js'
import { cleanTreePath } from '../../git/tree.js'
import { recordEvent } from '../events/record-event.js'

export type LineType = 'new' | 'old'

export interface CommentPlacement {
  path: string
  line: number
  lineType: LineType
}

export interface NewCommitComment {
  projectId: number
  authorId: number
  commit: Commit
  note: string
  placement: CommentPlacement | null
}

async function withAuthors(db: Db, notes: NoteRow[]): Promise<CommitCommentView[]> {
  const ids = [...new Set(notes.map((note) => note.author_id))]
  const authors = ids.length === 0 ? [] : await db.selectFrom('users').selectAll().where('id', 'in', ids).execute()
  const byId = new Map(authors.map((user) => [user.id, user]))
  return notes.flatMap((note) => {
    const author = byId.get(note.author_id)
    return author === undefined ? [] : [{ note, author }]
  })
}

export async function listCommitComments(db: Db, projectId: number, commitId: string, pagination: PaginationQuery): Promise<Page<CommitCommentView>> {
  const query = db.selectFrom('notes').selectAll()
    .where('project_id', '=', projectId).where('noteable_type', '=', 'Commit').where('commit_id', '=', commitId)
    .orderBy('created_at', 'asc').orderBy('id', 'asc')
  const page = await paginate(db, query, pagination)
  return { ...page, items: await withAuthors(db, page.items) }
}

/** Whether a file's unified diff adds (`new`) or removes (`old`) a line with this number. */
function diffHasLine(diff: string, line: number, lineType: LineType): boolean {
  let oldLine = 0
  let newLine = 0
  let inHunk = false
  for (const text of diff.split('\n')) {
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(text)
    if (hunk !== null) {
      oldLine = Number(hunk[1])
      newLine = Number(hunk[2])
      inHunk = true
    } else if (!inHunk) {
      continue
    } else if (text.startsWith('+')) {
      if (lineType === 'new' && newLine === line) return true
      newLine += 1
    } else if (text.startsWith('-')) {
      if (lineType === 'old' && oldLine === line) return true
      oldLine += 1
    } else if (text.startsWith(' ')) {
      oldLine += 1
      newLine += 1
    }
  }
  return false
}

/** The placement when it names a line the commit changed; null (the whole commit) otherwise. */
export async function placeComment(repo: GitRepository, commit: Commit, wanted: CommentPlacement): Promise<CommentPlacement | null> {
  const path = cleanTreePath(wanted.path)
  if (path === null || path === '') return null
  const { diffs } = await diffCommits(repo, commit.parents[0] ?? null, commit.id, { paths: [path] })
  const file = diffs.find((diff) => diff.new_path === path)
  return file !== undefined && diffHasLine(file.diff, wanted.line, wanted.lineType) ? { ...wanted, path } : null
}

export async function createCommitComment(db: Db, input: NewCommitComment): Promise<CommitCommentView> {
  const now = Date.now()
  const note = await db.transaction().execute(async (trx) => {
    const row = await trx.insertInto('notes').values({
      project_id: input.projectId,
      author_id: input.authorId,
      noteable_type: 'Commit',
      noteable_id: null,
      commit_id: input.commit.id,
      body: input.note,
      path: input.placement?.path ?? null,
      line: input.placement?.line ?? null,
      line_type: input.placement?.lineType ?? null,
      system: 0,
      discussion_id: newDiscussionId(),
      created_at: now,
      updated_at: now,
    }).returningAll().executeTakeFirstOrThrow()
    await recordEvent(trx, {
      action: 'commented', authorId: input.authorId, projectId: input.projectId,
      target: { type: 'Note', id: row.id, title: null }, createdAt: now,
    })
    return row
  })
  const [view] = await withAuthors(db, [note])
  if (view === undefined) throw new Error(`the author of note ${note.id} is missing`)
  return view
}
