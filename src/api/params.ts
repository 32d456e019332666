// Shared TypeBox fragments for parameters, and the AJV keywords behind the ones JSON Schema cannot
// express: booleans as clients send them ("true", "True", "1", "yes"), datetimes in any ISO 8601
// form (turned into epoch milliseconds) and `YYYY-MM-DD` dates.
import { Type } from '@sinclair/typebox'
import type { Ajv } from 'ajv'
import { MAX_INTEGER, isCalendarDate, isInstant } from '../db/values.js'
import { isUploadedFile, type UploadedFile } from '../common/uploaded-file.js'

const TRUE_WORDS = new Set(['true', 't', '1', 'yes', 'y', 'on'])
const FALSE_WORDS = new Set(['false', 'f', '0', 'no', 'n', 'off'])

interface DataContext {
  parentData: Record<string | number, unknown>
  parentDataProperty: string | number
}

/** Rewrites the value in place (AJV "modifying" keyword); returns whether it was acceptable. */
function replaceWith(ctx: DataContext | undefined, value: unknown): boolean {
  if (ctx?.parentData !== undefined) ctx.parentData[ctx.parentDataProperty] = value
  return true
}

export function addParamKeywords(ajv: Ajv): Ajv {
  ajv.addKeyword({
    keyword: 'x-file',
    schemaType: 'boolean',
    validate: (_schema: boolean, data: unknown) => isUploadedFile(data),
  })
  ajv.addKeyword({
    keyword: 'x-boolean',
    modifying: true,
    schemaType: 'boolean',
    validate: (_schema: boolean, data: unknown, _parent?: unknown, ctx?: DataContext) => {
      if (typeof data === 'boolean') return true
      const word = typeof data === 'number' ? String(data) : typeof data === 'string' ? data.trim().toLowerCase() : null
      if (word !== null && TRUE_WORDS.has(word)) return replaceWith(ctx, true)
      if (word !== null && FALSE_WORDS.has(word)) return replaceWith(ctx, false)
      return false
    },
  })
  ajv.addKeyword({
    keyword: 'x-datetime',
    modifying: true,
    schemaType: 'boolean',
    validate: (_schema: boolean, data: unknown, _parent?: unknown, ctx?: DataContext) => {
      // A number is read as epoch milliseconds, in the same range.
      if (typeof data === 'number') return isInstant(data)
      if (typeof data !== 'string' || !/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/i.test(data.trim())) {
        return false
      }
      const text = data.trim().replace(' ', 'T')
      // A bare date or a time without zone is read as UTC, as the original does.
      const ms = Date.parse(/T/.test(text) && !/(Z|[+-]\d{2}:?\d{2})$/i.test(text) ? `${text}Z` : text)
      // In range, so that every instant stored can be shown (0000-01-01T00:00:00+01:00 is not).
      return isInstant(ms) ? replaceWith(ctx, ms) : false
    },
  })
  ajv.addKeyword({
    keyword: 'x-date',
    schemaType: 'boolean',
    validate: (_schema: boolean, data: unknown) => typeof data === 'string' && isCalendarDate(data),
  })
  return ajv
}

const isHash = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/** Whether a parameter's schema takes an array and no single value (`Type.Array`, or one or null). */
function takesArrayOnly(schema: Record<string, unknown>): boolean {
  if (schema.type === 'array') return true
  const branches = schema.anyOf
  return Array.isArray(branches) && branches.some((branch) => isHash(branch) && branch.type === 'array')
    && branches.every((branch) => isHash(branch) && (branch.type === 'array' || branch.type === 'null'))
}

/**
 * A single value given for an array parameter (`iids=1`, `scopes=api`) becomes a list of one, as
 * the original's Grape coerces it. Done here, before validation, for the parameters of the route's
 * querystring or body schema, because validation coerces scalar types only: its array coercion
 * also turned a list of one into a single value, and lists of lists into the lists a parameter
 * takes, without writing them back (labels sent as [["a"]] reached the service as they were).
 */
export function wrapSingleValues(params: unknown, schema: unknown): void {
  if (!isHash(params) || !isHash(schema) || !isHash(schema.properties)) return
  for (const { name, arrayTyped } of arrayParamsOf(schema.properties)) {
    const value = params[name]
    if (value === undefined || Array.isArray(value) || isHash(value)) continue
    // A null stays null where null is taken, as the value of a parameter left out.
    if (value !== null || arrayTyped) params[name] = [value]
  }
}

/** The parameters of a schema's properties that take arrays only; read once per schema (on every request's path). */
function arrayParamsOf(properties: Record<string, unknown>): readonly { name: string; arrayTyped: boolean }[] {
  let found = arrayParams.get(properties)
  if (found === undefined) {
    found = Object.entries(properties)
      .filter((entry): entry is [string, Record<string, unknown>] => isHash(entry[1]) && takesArrayOnly(entry[1]))
      .map(([name, property]) => ({ name, arrayTyped: property.type === 'array' }))
    arrayParams.set(properties, found)
  }
  return found
}

const arrayParams = new WeakMap<object, readonly { name: string; arrayTyped: boolean }[]>()

/**
 * A list's `search` words. At most 4,096 characters, the original's later SEARCH_CHAR_LIMIT: SQLite
 * refuses LIKE patterns past 50,000 bytes, and no name or title is that long.
 */
export const SearchParam = (options: { description?: string } = {}) => Type.String({ maxLength: 4096, ...options })

/** A boolean parameter: true/false, or the words clients put in query strings and forms. */
export const BooleanParam = (options: { default?: boolean; description?: string } = {}) =>
  Type.Unsafe<boolean>({ 'x-boolean': true, ...options })

/** An ISO 8601 datetime parameter in the years 0000–9999, handed to the route as epoch milliseconds. */
export const DateTimeParam = (options: { description?: string } = {}) =>
  Type.Unsafe<number>({ 'x-datetime': true, ...options })

/** A file sent as a part of a multipart/form-data body. */
export const FileParam = (options: { description?: string } = {}) => Type.Unsafe<UploadedFile>({ 'x-file': true, ...options })

/** A `YYYY-MM-DD` date parameter. */
export const DateParam = (options: { description?: string } = {}) =>
  Type.Unsafe<string>({ type: 'string', 'x-date': true, ...options })

/** One of a fixed set of strings. */
export const OneOf = <T extends string>(values: readonly T[], options: { default?: T; description?: string } = {}) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...options })

export const SortParam = (defaultSort: 'asc' | 'desc') => OneOf(['asc', 'desc'] as const, { default: defaultSort })

export const Pagination = Type.Object({
  // Bounded so that every offset is a number both databases take (and "1e309", Infinity, is refused).
  page: Type.Integer({ minimum: 1, maximum: MAX_INTEGER, default: 1 }),
  // Above the maximum of 100 the page size is clamped, as the original does (see pagination.ts).
  per_page: Type.Integer({ minimum: 1, default: 20 }),
})

/** `:id` of a project or group: the numeric id or the URL-encoded full path. */
export const IdParams = Type.Object({ id: Type.String({ minLength: 1 }) })

/** `custom_attributes[key]=value` filters, as a hash parameter. */
export const CustomAttributesFilter = Type.Optional(Type.Record(Type.String(), Type.String()))
