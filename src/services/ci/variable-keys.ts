// The original's one rule for the key of every variable a user gives CI (HasVariable): present, at
// most 255 characters, letters, digits and `_` only. CI/CD variables, schedules' variables, and the
// variables of a pipeline created by the API or a trigger all keep to it.
const KEY_CHARACTERS = /^[a-zA-Z0-9_]+$/
const MAX_KEY_LENGTH = 255

export function isVariableKey(key: string): boolean {
  return key.length <= MAX_KEY_LENGTH && KEY_CHARACTERS.test(key)
}

/** What is wrong with the key, in the original's validation messages; none when it is good. */
export function variableKeyErrors(key: string): string[] {
  const errors: string[] = []
  if (key.trim() === '') errors.push("can't be blank")
  if (key.length > MAX_KEY_LENGTH) errors.push(`is too long (maximum is ${MAX_KEY_LENGTH} characters)`)
  if (!KEY_CHARACTERS.test(key)) errors.push("can contain only letters, digits and '_'.")
  return errors
}
