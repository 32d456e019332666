// Field validation for services: problems are gathered per field and answered together as
// 400 {"message":{"field":["problem", …]}}.
import type { FieldErrors } from '../common/errors.js'

/** The checks that found problems, keyed by field; null when every check passed. */
export function collectErrors(checks: Record<string, readonly string[]>): FieldErrors | null {
  const errors: FieldErrors = {}
  for (const [field, messages] of Object.entries(checks)) if (messages.length > 0) errors[field] = [...messages]
  return Object.keys(errors).length > 0 ? errors : null
}
