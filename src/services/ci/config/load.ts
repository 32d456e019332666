// Reads a CI file as the original 11.5 does (Psych's `YAML.safe_load` with aliases allowed): YAML
// 1.1, so `yes`/`no`/`on`/`off` are booleans and `<<` merges mappings; the root must be a mapping.
// A CI file is anyone's to push, so reading it is bounded: its size, how often aliases expand
// (a "billion laughs" file) and how deep it nests, each refused with an error rather than memory.
import type { ScalarTag, Tags } from 'yaml'
import { lazyRequire } from '../../../common/lazy-require.js'
import { isYamlHash, type YamlHash } from './types.js'

const yaml = lazyRequire<typeof import('yaml')>('yaml')

/** The original's later limits (Gitlab::Config::Loader::Yaml): 1 MiB and 100 levels. */
const MAX_CI_FILE_BYTES = 1024 * 1024
const MAX_DEPTH = 100
/** Values once aliases are expanded: far above any real file, far below what exhausts memory. */
const MAX_VALUES = 500_000
/** Expansions per anchor (the `yaml` package's count, weighted by the aliases inside the anchor). */
const MAX_ALIAS_EXPANSIONS = 2_000
/**
 * Open flow brackets the parser is allowed to meet: it recurses once per level and takes seconds
 * to overflow its stack on a megabyte of `[`. Counted over the text, strings included, so the bound
 * is far above what any file nests.
 */
const MAX_OPEN_BRACKETS = 1_000

export type LoadResult = { ok: true; value: YamlHash } | { ok: false; error: string }

// Psych's booleans, which differ from the YAML 1.1 specification's: any case of yes/true/on and
// no/false/off, while `y` and `n` stay strings (a job named `n` is a job).
const BOOLEAN_TAGS: ScalarTag[] = [
  { tag: 'tag:yaml.org,2002:bool', default: true, identify: (v) => v === true, test: /^(?:yes|true|on)$/i, resolve: () => true },
  { tag: 'tag:yaml.org,2002:bool', default: true, identify: (v) => v === false, test: /^(?:no|false|off)$/i, resolve: () => false },
]

/** YAML 1.1 without its booleans (replaced by Psych's) and timestamps (kept as the text written). */
function psychTags(tags: Tags): Tags {
  const replaced = new Set(['tag:yaml.org,2002:bool', 'tag:yaml.org,2002:timestamp'])
  return [...BOOLEAN_TAGS, ...tags.filter((tag) => !replaced.has(typeof tag === 'string' ? tag : tag.tag))]
}

class LoadLimitError extends Error {}

function nestsTooDeep(content: string): boolean {
  let open = 0
  for (let i = 0; i < content.length; i++) {
    const code = content.charCodeAt(i)
    if (code === 0x5b || code === 0x7b) open += 1
    else if ((code === 0x5d || code === 0x7d) && open > 0) open -= 1
    if (open > MAX_OPEN_BRACKETS) return true
  }
  return false
}

/**
 * Copies what the parser built into plain objects with string keys: aliases become copies (so a
 * later merge of one job never changes another), counted against the limits as they expand.
 */
function toPlain(value: unknown, budget: { values: number }, depth: number): unknown {
  if (depth > MAX_DEPTH) throw new LoadLimitError('The parsed YAML is too deep')
  if (--budget.values < 0) throw new LoadLimitError('The parsed YAML is too big')
  if (value instanceof Map) {
    // Object.fromEntries defines keys as own properties, `__proto__` included: no prototype is set.
    return Object.fromEntries([...value].map(([key, item]) => [String(key), toPlain(item, budget, depth + 1)]))
  }
  if (Array.isArray(value)) return value.map((item) => toPlain(item, budget, depth + 1))
  if (value instanceof Set) return [...value].map((item) => toPlain(item, budget, depth + 1))
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8')
  return value
}

/** The CI file's root mapping, or the error the lint shows. */
export function loadCiYaml(content: string): LoadResult {
  if (Buffer.byteLength(content, 'utf8') > MAX_CI_FILE_BYTES) return { ok: false, error: 'The parsed YAML is too big' }
  if (nestsTooDeep(content)) return { ok: false, error: 'The parsed YAML is too deep' }
  try {
    // Psych reads the first document of a stream and ignores the rest.
    const parsed = yaml().parseAllDocuments(content, { version: '1.1', schema: 'yaml-1.1', customTags: psychTags, uniqueKeys: false })
    const doc = Array.isArray(parsed) ? parsed[0] : undefined
    if (doc === undefined) return { ok: false, error: 'Invalid configuration format' }
    const [syntaxError] = doc.errors
    if (syntaxError !== undefined) return { ok: false, error: `(<unknown>): ${syntaxError.message.split('\n')[0]}` }
    const value = toPlain(doc.toJS({ mapAsMap: true, maxAliasCount: MAX_ALIAS_EXPANSIONS }), { values: MAX_VALUES }, 0)
    return isYamlHash(value) ? { ok: true, value } : { ok: false, error: 'Invalid configuration format' }
  } catch (error) {
    if (error instanceof LoadLimitError) return { ok: false, error: error.message }
    // The parser recurses once per nesting level: a file nested past the stack is too deep.
    if (error instanceof RangeError) return { ok: false, error: 'The parsed YAML is too deep' }
    if (error instanceof ReferenceError) {
      const tooManyAliases = /resource exhaustion/.test(error.message)
      return { ok: false, error: tooManyAliases ? 'The parsed YAML is too big' : `(<unknown>): ${error.message}` }
    }
    throw error
  }
}
