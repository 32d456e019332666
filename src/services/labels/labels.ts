// Creating, changing and deleting labels (the labels API), with the original's rules: a title is
// present and holds no comma, unique among the owner's labels (and, on create, among every label
// the owner can use: 409); a colour is '#RGB', '#RRGGBB' or a CSS colour name; a priority is 0 or more.
import type { Db } from '../../db/index.js'
import type { LabelRow, LabelsTable } from '../../db/schema.js'
import type { Updateable } from 'kysely'
import { conflict, validationFailed } from '../../common/errors.js'
import { findAvailableLabelTitled, type LabelOwner } from '../../finders/labels-finder.js'
import { isUniqueViolation } from '../projects/create-project.js'
import { collectErrors } from '../validation.js'
import { renumberBoardLists } from '../boards/board-lists.js'
import { labelColor } from './colors.js'

export interface NewLabel {
  title: string
  color: string
  description?: string | null
  priority?: number | null
}

export interface LabelChanges {
  title?: string
  color?: string
  description?: string | null
  /** null removes the priority. */
  priority?: number | null
}

const INVALID_COLOR = 'must be a valid color code'
const labelExists = () => conflict('Label already exists')

function titleErrors(title: string): string[] {
  if (title === '') return ["can't be blank"]
  return title.includes(',') ? ['is invalid'] : []
}

function priorityErrors(priority: number | null | undefined): string[] {
  return priority !== undefined && priority !== null && priority < 0 ? ['must be greater than or equal to 0'] : []
}

export async function createLabel(db: Db, owner: LabelOwner, input: NewLabel): Promise<LabelRow> {
  const title = input.title.trim()
  const color = labelColor(input.color)
  try {
    return await db.transaction().execute(async (trx) => {
      if (await findAvailableLabelTitled(trx, owner, title) !== null) throw labelExists()
      const errors = collectErrors({
        title: titleErrors(title), color: color === null ? [INVALID_COLOR] : [], priority: priorityErrors(input.priority),
      })
      if (errors !== null || color === null) throw validationFailed(errors ?? {})
      const now = Date.now()
      return trx.insertInto('labels').values({
        project_id: owner.type === 'project' ? owner.id : null,
        group_id: owner.type === 'group' ? owner.id : null,
        title,
        color,
        description: input.description ?? null,
        priority: input.priority ?? null,
        created_at: now,
        updated_at: now,
      }).returningAll().executeTakeFirstOrThrow()
    })
  } catch (err) {
    if (isUniqueViolation(err)) throw labelExists()
    throw err
  }
}

export async function updateLabel(db: Db, label: LabelRow, changes: LabelChanges): Promise<LabelRow> {
  const title = changes.title?.trim()
  const color = changes.color === undefined ? undefined : labelColor(changes.color)
  const errors = collectErrors({
    title: title === undefined ? [] : titleErrors(title),
    color: color === null ? [INVALID_COLOR] : [],
    priority: priorityErrors(changes.priority),
  })
  if (errors !== null) throw validationFailed(errors)
  const update: Updateable<LabelsTable> = { updated_at: Date.now() }
  if (title !== undefined) update.title = title
  if (color !== undefined && color !== null) update.color = color
  if (changes.description !== undefined) update.description = changes.description
  if (changes.priority !== undefined) update.priority = changes.priority
  try {
    return await db.updateTable('labels').set(update).where('id', '=', label.id).returningAll().executeTakeFirstOrThrow()
  } catch (err) {
    if (isUniqueViolation(err)) throw validationFailed({ title: ['has already been taken'] })
    throw err
  }
}

/** Deletes the label with its links, subscriptions and board lists; the boards' other lists close ranks. */
export async function deleteLabel(db: Db, label: LabelRow): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const boards = await trx.selectFrom('board_lists').select('board_id').distinct()
      .where('label_id', '=', label.id).where('deleted_at', 'is', null).execute()
    await trx.deleteFrom('subscriptions').where('subscribable_type', '=', 'Label').where('subscribable_id', '=', label.id).execute()
    await trx.deleteFrom('labels').where('id', '=', label.id).execute()
    for (const { board_id: boardId } of boards) await renumberBoardLists(trx, boardId)
  })
}
