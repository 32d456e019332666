// Writing notes (spec: Notes, Discussions), as the original's Notes::CreateService and BuildService:
// - postNote: a note on its own (POST …/notes), or, when its body is a lone known emoji
//   (`:thumbsup:`), an award of that emoji on the noteable instead (spec: Note);
// - startDiscussion: the first note of a discussion, resolvable on merge requests; with a position
//   on a merge request's diff (a line of a file, on its new or old side) it is a DiffNote there;
// - replyToDiscussion: a note added to a discussion; replying to a note posted on its own turns it
//   into a discussion, and a reply to a resolved discussion is resolved too (it stays resolved).
// Every user note moves its noteable's updated_at and user_notes_count and records a `commented`
// event (target the note, target_title the noteable's title) in the same transaction; once committed,
// the note is published to the activity listeners (webhooks, email). A refused note is the
// original's 400 `400 (Bad request) "Note {:note=>[…]}" not given`.
import type { AppContext } from '../../context.js'
import type { Db } from '../../db/index.js'
import type { AwardEmojiRow, NoteRow } from '../../db/schema.js'
import { flag } from '../../db/values.js'
import { badRequestNotGiven } from '../../common/errors.js'
import { AwardRefused, awardEmoji, awardRefusalMessage } from '../award-emoji/award-emoji.js'
import { canonicalEmojiName } from '../award-emoji/emoji-names.js'
import { recordEvent } from '../events/record-event.js'
import { takesResolvableDiscussions, touchNoteable, type Noteable } from './noteable.js'
import { newDiscussionId } from './system-notes.js'

const MAX_NOTE_LENGTH = 1_000_000

export interface NewNote {
  noteable: Noteable
  authorId: number
  body: string
  /** A creation time other than now (the caller decides who may set one). */
  createdAt?: number
}

/** Where a diff note sits: a line of a file, on the new side (added or unchanged lines) or the old side (removed lines). */
export interface DiffPosition {
  path: string
  line: number
  lineType: 'new' | 'old'
}

/** The `position` fields the API (and the Changes tab's comment form) name. */
export interface DiffPositionFields {
  new_path?: string
  old_path?: string
  new_line?: number | null
  old_line?: number | null
}

/**
 * The position the fields name, as the original keeps a DiffNote's line: the new line when there is
 * one, else the old line; refused (`{:position=>["is invalid"]}`) without a path or a line.
 */
export function diffPositionOf(fields: DiffPositionFields): DiffPosition {
  const lineOf = (value: number | null | undefined) => (typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : null)
  const newLine = lineOf(fields.new_line)
  const oldLine = lineOf(fields.old_line)
  const path = newLine !== null ? fields.new_path ?? fields.old_path : fields.old_path ?? fields.new_path
  if (path === undefined || path === '' || (newLine === null && oldLine === null)) throw badRequestNotGiven('Note {:position=>["is invalid"]}')
  return newLine !== null ? { path, line: newLine, lineType: 'new' } : { path, line: oldLine!, lineType: 'old' }
}

/** What posting a note made: the note, or the award its body asked for. */
export type PostedNote =
  | { kind: 'note'; note: NoteRow }
  | { kind: 'award'; award: AwardEmojiRow }

/** The original's validation messages for a body it refuses (`{:note=>[…]}`); null for a good one. */
export function noteBodyErrors(body: string): string | null {
  if (body.trim() === '') return '{:note=>["can\'t be blank"]}'
  if (body.length > MAX_NOTE_LENGTH) return `{:note=>["is too long (maximum is ${MAX_NOTE_LENGTH} characters)"]}`
  return null
}

function checkNoteBody(body: string): void {
  const errors = noteBodyErrors(body)
  if (errors !== null) throw badRequestNotGiven(`Note ${errors}`)
}

/** Awards the emoji a note's body asked for; a refusal in the words of a refused note. */
async function awardFromNote(db: Db, input: NewNote, emoji: string): Promise<AwardEmojiRow> {
  const { noteable } = input
  try {
    return await awardEmoji(db, { type: noteable.type, id: noteable.id, authorId: noteable.authorId }, input.authorId, emoji)
  } catch (err) {
    if (!(err instanceof AwardRefused)) throw err
    throw badRequestNotGiven(`Note ${awardRefusalMessage(err.refusal) ?? '{:name=>["cannot be awarded by its author"]}'}`)
  }
}

/** The emoji a body consisting of one `:name:` alone awards; null for any other body. */
function awardedEmoji(body: string): string | null {
  const match = /^:([\w+-]+):\s?$/.exec(body)
  return match?.[1] !== undefined && canonicalEmojiName(match[1]) !== null ? match[1] : null
}

interface NoteShape {
  type: NoteRow['type']
  discussionId: string
  resolvable: boolean
  resolvedBy: number | null
  position?: DiffPosition
}

async function insertNote(trx: Db, input: NewNote, shape: NoteShape): Promise<NoteRow> {
  const now = Date.now()
  const { noteable } = input
  const note = await trx.insertInto('notes').values({
    project_id: noteable.projectId,
    author_id: input.authorId,
    noteable_type: noteable.type,
    noteable_id: noteable.id,
    commit_id: null,
    body: input.body,
    path: shape.position?.path ?? null,
    line: shape.position?.line ?? null,
    line_type: shape.position?.lineType ?? null,
    system: 0,
    discussion_id: shape.discussionId,
    type: shape.type,
    resolvable: flag(shape.resolvable),
    resolved_at: shape.resolvedBy === null ? null : now,
    resolved_by_id: shape.resolvedBy,
    created_at: input.createdAt ?? now,
    updated_at: now,
  }).returningAll().executeTakeFirstOrThrow()
  await touchNoteable(trx, noteable, now, 1)
  await recordEvent(trx, {
    action: 'commented', authorId: input.authorId, projectId: noteable.projectId,
    target: { type: 'Note', id: note.id, title: noteable.title }, createdAt: now,
  })
  return note
}

/** Tells the activity listeners (webhooks, email) about a new user note. */
async function published(ctx: AppContext, note: NoteRow): Promise<NoteRow> {
  await ctx.activity.publish({ kind: 'note', projectId: note.project_id, noteId: note.id, userId: note.author_id }, ctx)
  return note
}

export async function postNote(ctx: AppContext, input: NewNote): Promise<PostedNote> {
  const { db } = ctx
  checkNoteBody(input.body)
  const emoji = awardedEmoji(input.body)
  if (emoji !== null) return { kind: 'award', award: await awardFromNote(db, input, emoji) }
  const note = await db.transaction().execute((trx) => insertNote(trx, input, {
    type: null, discussionId: newDiscussionId(), resolvable: false, resolvedBy: null,
  }))
  return { kind: 'note', note: await published(ctx, note) }
}

/** `position`: a line of the merge request's diff, for a discussion on it (only merge requests take one). */
export async function startDiscussion(ctx: AppContext, input: NewNote, position?: DiffPosition): Promise<NoteRow> {
  checkNoteBody(input.body)
  if (position !== undefined && input.noteable.type !== 'MergeRequest') throw badRequestNotGiven('Note {:position=>["is invalid"]}')
  const note = await ctx.db.transaction().execute((trx) => insertNote(trx, input, {
    type: position === undefined ? 'DiscussionNote' : 'DiffNote', discussionId: newDiscussionId(),
    resolvable: takesResolvableDiscussions(input.noteable), resolvedBy: null, position,
  }))
  return published(ctx, note)
}

/** Resolved: it has resolvable notes and every one is resolved. */
function isResolved(notes: readonly NoteRow[]): boolean {
  const resolvable = notes.filter((note) => note.resolvable === 1)
  return resolvable.length > 0 && resolvable.every((note) => note.resolved_at !== null)
}

/** A reply to the discussion whose notes (oldest first) are `discussion`. */
export async function replyToDiscussion(ctx: AppContext, input: NewNote, discussion: readonly NoteRow[]): Promise<NoteRow> {
  const first = discussion[0]
  if (first === undefined || first.system === 1 || first.discussion_id === null) {
    throw badRequestNotGiven('Discussion can not be replied to.')
  }
  checkNoteBody(input.body)
  const discussionId = first.discussion_id
  const resolvable = takesResolvableDiscussions(input.noteable)
  const note = await ctx.db.transaction().execute(async (trx) => {
    if (first.type === null) {
      await trx.updateTable('notes').set({ type: 'DiscussionNote', resolvable: flag(resolvable) })
        .where('discussion_id', '=', discussionId).where('noteable_type', '=', input.noteable.type)
        .where('noteable_id', '=', input.noteable.id).execute()
    }
    // A reply to a discussion on a diff line is a DiffNote on that line too, as the original's replies are.
    const position = first.type === 'DiffNote' && first.path !== null && first.line !== null && first.line_type !== null
      ? { path: first.path, line: first.line, lineType: first.line_type } : undefined
    return insertNote(trx, input, {
      type: position === undefined ? 'DiscussionNote' : 'DiffNote', discussionId, resolvable, resolvedBy: isResolved(discussion) ? input.authorId : null, position,
    })
  })
  return published(ctx, note)
}
