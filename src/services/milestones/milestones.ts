// Creating, changing (closing, reopening) and deleting project and group milestones, with the
// original's rules: a title is present and unique across the milestones of the project and its
// groups (of a group: its ancestors, its descendants and their projects); a start date comes before
// the due date. Project milestones record their events (created, closed, reopened, destroyed) in
// the same transaction; group milestones record none, as in the original (events belong to projects).
import type { Updateable } from 'kysely'
import type { Actor } from '../../auth/actor.js'
import type { Db } from '../../db/index.js'
import type { MilestoneRow, MilestonesTable } from '../../db/schema.js'
import type { EventAction } from '../../db/schema.js'
import { badRequest, type FieldErrors } from '../../common/errors.js'
import { groupAndAncestors, groupAndDescendants } from '../../finders/labels-finder.js'
import type { MilestoneOwner } from '../../finders/milestones-finder.js'
import { recordEvent } from '../events/record-event.js'
import { nextInternalId } from '../issuables/internal-ids.js'
import { projectGroupChain } from '../labels/issuable-labels.js'
import { isUniqueViolation } from '../projects/create-project.js'
import { collectErrors } from '../validation.js'

export interface NewMilestone {
  title: string
  description?: string | null
  /** 'YYYY-MM-DD' */
  dueDate?: string | null
  startDate?: string | null
}

export interface MilestoneChanges {
  title?: string
  description?: string | null
  /** null clears the date. */
  dueDate?: string | null
  startDate?: string | null
  stateEvent?: 'close' | 'activate'
}

const TITLE_TAKEN = 'already being used for another group or project milestone.'

/** `{:title=>["can't be blank"]}`: the original's messages print its errors as a Ruby hash. */
function rubyHash(errors: FieldErrors): string {
  return `{${Object.entries(errors).map(([field, messages]) => `:${field}=>[${messages.map((m) => JSON.stringify(m)).join(', ')}]`).join(', ')}}`
}

async function titleTaken(trx: Db, owner: MilestoneOwner, title: string, exceptId: number | null): Promise<boolean> {
  let query = trx.selectFrom('milestones').select('id').where('title', '=', title)
  if (exceptId !== null) query = query.where('id', '<>', exceptId)
  query = owner.type === 'project'
    ? query.where((eb) => eb.or([eb('project_id', '=', owner.id), eb('group_id', 'in', projectGroupChain(owner.id))]))
    : query.where((eb) => eb.or([
      eb('group_id', 'in', groupAndAncestors(owner.id)),
      eb('group_id', 'in', groupAndDescendants(owner.id)),
      eb('project_id', 'in', eb.selectFrom('projects').select('projects.id').where('projects.namespace_id', 'in', groupAndDescendants(owner.id))),
    ]))
  return await query.executeTakeFirst() !== undefined
}

async function validate(
  trx: Db, owner: MilestoneOwner, fields: { title: string | undefined; dueDate: string | null; startDate: string | null }, exceptId: number | null,
): Promise<FieldErrors | null> {
  // A title is checked when it is set or changed, as the original validates it.
  const title = fields.title === undefined ? []
    : fields.title === '' ? ["can't be blank"]
    : await titleTaken(trx, owner, fields.title, exceptId) ? [TITLE_TAKEN] : []
  const { dueDate, startDate } = fields
  return collectErrors({
    title,
    due_date: dueDate !== null && startDate !== null && dueDate <= startDate ? ['must be greater than start date'] : [],
  })
}

async function recordMilestoneEvent(trx: Db, actor: Actor, milestone: MilestoneRow, action: EventAction): Promise<void> {
  if (milestone.project_id === null) return
  await recordEvent(trx, {
    action,
    authorId: actor.user.id,
    projectId: milestone.project_id,
    target: { type: 'Milestone', id: milestone.id, iid: milestone.iid, title: milestone.title },
  })
}

/** A unique index refused the title: a concurrent request of the same owner took it. */
function titleRace(err: unknown, verb: 'create' | 'update'): unknown {
  return isUniqueViolation(err) ? badRequest(`Failed to ${verb} milestone ${rubyHash({ title: [TITLE_TAKEN] })}`) : err
}

export async function createMilestone(db: Db, owner: MilestoneOwner, actor: Actor, input: NewMilestone): Promise<MilestoneRow> {
  const title = input.title.trim()
  try {
    return await db.transaction().execute(async (trx) => {
      const dueDate = input.dueDate ?? null
      const startDate = input.startDate ?? null
      const errors = await validate(trx, owner, { title, dueDate, startDate }, null)
      if (errors !== null) throw badRequest(`Failed to create milestone ${rubyHash(errors)}`)
      const now = Date.now()
      const milestone = await trx.insertInto('milestones').values({
        project_id: owner.type === 'project' ? owner.id : null,
        group_id: owner.type === 'group' ? owner.id : null,
        iid: await nextInternalId(trx, owner, 'milestones'),
        title,
        description: input.description ?? null,
        due_date: dueDate,
        start_date: startDate,
        created_at: now,
        updated_at: now,
      }).returningAll().executeTakeFirstOrThrow()
      await recordMilestoneEvent(trx, actor, milestone, 'created')
      return milestone
    })
  } catch (err) {
    throw titleRace(err, 'create')
  }
}

export async function updateMilestone(
  db: Db, owner: MilestoneOwner, actor: Actor, milestone: MilestoneRow, changes: MilestoneChanges,
): Promise<MilestoneRow> {
  const title = changes.title?.trim()
  try {
    return await db.transaction().execute(async (trx) => {
      const dueDate = changes.dueDate === undefined ? milestone.due_date : changes.dueDate
      const startDate = changes.startDate === undefined ? milestone.start_date : changes.startDate
      const titleChanged = title !== undefined && title !== milestone.title
      const errors = await validate(trx, owner, { title: titleChanged ? title : undefined, dueDate, startDate }, milestone.id)
      if (errors !== null) throw badRequest(`Failed to update milestone ${rubyHash(errors)}`)
      const update: Updateable<MilestonesTable> = { updated_at: Date.now(), due_date: dueDate, start_date: startDate }
      if (titleChanged) update.title = title
      if (changes.description !== undefined) update.description = changes.description
      const newState = changes.stateEvent === 'close' ? 'closed' : changes.stateEvent === 'activate' ? 'active' : milestone.state
      if (newState !== milestone.state) update.state = newState
      const updated = await trx.updateTable('milestones').set(update).where('id', '=', milestone.id).returningAll().executeTakeFirstOrThrow()
      if (newState !== milestone.state) await recordMilestoneEvent(trx, actor, updated, newState === 'closed' ? 'closed' : 'reopened')
      return updated
    })
  } catch (err) {
    throw titleRace(err, 'update')
  }
}

/** Deletes the milestone; its issues, merge requests and boards keep no milestone (the foreign keys clear it). */
export async function deleteMilestone(db: Db, actor: Actor, milestone: MilestoneRow): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await recordMilestoneEvent(trx, actor, milestone, 'destroyed')
    await trx.deleteFrom('milestones').where('id', '=', milestone.id).execute()
  })
}
