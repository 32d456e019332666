// Time tracking of issues and merge requests: durations as the original reads and writes them.
// Input is "1mo 2w 3d 4h 5m 6s" (or plain seconds); output, the human forms of time_stats. As in
// the original, a day is 8 hours, a week 5 days and a month 4 weeks. Changes of an issue's or
// merge request's estimate and time spent are written with their system notes ("changed time
// estimate to 1h", "added 30m of time spent", "removed time spent").
import { sql, type RawBuilder, type SqlBool } from 'kysely'
import type { Actor } from '../../auth/actor.js'
import type { AppContext } from '../../context.js'
import type { IssuableType } from '../../db/schema.js'
import { validationFailed } from '../../common/errors.js'
import { addSystemNote } from '../notes/system-notes.js'
import { changesBetween } from '../activity/activity.js'

const UNIT_SECONDS = { mo: 4 * 5 * 8 * 3600, w: 5 * 8 * 3600, d: 8 * 3600, h: 3600, m: 60, s: 1 } as const
const ORDER = ['mo', 'w', 'd', 'h', 'm', 's'] as const
const PART = /^(-?\d+)(mo|w|d|h|m|s)$/

/** The most seconds an estimate or a total time spent holds: the original's integer columns (68 years). */
const MAX_SECONDS = 2 ** 31 - 1

/** Seconds of a duration such as "3h30m", "1w 2d", "-30m" or "3600"; null when unreadable or beyond MAX_SECONDS. */
export function parseDuration(text: string): number | null {
  const seconds = durationSeconds(text)
  return seconds !== null && Math.abs(seconds) <= MAX_SECONDS ? seconds : null
}

function durationSeconds(text: string): number | null {
  const squished = text.trim().toLowerCase().replace(/\s+/g, '')
  if (squished === '') return null
  if (/^-?\d+$/.test(squished)) return Number(squished)
  const parts = squished.match(/-?\d+(?:mo|w|d|h|m|s)/g)
  if (parts === null || parts.join('') !== squished) return null
  let seconds = 0
  for (const part of parts) {
    const [, amount, unit] = PART.exec(part) ?? []
    seconds += Number(amount) * UNIT_SECONDS[unit as keyof typeof UNIT_SECONDS]
  }
  return Number.isSafeInteger(seconds) ? seconds : null
}

/** "1w 2d 3h" for a positive number of seconds; null for zero (as time_stats shows it). */
export function humanDuration(seconds: number): string | null {
  if (seconds === 0) return null
  const sign = seconds < 0 ? '-' : ''
  let rest = Math.abs(seconds)
  const parts: string[] = []
  for (const unit of ORDER) {
    const amount = Math.floor(rest / UNIT_SECONDS[unit])
    if (amount > 0) parts.push(`${amount}${unit}`)
    rest -= amount * UNIT_SECONDS[unit]
  }
  return sign + parts.join(' ')
}

/** What time_stats shows of an issue or merge request. */
export interface TrackedTime {
  time_estimate: number
  total_time_spent: number
}

/** The issue or merge request whose time is tracked (its row's project column differs by type). */
export interface TimeTracked {
  type: IssuableType
  id: number
  projectId: number
  time: TrackedTime
  /** Its updated_at before the change (the `changes` of the update it publishes). */
  updatedAt: number
}

const TABLE_OF = { Issue: 'issues', MergeRequest: 'merge_requests' } as const

/**
 * Writes the time values when `guard` holds, with the change's system note, in one transaction;
 * undefined when the guard failed. One UPDATE, so concurrent changes all count. Once committed, the
 * change is published as an update of the issue or merge request (webhooks carry time changes).
 */
async function writeTime(
  ctx: AppContext, actor: Actor, target: TimeTracked,
  values: { time_estimate?: number | RawBuilder<number>; total_time_spent?: number | RawBuilder<number> },
  note: string, guard: RawBuilder<SqlBool> = sql<SqlBool>`1 = 1`,
): Promise<TrackedTime | undefined> {
  const written = await ctx.db.transaction().execute(async (trx) => {
    const now = Date.now()
    // Both tables share these columns; Kysely is told the issues table's shape for either.
    const updated = await trx.updateTable(TABLE_OF[target.type] as 'issues').set({ ...values, updated_at: now })
      .where('id', '=', target.id).where(guard).returning(['time_estimate', 'total_time_spent']).executeTakeFirst()
    if (updated === undefined) return undefined
    await addSystemNote(trx, { projectId: target.projectId, noteable: { type: target.type, id: target.id }, authorId: actor.user.id, body: note, createdAt: now })
    return { updated, at: now }
  })
  if (written === undefined) return undefined
  const changes = {
    ...changesBetween(target.time, written.updated, ['time_estimate', 'total_time_spent']),
    updated_at: { previous: target.updatedAt, current: written.at },
  }
  const common = { action: 'update' as const, projectId: target.projectId, userId: actor.user.id, changes }
  await ctx.activity.publish(target.type === 'Issue'
    ? { kind: 'issue', issueId: target.id, ...common }
    : { kind: 'merge_request', mergeRequestId: target.id, ...common }, ctx)
  return written.updated
}

/** Sets the estimate (0 removes it); a negative one is refused as the original refuses it. */
export async function setTimeEstimate(ctx: AppContext, actor: Actor, target: TimeTracked, seconds: number): Promise<TrackedTime> {
  if (seconds < 0) throw validationFailed({ time_estimate: ['has an invalid format'] })
  if (seconds === target.time.time_estimate) return target.time
  const note = seconds === 0 ? 'removed time estimate' : `changed time estimate to ${humanDuration(seconds)}`
  return await writeTime(ctx, actor, target, { time_estimate: seconds }, note) ?? target.time
}

/** Adds time spent (subtracts it when negative); the total never goes below zero nor past MAX_SECONDS. */
export async function addSpentTime(ctx: AppContext, actor: Actor, target: TimeTracked, seconds: number): Promise<TrackedTime> {
  if (seconds === 0) return target.time
  // Summed as bigint: PostgreSQL fails an integer sum past its range instead of letting the guard refuse it.
  const total = sql<number>`cast(total_time_spent as bigint) + ${seconds}`
  const note = `${seconds > 0 ? 'added' : 'subtracted'} ${humanDuration(Math.abs(seconds))} of time spent`
  const updated = await writeTime(ctx, actor, target, { total_time_spent: total }, note, sql<SqlBool>`${total} between 0 and ${MAX_SECONDS}`)
  if (updated === undefined) {
    throw validationFailed({ time_spent: [seconds < 0 ? 'Time to subtract exceeds the total time spent' : 'has an invalid format'] })
  }
  return updated
}

export async function resetSpentTime(ctx: AppContext, actor: Actor, target: TimeTracked): Promise<TrackedTime> {
  if (target.time.total_time_spent === 0) return target.time
  return await writeTime(ctx, actor, target, { total_time_spent: 0 }, 'removed time spent') ?? target.time
}

/** Seconds of a `duration` parameter; 400 naming `field` when unreadable. */
export function durationParam(text: string, field: 'time_estimate' | 'time_spent'): number {
  const seconds = parseDuration(text)
  if (seconds === null) throw validationFailed({ [field]: ['has an invalid format'] })
  return seconds
}
