import { isYamlHash, type YamlHash } from './types.js'

/** ActiveSupport's Hash#deep_merge: mappings merge key by key, anything else from `override` wins. */
export function deepMerge(base: YamlHash, override: YamlHash): YamlHash {
  const merged: YamlHash = { ...base }
  for (const [key, value] of Object.entries(override)) {
    const under = merged[key]
    merged[key] = isYamlHash(under) && isYamlHash(value) ? deepMerge(under, value) : value
  }
  return merged
}
