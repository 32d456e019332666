// Case-insensitive text matching for list filters, written once for SQLite and PostgreSQL as
// LIKE over lower(column), with the caller's wildcards taken literally ('!' escapes them).
import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely'

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
