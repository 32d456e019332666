// Case-insensitive text matching for list filters, written once for SQLite and PostgreSQL as
// LIKE over lower(column), with the caller's wildcards taken literally ('!' escapes them); and
// ordering by text the same way on both.
import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely'
import type { Db } from '../db/index.js'
import { isPostgres } from '../db/dialect.js'

const MIN_CHARS_FOR_PARTIAL_MATCHING = 3

function likeText(text: string): string {
  return text.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)
}

const lowered = (column: string | RawBuilder<unknown>) => sql`lower(${typeof column === 'string' ? sql.ref(column) : column})`

/** `column` contains `term`, ignoring case. */
export function containsIgnoringCase(column: string | RawBuilder<unknown>, term: string): Expression<SqlBool> {
  return sql<SqlBool>`${lowered(column)} like ${`%${likeText(term)}%`} escape '!'`
}

/**
 * The original's fuzzy search in one column: every word of three characters or more ("quoted
 * phrases" count as one word) must occur in it; a query without such words must equal it whole.
 * Null for a blank query.
 */
export function matchesSearch(column: string | RawBuilder<unknown>, query: string): Expression<SqlBool> | null {
  const squished = query.trim().replace(/\s+/g, ' ')
  if (squished === '') return null
  const quoted = [...squished.matchAll(/"([^"]+)"/g)].map((m) => m[1] ?? '')
  const words = [...squished.replace(/"[^"]+"/g, ' ').split(' '), ...quoted]
    .filter((word) => [...word].length >= MIN_CHARS_FOR_PARTIAL_MATCHING)
  if (words.length === 0) return sql<SqlBool>`${lowered(column)} = ${squished.toLowerCase()}`
  return sql<SqlBool>`(${sql.join(words.map((word) => containsIgnoringCase(column, word)), sql` and `)})`
}

/** matchesSearch in any of the columns (each column must hold every word); null for a blank query. */
export function matchesSearchInAny(columns: readonly string[], query: string): Expression<SqlBool> | null {
  const matches = columns.flatMap((column) => matchesSearch(column, query) ?? [])
  return matches.length === 0 ? null : sql<SqlBool>`(${sql.join(matches, sql` or `)})`
}

/**
 * A text column to ORDER BY in code point order, as SQLite compares text. PostgreSQL would sort by
 * the database's collation, which may be linguistic ('_x' < 'a' < 'B', spaces ignored), so lists
 * ordered by name would differ between the two.
 */
export function textOrder(db: Db, column: string): RawBuilder<string> {
  return isPostgres(db) ? sql<string>`${sql.ref(column)} collate "C"` : sql<string>`${sql.ref(column)}`
}
