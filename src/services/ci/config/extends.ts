// `extends: .base`: an entry becomes its base deep-merged with itself, resolved before anything is
// validated, as in the original 11.5: one base per entry (lists of bases came in 12.0), ten levels
// at most, cycles refused. Errors are the original's, naming the entry.
import { deepMerge } from './deep-merge.js'
import { isYamlHash, type YamlHash } from './types.js'

const MAX_NESTING_LEVELS = 10

class ExtendsError extends Error {}

/** The root with every `extends` resolved, or the first error met. */
export function resolveExtends(root: YamlHash): { ok: true; value: YamlHash } | { ok: false; error: string } {
  const resolved: YamlHash = { ...root }
  const done = new Set<string>()

  const extend = (key: string, ancestors: readonly string[]): YamlHash => {
    const value = resolved[key] as YamlHash
    if (!('extends' in value) || done.has(key)) return value
    const baseKey = value.extends
    if (typeof baseKey !== 'string' || !Object.hasOwn(resolved, baseKey)) throw new ExtendsError(`${key}: unknown key in \`extends\``)
    if (!isYamlHash(resolved[baseKey])) throw new ExtendsError(`${key}: invalid base hash in \`extends\``)
    if (ancestors.length > MAX_NESTING_LEVELS) throw new ExtendsError(`${key}: nesting too deep in \`extends\``)
    if (ancestors.includes(key)) throw new ExtendsError(`${key}: circular dependency detected in \`extends\``)
    const base = extend(baseKey, [...ancestors, key])
    resolved[key] = deepMerge(base, value)
    done.add(key)
    return resolved[key] as YamlHash
  }

  try {
    for (const [key, value] of Object.entries(resolved)) if (isYamlHash(value)) extend(key, [])
    return { ok: true, value: resolved }
  } catch (error) {
    if (error instanceof ExtendsError) return { ok: false, error: error.message }
    throw error
  }
}
