// Query strings and form bodies as the original's Rack reads them (Rack::Utils.parse_nested_query):
// `a=1` a string, `a[]=1&a[]=2` an array, `h[k]=v` a hash, and `a[][k]=…` an array of hashes in
// which a new hash starts when the last one has `k` already. So the ruby gem's commit with two
// actions, `actions[][action]=create&actions[][file_path]=a&actions[][action]=create&…`, is two
// actions. `a[0]=x` is the hash {"0": "x"}, as in Rack. A repeated plain name keeps its last value.
// Keys that would reach Object.prototype (`__proto__`, `constructor`, …) are left out.

type Params = Record<string, unknown>

/** Rack's param_depth_limit: nesting deeper than this is refused rather than recursed into. */
const DEPTH_LIMIT = 100

/**
 * Rack's key_space_limit, here for each name: every level of a name is a pass over it, so a name
 * of a whole body's length would cost that many times the body.
 */
const NAME_LIMIT = 65_536

/** A parameter whose parts disagree on its shape (`a=1&a[]=2`), or nested or named past the limits. */
export class NestedParamsError extends Error {
  constructor(readonly param: string) {
    super(`${param} is invalid`)
  }
}

/** `application/x-www-form-urlencoded` text (a query string or a form body) as parameters. */
export function parseNestedParams(text: string): Params {
  const params: Params = {}
  for (const pair of text.split('&')) {
    if (pair === '') continue
    const eq = pair.indexOf('=')
    const name = decode(eq === -1 ? pair : pair.slice(0, eq))
    if (name.length > NAME_LIMIT) throw new NestedParamsError(name.slice(0, name.search(/\[|$/)).slice(0, 100))
    normalize(params, name, eq === -1 ? '' : decode(pair.slice(eq + 1)), DEPTH_LIMIT, name)
  }
  return params
}

/** `+` is a space; a malformed escape is kept as sent rather than failing the whole request. */
function decode(text: string): string {
  if (!text.includes('%') && !text.includes('+')) return text
  const spaced = text.replaceAll('+', ' ')
  try {
    return decodeURIComponent(spaced)
  } catch {
    return spaced
  }
}

const isHash = (value: unknown): value is Params => typeof value === 'object' && value !== null && !Array.isArray(value)

/** The array at params[key], made if absent; a value of another shape there is an error. */
function arrayAt(params: Params, key: string, param: string): unknown[] {
  const existing = params[key] ??= []
  if (!Array.isArray(existing)) throw new NestedParamsError(param)
  return existing
}

/** Whether `hash` has the (possibly nested, `[k][j]`) key already, as Rack's params_hash_has_key?. */
function hasKey(hash: Params, key: string): boolean {
  if (key.includes('[]')) return false
  let at: unknown = hash
  for (const part of key.split(/[[\]]+/)) {
    if (part === '') continue
    if (!isHash(at) || !Object.hasOwn(at, part)) return false
    at = at[part]
  }
  return true
}

/** Rack's normalize_params: puts `value` into `params` at `name` (`k`, `k[]`, `k[j]`, `k[][j]`, …). */
function normalize(params: Params, name: string, value: unknown, depth: number, param: string): unknown {
  if (depth <= 0) throw new NestedParamsError(param)
  // A plain name (`per_page`), as most are: the same result as the general case below, without its regular expression.
  if (name !== '' && !name.includes('[') && !name.includes(']')) {
    if (!(name in Object.prototype)) params[name] = value
    return params
  }
  const head = /^[[\]]*([^[\]]+)\]*/.exec(name)
  if (head === null) return name === '[]' ? [value] : undefined
  const key = head[1]!
  if (key in Object.prototype) return params
  const after = name.slice(head[0].length)
  if (after === '') {
    params[key] = value
  } else if (after === '[') {
    params[name] = value
  } else if (after === '[]') {
    arrayAt(params, key, param).push(value)
  } else if (after.startsWith('[]')) {
    const child = /^\[\]\[([^[\]]+)\]$/.exec(after)?.[1] ?? after.slice(2)
    const array = arrayAt(params, key, param)
    const last = array[array.length - 1]
    if (isHash(last) && !hasKey(last, child)) normalize(last, child, value, depth - 1, param)
    else array.push(normalize({}, child, value, depth - 1, param))
  } else {
    const hash = params[key] ??= {}
    if (!isHash(hash)) throw new NestedParamsError(param)
    params[key] = normalize(hash, after, value, depth - 1, param)
  }
  return params
}
