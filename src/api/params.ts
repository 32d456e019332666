// Shared TypeBox fragments for parameters, and the AJV keywords behind the ones JSON Schema cannot
// express: booleans as clients send them ("true", "True", "1", "yes"), datetimes in any ISO 8601
// form (turned into epoch milliseconds) and `YYYY-MM-DD` dates.
import { Type } from '@sinclair/typebox'
import type { Ajv } from 'ajv'
import { MAX_INTEGER, isCalendarDate } from '../db/values.js'
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
      if (typeof data === 'number' && Number.isFinite(data)) return true
      if (typeof data !== 'string' || !/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/i.test(data.trim())) {
        return false
      }
      const text = data.trim().replace(' ', 'T')
      // A bare date or a time without zone is read as UTC, as the original does.
      const ms = Date.parse(/T/.test(text) && !/(Z|[+-]\d{2}:?\d{2})$/i.test(text) ? `${text}Z` : text)
      return Number.isNaN(ms) ? false : replaceWith(ctx, ms)
    },
  })
  ajv.addKeyword({
    keyword: 'x-date',
    schemaType: 'boolean',
    validate: (_schema: boolean, data: unknown) => typeof data === 'string' && isCalendarDate(data),
  })
  return ajv
}

/** A boolean parameter: true/false, or the words clients put in query strings and forms. */
export const BooleanParam = (options: { default?: boolean; description?: string } = {}) =>
  Type.Unsafe<boolean>({ 'x-boolean': true, ...options })

/** An ISO 8601 datetime parameter, handed to the route as epoch milliseconds. */
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
