// Project snippets (spec: snippets are embedded summaries only; the original's CreateSnippetService
// and UpdateSnippetService of release 11.5): create, update and delete, with the model's
// validations — a title of at most 255 characters, a file name of at most 255, some content —
// answered as field errors (400). A snippet created without a visibility takes the instance's
// default_snippet_visibility. Deleting a snippet deletes its notes and award emoji with it.
import type { Db } from '../../db/index.js'
import type { SnippetRow, VisibilityLevel } from '../../db/schema.js'
import { validationFailed, type FieldErrors } from '../../common/errors.js'
import { visibilityLevel } from '../../policies/access-levels.js'
import { getApplicationSettings } from '../settings.js'
import { deleteNotesOf } from '../notes/delete-note.js'
import { collectErrors } from '../validation.js'

export type ProjectSnippetRow = SnippetRow & { project_id: number }

export interface SnippetFields {
  title: string
  fileName: string
  content: string
  description: string | null
  visibilityLevel: VisibilityLevel
}

/** A new snippet's fields; without a visibility it takes the default_snippet_visibility setting. */
export type NewSnippetFields = Omit<SnippetFields, 'visibilityLevel'> & { visibilityLevel?: VisibilityLevel }

const MAX_TITLE_LENGTH = 255
const MAX_FILE_NAME_LENGTH = 255

const tooLong = (max: number) => `is too long (maximum is ${max} characters)`

/** 400 with the field errors unless the fields are valid. */
function validate(fields: SnippetFields): void {
  const errors: FieldErrors | null = collectErrors({
    title: fields.title.trim() === '' ? ['can\'t be blank'] : fields.title.length > MAX_TITLE_LENGTH ? [tooLong(MAX_TITLE_LENGTH)] : [],
    file_name: fields.fileName.length > MAX_FILE_NAME_LENGTH ? [tooLong(MAX_FILE_NAME_LENGTH)] : [],
    content: fields.content.trim() === '' ? ['can\'t be blank'] : [],
  })
  if (errors !== null) throw validationFailed(errors)
}

/** A snippet row that belongs to a project (the type says so once project_id was matched). */
export function asProjectSnippet(snippet: SnippetRow): ProjectSnippetRow | null {
  return snippet.project_id === null ? null : { ...snippet, project_id: snippet.project_id }
}

export async function createSnippet(db: Db, projectId: number, authorId: number, newFields: NewSnippetFields): Promise<ProjectSnippetRow> {
  const fields: SnippetFields = {
    ...newFields,
    visibilityLevel: newFields.visibilityLevel ?? visibilityLevel((await getApplicationSettings(db)).default_snippet_visibility),
  }
  validate(fields)
  const now = Date.now()
  const snippet = await db.insertInto('snippets').values({
    project_id: projectId,
    author_id: authorId,
    title: fields.title,
    file_name: fields.fileName,
    description: fields.description,
    content: fields.content,
    visibility_level: fields.visibilityLevel,
    created_at: now,
    updated_at: now,
  }).returningAll().executeTakeFirstOrThrow()
  return { ...snippet, project_id: projectId }
}

export async function updateSnippet(db: Db, snippet: ProjectSnippetRow, changes: Partial<SnippetFields>): Promise<ProjectSnippetRow> {
  const fields: SnippetFields = {
    title: changes.title ?? snippet.title,
    fileName: changes.fileName ?? snippet.file_name,
    content: changes.content ?? snippet.content,
    description: changes.description === undefined ? snippet.description : changes.description,
    visibilityLevel: changes.visibilityLevel ?? snippet.visibility_level,
  }
  validate(fields)
  const updated = await db.updateTable('snippets').set({
    title: fields.title,
    file_name: fields.fileName,
    content: fields.content,
    description: fields.description,
    visibility_level: fields.visibilityLevel,
    updated_at: Date.now(),
  }).where('id', '=', snippet.id).returningAll().executeTakeFirstOrThrow()
  return { ...updated, project_id: snippet.project_id }
}

export async function deleteSnippet(db: Db, snippet: ProjectSnippetRow): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await deleteNotesOf(trx, { type: 'Snippet', id: snippet.id })
    await trx.deleteFrom('snippets').where('id', '=', snippet.id).execute()
  })
}
