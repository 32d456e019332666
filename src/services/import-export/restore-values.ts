// The values of an archive's records as Ingot stores them (instants, flags, dates, enums), and the
// user mapping of 11.5's MembersMapper: a record's user references are old ids of the exporting
// instance; each maps to the matched user, or to the importer.
import type { Flag } from '../../db/values.js'
import type { EventAction } from '../../db/schema.js'

export type Json = Record<string, unknown>

export function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

export function records(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter(isRecord) : []
}

export function text(value: unknown): string | null {
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return null
}

export function int(value: unknown): number | null {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value
  return typeof n === 'number' && Number.isSafeInteger(n) ? n : null
}

export function num(value: unknown): number | null {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value
  return typeof n === 'number' && Number.isFinite(n) ? n : null
}

export function bool(value: unknown): boolean | null {
  if (typeof value === 'boolean') return value
  if (value === 1 || value === '1' || value === 'true' || value === 't') return true
  if (value === 0 || value === '0' || value === 'false' || value === 'f') return false
  return null
}

export function flagOf(value: unknown, fallback = false): Flag {
  return (bool(value) ?? fallback) ? 1 : 0
}

/** An instant (epoch ms) from the archive's ISO 8601 text; null when absent or unreadable. */
export function instant(value: unknown): number | null {
  if (typeof value !== 'string' || value === '') return null
  const ms = Date.parse(value)
  return Number.isFinite(ms) ? ms : null
}

export function dateOf(value: unknown): string | null {
  return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : null
}

/** The original's Event actions by number (app/models/event.rb). */
const EVENT_ACTIONS: Record<number, EventAction> = {
  1: 'created', 2: 'updated', 3: 'closed', 4: 'reopened', 5: 'pushed', 6: 'commented', 7: 'merged', 8: 'joined',
  9: 'left', 10: 'destroyed', 11: 'expired',
}

export function eventAction(value: unknown): EventAction | null {
  const n = int(value)
  if (n !== null) return EVENT_ACTIONS[n] ?? null
  return typeof value === 'string' && Object.values(EVENT_ACTIONS).includes(value as EventAction) ? value as EventAction : null
}

/**
 * Old user ids → Ingot users. Filled only when the importer is an administrator (11.5's rule);
 * every reference it lacks falls back to the importer, a null reference stays null.
 */
export class UserMap {
  readonly map = new Map<number, number>()
  constructor(readonly importerId: number) {}

  /** A required reference (author): the mapped user or the importer. */
  required(oldId: unknown): number {
    const id = int(oldId)
    return (id === null ? undefined : this.map.get(id)) ?? this.importerId
  }

  /** An optional reference: null stays null, anything else maps as required. */
  optional(oldId: unknown): number | null {
    return oldId === null || oldId === undefined ? null : this.required(oldId)
  }

  has(oldId: unknown): boolean {
    const id = int(oldId)
    return id !== null && this.map.has(id)
  }
}

/**
 * The line 11.5 (RelationFactory#missing_author_note) appends to a note whose author could not be
 * mapped: the author's name and the note's updated_at up to its fractional seconds.
 */
export function missingAuthorLine(updatedAt: unknown, authorName: string): string {
  const timestamp = (typeof updatedAt === 'string' ? updatedAt : '').split('.')[0]
  return `\n\n *By ${authorName} on ${timestamp} (imported from GitLab project)*`
}
