// What every entity needs: the caller and the base URLs, and schema helpers that keep response
// schemas fast to serialize (type arrays, not anyOf, for nullable values).
import { Type, type Static, type TSchema } from '@sinclair/typebox'
import type { Actor } from '../auth/actor.js'

export interface PresentContext {
  /** INGOT_EXTERNAL_URL without a trailing slash. */
  baseUrl: string
  /** `${baseUrl}/api/v4`. */
  apiUrl: string
  /** The host name of baseUrl, for ssh_url_to_repo. */
  sshHost: string
  actor: Actor | null
}

export function presentContext(baseUrl: string, actor: Actor | null): PresentContext {
  return { baseUrl, apiUrl: `${baseUrl}/api/v4`, sshHost: new URL(baseUrl).hostname, actor }
}

/** A nullable primitive or object schema, as `type: [T, 'null']`. */
export function Nullable<T extends TSchema>(schema: T) {
  const type = (schema as { type?: unknown }).type
  if (typeof type !== 'string') throw new Error('Nullable() needs a schema with a single type')
  return Type.Unsafe<Static<T> | null>({ ...schema, type: [type, 'null'] })
}

export const IsoDateTime = Type.String({ description: 'ISO 8601 UTC with milliseconds' })
export const NullableString = Nullable(Type.String())
export const NullableInteger = Nullable(Type.Integer())
export const NullableDateTime = Nullable(IsoDateTime)
/** `YYYY-MM-DD` or null. */
export const NullableDate = Nullable(Type.String({ description: 'YYYY-MM-DD' }))

export const CustomAttribute = Type.Object({ key: Type.String(), value: Type.String() })
export type CustomAttributeEntity = Static<typeof CustomAttribute>

/** `{"message": …}`: the body of 202 answers and of errors in response schemas. */
export const MessageBody = Type.Object({ message: Type.Unknown() })
