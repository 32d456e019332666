// One representation per type on SQLite and PostgreSQL, decided here once:
// - instants are UTC epoch milliseconds (bigint columns): they sort, compare and round-trip alike;
// - calendar dates (due dates, expiry dates) are 'YYYY-MM-DD' text;
// - booleans are 0/1 integers (SQLite has no boolean type and better-sqlite3 binds no booleans);
// - structured values (token scopes, push data) are JSON text.

export type Flag = 0 | 1

/** The largest value of an integer column (ids, counters, limits): 32-bit on PostgreSQL. */
export const MAX_INTEGER = 2_147_483_647

/**
 * Whether a number can be compared with an integer column on both databases. PostgreSQL fails the
 * whole query on an out-of-range parameter, so an id no row can have is looked up as "not found".
 */
export function fitsIntegerColumn(value: number): boolean {
  return Number.isInteger(value) && value >= -MAX_INTEGER - 1 && value <= MAX_INTEGER
}

export function flag(value: boolean): Flag {
  return value ? 1 : 0
}

// The first and last instants taken and shown: the years 0000 to 9999, which ISO 8601 writes in
// four digits (and a Date holds).
/** 0000-01-01T00:00:00.000Z */
export const MIN_INSTANT = -62_167_219_200_000
/** 9999-12-31T23:59:59.999Z */
export const MAX_INSTANT = 253_402_300_799_999

/** Whether epoch milliseconds are an instant a column may hold (a whole number within the years 0000–9999). */
export function isInstant(ms: number): boolean {
  return Number.isInteger(ms) && ms >= MIN_INSTANT && ms <= MAX_INSTANT
}

/**
 * An instant as it can be shown. Values out of range were stored before datetimes were checked
 * (1e308 as a creation time): they show as the nearest instant in range rather than failing
 * every answer that includes them.
 */
function shownInstant(ms: number): number {
  return Number.isNaN(ms) ? 0 : Math.min(Math.max(Math.trunc(ms), MIN_INSTANT), MAX_INSTANT)
}

const DAY_MS = 86_400_000
/** `YYYY-MM-DDT` of recently shown days, by day number: lists and exports show runs of nearby instants. */
const dayPrefixes = new Map<number, string>()
const DAY_PREFIXES_KEPT = 4096

const two = (n: number) => (n < 10 ? `0${n}` : `${n}`)

/**
 * Epoch milliseconds to the API's ISO 8601 form with milliseconds and `Z`: Date#toISOString's text,
 * with the date part kept per day and the time of day written from its numbers (a large export
 * writes a million of them).
 */
export function isoTime(ms: number): string
export function isoTime(ms: number | null): string | null
export function isoTime(ms: number | null): string | null {
  if (ms === null) return null
  const shown = shownInstant(ms)
  const day = Math.floor(shown / DAY_MS)
  let prefix = dayPrefixes.get(day)
  if (prefix === undefined) {
    if (dayPrefixes.size >= DAY_PREFIXES_KEPT) dayPrefixes.clear()
    prefix = new Date(day * DAY_MS).toISOString().slice(0, 11)
    dayPrefixes.set(day, prefix)
  }
  const time = shown - day * DAY_MS
  const milliseconds = time % 1000
  const seconds = Math.floor(time / 1000)
  return `${prefix}${two(Math.floor(seconds / 3600))}:${two(Math.floor(seconds / 60) % 60)}:${two(seconds % 60)}.${milliseconds < 10 ? '00' : milliseconds < 100 ? '0' : ''}${milliseconds}Z`
}

/** Epoch milliseconds to the `YYYY-MM-DD` date (UTC) it falls on. */
export function isoDateOf(ms: number): string {
  return new Date(shownInstant(ms)).toISOString().slice(0, 10)
}

let todayCache = { from: 0, until: 0, date: '' }

/** Today's date in UTC as `YYYY-MM-DD`, the form date columns compare against. */
export function today(now: number = Date.now()): string {
  // Asked on every request: worked out once a day.
  if (now < todayCache.from || now >= todayCache.until) {
    const from = now - (now % 86_400_000)
    todayCache = { from, until: from + 86_400_000, date: isoDateOf(from) }
  }
  return todayCache.date
}

/** True for a `YYYY-MM-DD` date that is on the calendar (not 2024-02-30). */
export function isCalendarDate(text: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(text) && !Number.isNaN(startOfDate(text)) && isoDateOf(startOfDate(text)) === text
}

/** Midnight UTC at the start of a `YYYY-MM-DD` date, as epoch milliseconds. */
export function startOfDate(date: string): number {
  return Date.parse(`${date}T00:00:00.000Z`)
}

export function parseJsonArray(text: string | null): string[] {
  if (text === null || text === '') return []
  const value: unknown = JSON.parse(text)
  return Array.isArray(value) ? value.map(String) : []
}
