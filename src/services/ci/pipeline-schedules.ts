// Pipeline schedules, as the original 11.5's Ci::PipelineSchedule and PipelineScheduleWorker: a
// cron of five fields in an IANA time zone, a ref, variables (sealed at rest) and an owner the
// pipelines run as. Every write recomputes next_run_at, as the original's before_save. The
// recurring job (jobs.ts) takes each due active schedule by moving its next_run_at forward with a
// compare-and-swap, so that of two processes only one runs a tick, then creates the pipeline
// (source `schedule`); a schedule whose owner is gone or blocked, or whose ref is missing, makes none.
import { cronParser } from '../../common/cron.js'
import type { AppContext } from '../../context.js'
import type { Db } from '../../db/index.js'
import type { CiPipelineRow, CiPipelineScheduleRow } from '../../db/schema.js'
import type { FieldErrors } from '../../common/errors.js'
import { findProjectByIdOrPath } from '../../finders/project-lookup.js'
import { paginate, type Page, type PaginationQuery } from '../../common/pages.js'
import { variableKeyErrors } from './variable-keys.js'
import { createPipelineAsOwner } from './owner-pipeline.js'

export interface ScheduleFields {
  description: string
  ref: string
  cron: string
  cron_timezone: string
  active: boolean
}

export interface ScheduleVariable {
  key: string
  value: string
}

export type ScheduleScope = 'active' | 'inactive'

/** The original's message for a cron or a time zone it cannot read (with its leading space). */
const INVALID_SYNTAX = ' is invalid syntax'
const BLANK = 'can\'t be blank'
/** Due schedules read at once. */
export const DUE_BATCH = 100

function isTimeZone(name: string): boolean {
  if (name === '') return false
  try {
    new Intl.DateTimeFormat('en', { timeZone: name })
    return true
  } catch {
    return false
  }
}

/** The cron's first time after `after` in the zone, or null when it does not read or never comes. */
export function nextRunAt(cron: string, timeZone: string, after: number): number | null {
  if (cron.trim().split(/\s+/).length !== 5 || !isTimeZone(timeZone)) return null
  try {
    return cronParser.parseExpression(cron, { tz: timeZone, currentDate: new Date(after) }).next().getTime()
  } catch {
    return null
  }
}

function cronReads(cron: string): boolean {
  return nextRunAt(cron, 'UTC', Date.now()) !== null
}

export function scheduleErrors(fields: ScheduleFields): FieldErrors {
  const errors: FieldErrors = {}
  const add = (field: string, message: string) => { (errors[field] ??= []).push(message) }
  if (!cronReads(fields.cron)) add('cron', INVALID_SYNTAX)
  if (fields.cron.trim() === '') add('cron', BLANK)
  if (!isTimeZone(fields.cron_timezone)) add('cron_timezone', INVALID_SYNTAX)
  if (fields.ref.trim() === '') add('ref', BLANK)
  if (fields.description.trim() === '') add('description', BLANK)
  return errors
}

export function scheduleVariableKeyErrors(key: string): FieldErrors {
  const messages = variableKeyErrors(key)
  return messages.length === 0 ? {} : { key: messages }
}

function scheduleColumns(fields: ScheduleFields, now: number) {
  return { ...fields, active: fields.active ? 1 as const : 0 as const, next_run_at: nextRunAt(fields.cron, fields.cron_timezone, now), updated_at: now }
}

export function scheduleFields(schedule: CiPipelineScheduleRow): ScheduleFields {
  const { description, ref, cron, cron_timezone: cronTimezone } = schedule
  return { description, ref, cron, cron_timezone: cronTimezone, active: schedule.active === 1 }
}

export async function createSchedule(db: Db, projectId: number, ownerId: number, fields: ScheduleFields): Promise<CiPipelineScheduleRow> {
  const now = Date.now()
  return db.insertInto('ci_pipeline_schedules').values({ project_id: projectId, owner_id: ownerId, ...scheduleColumns(fields, now), created_at: now })
    .returningAll().executeTakeFirstOrThrow()
}

/** The schedule with its fields (and owner) changed, next_run_at computed again. */
export async function updateSchedule(db: Db, schedule: CiPipelineScheduleRow, fields: ScheduleFields, ownerId = schedule.owner_id): Promise<CiPipelineScheduleRow> {
  return db.updateTable('ci_pipeline_schedules').set({ ...scheduleColumns(fields, Date.now()), owner_id: ownerId })
    .where('id', '=', schedule.id).returningAll().executeTakeFirstOrThrow()
}

export async function deleteSchedule(db: Db, schedule: CiPipelineScheduleRow): Promise<void> {
  await db.deleteFrom('ci_pipeline_schedules').where('id', '=', schedule.id).execute()
}

export async function findSchedule(db: Db, projectId: number, scheduleId: number): Promise<CiPipelineScheduleRow | null> {
  return await db.selectFrom('ci_pipeline_schedules').selectAll().where('project_id', '=', projectId).where('id', '=', scheduleId)
    .executeTakeFirst() ?? null
}

/** Newest first, as the original's PipelineSchedulesFinder. */
export function findSchedulePage(db: Db, projectId: number, scope: ScheduleScope | undefined, pagination: PaginationQuery): Promise<Page<CiPipelineScheduleRow>> {
  let query = db.selectFrom('ci_pipeline_schedules').selectAll().where('project_id', '=', projectId)
  if (scope !== undefined) query = query.where('active', '=', scope === 'active' ? 1 : 0)
  return paginate(db, query.orderBy('id', 'desc'), pagination)
}

/** The latest pipeline each schedule created, by schedule id. */
export async function lastPipelines(db: Db, scheduleIds: readonly number[]): Promise<Map<number, CiPipelineRow>> {
  if (scheduleIds.length === 0) return new Map()
  const rows = await db.selectFrom('ci_pipelines').selectAll()
    .where('id', 'in', db.selectFrom('ci_pipelines').select((eb) => eb.fn.max('id').as('id'))
      .where('pipeline_schedule_id', 'in', scheduleIds).groupBy('pipeline_schedule_id'))
    .execute()
  return new Map(rows.map((row) => [row.pipeline_schedule_id!, row]))
}

export async function scheduleVariables(ctx: AppContext, scheduleId: number): Promise<ScheduleVariable[]> {
  const rows = await ctx.db.selectFrom('ci_pipeline_schedule_variables').select(['key', 'encrypted_value'])
    .where('pipeline_schedule_id', '=', scheduleId).orderBy('id').execute()
  return rows.map((row) => ({ key: row.key, value: ctx.secrets.open('ci.pipeline_schedule_variables', row.encrypted_value) }))
}

/** The variable, or null when the schedule has one of that key already. */
export async function addScheduleVariable(ctx: AppContext, scheduleId: number, variable: ScheduleVariable): Promise<ScheduleVariable | null> {
  const inserted = await ctx.db.insertInto('ci_pipeline_schedule_variables')
    .values({ pipeline_schedule_id: scheduleId, key: variable.key, encrypted_value: ctx.secrets.seal('ci.pipeline_schedule_variables', variable.value) })
    .onConflict((oc) => oc.columns(['pipeline_schedule_id', 'key']).doNothing())
    .returning('id').executeTakeFirst()
  return inserted === undefined ? null : variable
}

/** The variable with its new value, or null when the schedule has none of that key. */
export async function updateScheduleVariable(ctx: AppContext, scheduleId: number, variable: ScheduleVariable): Promise<ScheduleVariable | null> {
  const updated = await ctx.db.updateTable('ci_pipeline_schedule_variables')
    .set({ encrypted_value: ctx.secrets.seal('ci.pipeline_schedule_variables', variable.value) })
    .where('pipeline_schedule_id', '=', scheduleId).where('key', '=', variable.key).executeTakeFirst()
  return updated.numUpdatedRows === 0n ? null : variable
}

/** The variable as it was, or null when the schedule has none of that key. */
export async function deleteScheduleVariable(ctx: AppContext, scheduleId: number, key: string): Promise<ScheduleVariable | null> {
  const deleted = await ctx.db.deleteFrom('ci_pipeline_schedule_variables')
    .where('pipeline_schedule_id', '=', scheduleId).where('key', '=', key).returning('encrypted_value').executeTakeFirst()
  return deleted === undefined ? null : { key, value: ctx.secrets.open('ci.pipeline_schedule_variables', deleted.encrypted_value) }
}

/**
 * Moves the schedule's next_run_at from the time read to the cron's next one after `now`, unless
 * another process did first: whether this caller has the tick.
 */
async function claimTick(db: Db, schedule: CiPipelineScheduleRow, now: number): Promise<boolean> {
  const claimed = await db.updateTable('ci_pipeline_schedules')
    .set({ next_run_at: nextRunAt(schedule.cron, schedule.cron_timezone, now), updated_at: now })
    .where('id', '=', schedule.id).where('active', '=', 1).where('next_run_at', '=', schedule.next_run_at)
    .executeTakeFirst()
  return claimed.numUpdatedRows === 1n
}

/** Creates the pipeline of one claimed tick; why there is none, else null. */
async function runSchedule(ctx: AppContext, schedule: CiPipelineScheduleRow): Promise<string[] | null> {
  const owner = schedule.owner_id === null ? undefined
    : await ctx.db.selectFrom('users').selectAll().where('id', '=', schedule.owner_id).executeTakeFirst()
  if (owner === undefined) return ['The schedule has no owner']
  const found = await findProjectByIdOrPath(ctx.db, String(schedule.project_id))
  if (found === null) return ['The project is gone']
  const result = await createPipelineAsOwner(ctx, {
    ...found, owner, source: 'schedule', ref: schedule.ref, variables: await scheduleVariables(ctx, schedule.id),
    pipelineScheduleId: schedule.id, saveOnConfigError: true,
  })
  return result.ok ? null : result.errors
}

/**
 * Runs a batch of the active schedules due at `now`, those whose tick this process claims: the
 * number of due schedules read (DUE_BATCH when more may wait).
 */
export async function runDueSchedules(ctx: AppContext, now: number): Promise<number> {
  const due = await ctx.db.selectFrom('ci_pipeline_schedules').selectAll()
    .where('active', '=', 1).where('next_run_at', '<=', now).orderBy('next_run_at').limit(DUE_BATCH).execute()
  for (const schedule of due) {
    if (!await claimTick(ctx.db, schedule, now)) continue
    try {
      const errors = await runSchedule(ctx, schedule)
      if (errors !== null) ctx.log.info({ scheduleId: schedule.id, errors }, 'a pipeline schedule created no pipeline')
    } catch (err) {
      ctx.log.error({ err, scheduleId: schedule.id }, 'a pipeline schedule failed to create its pipeline')
    }
  }
  return due.length
}
