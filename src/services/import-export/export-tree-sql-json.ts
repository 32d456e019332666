// Records of project.json written by the database: each expression here yields the JSON text of a
// value exactly as JSON.stringify writes it for the record the JS builders make (no spaces, keys in
// order, instants as isoTime shows them), so that the writer copies the database's text into the
// file without materialising rows as objects. Built by concatenation on both databases: SQLite's
// json_quote and PostgreSQL's to_json escape strings as JSON.stringify does, while
// json_build_object/json_agg would add spaces on PostgreSQL.
import { sql, type RawBuilder } from 'kysely'
import type { Db } from '../../db/index.js'
import { isPostgres } from '../../db/dialect.js'
import { MAX_INSTANT, MIN_INSTANT } from '../../db/values.js'

/** JSON text made by the database. */
export type SqlJson = RawBuilder<string>

/** A JSON value already written (by the database), copied into project.json as it is. */
export class JsonText {
  constructor(readonly text: string) {}
}

/** An SQL string literal of a constant text (keys and punctuation, never user data). */
const literal = (text: string): SqlJson => sql.raw(`'${text.replaceAll("'", "''")}'`)

/** A constant JSON value (`null`, `false`, `{"url":null}`). */
export const constant = (value: unknown): SqlJson => literal(JSON.stringify(value))

/** 0001-01-01T00:00:00.000Z */
const YEAR_1 = -62_135_596_800_000

class OptionalField {
  constructor(readonly text: SqlJson) {}
}

/** The JSON expressions of one dialect. Columns are passed as `sql.ref('alias.column')`. */
export class SqlJsonDialect {
  private readonly postgres: boolean

  constructor(db: Db) {
    this.postgres = isPostgres(db)
  }

  /** A column's value as JSON.stringify writes it: a quoted string, a number, or null. */
  value(column: RawBuilder<unknown>): SqlJson {
    return this.postgres ? sql`coalesce(to_json(${column})::text, 'null')` : sql`json_quote(${column})`
  }

  /** A numeric column as `Number(value)` writes it (null is 0). */
  number(column: RawBuilder<unknown>): SqlJson {
    return this.value(sql`coalesce(${column}, 0)`)
  }

  /** A 0/1 flag column as the boolean `bool` writes (anything but 1 is false). */
  flag(column: RawBuilder<unknown>): SqlJson {
    return sql`case when ${column} = 1 then 'true' else 'false' end`
  }

  /** Epoch milliseconds as `instant` writes them (`"2016-06-14T15:02:08.340Z"`, clamped to years 0000–9999), or null. */
  instant(column: RawBuilder<unknown>): SqlJson {
    const shown = sql`least(greatest(${column}, ${sql.lit(MIN_INSTANT)}), ${sql.lit(MAX_INSTANT)})`
    if (this.postgres) {
      // PostgreSQL has no year 0: ISO's 0000 is its 1 BC, which YYYY writes as 0001.
      return sql`case when ${column} is null then 'null' else
        '"' || to_char(to_timestamp(${shown} / 1000.0) at time zone 'UTC',
          case when ${shown} < ${sql.lit(YEAR_1)} then '"0000"-MM-DD"T"HH24:MI:SS.MS"Z"' else 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"' end) || '"' end`
    }
    // Whole seconds (floored) for strftime and the milliseconds apart: strftime's own fractions
    // round through floating point.
    const ms = sql`cast(min(max(${column}, ${sql.lit(MIN_INSTANT)}), ${sql.lit(MAX_INSTANT)}) as integer)`
    const millis = sql`((${ms} % 1000) + 1000) % 1000`
    return sql`case when ${column} is null then 'null' else
      '"' || strftime('%Y-%m-%dT%H:%M:%S', (${ms} - ${millis}) / 1000, 'unixepoch') || printf('.%03dZ"', ${millis}) end`
  }

  /**
   * `{"key":value,…}` of the fields in order. A field may instead be an `optional` one: text that
   * is either `,"key":value` or empty (a key the record has only sometimes); never the first.
   */
  object(fields: ReadonlyArray<readonly [key: string, value: SqlJson] | OptionalField>): SqlJson {
    const parts = fields.map((field, index) => field instanceof OptionalField
      ? field.text
      : sql`${literal(`${index === 0 ? '{' : ','}${JSON.stringify(field[0])}:`)} || ${field[1]}`)
    return sql`${sql.join(parts, sql` || `)} || '}'`
  }

  /** A key written only when `value` is not null (its subquery found a row). */
  optional(key: string, value: SqlJson): OptionalField {
    return new OptionalField(sql`coalesce(${literal(`,${JSON.stringify(key)}:`)} || ${value}, '')`)
  }

  /**
   * `[item,…]` of a subquery's rows in the given order (`[]` when there are none): `from` is the
   * subquery's from-and-where clause, `item` the JSON of one of its rows.
   */
  array(item: SqlJson, from: RawBuilder<unknown>, orderBy: RawBuilder<unknown>): SqlJson {
    const aggregate = this.postgres ? sql`string_agg(${item}, ',' order by ${orderBy})` : sql`group_concat(${item}, ',' order by ${orderBy})`
    return sql`coalesce((select '[' || ${aggregate} || ']' ${from}), '[]')`
  }
}
