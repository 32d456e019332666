// One validator per entry of the CI file, each taking the value found at a location
// (`jobs:rspec:cache`) and returning it normalized, or null when it was wrong. Problems are
// reported in the original 11.5's words, so the lint reads as GitLab's.
import { parseDuration } from './duration.js'
import { isValidExpression } from './expressions.js'
import { isValidRegExp, parseSlashedRegExp } from './safe-regexp.js'
import { isYamlHash, type CiArtifacts, type CiCache, type CiEnvironment, type CiImage, type CiJobPolicy, type CiRetry, type CiService, type YamlHash } from './types.js'

export class ConfigErrors {
  readonly messages: string[] = []

  /**
   * An entry's check, written as the original's validator writes it: `<location> <attribute>
   * <message>` with the attribute humanized (`start_in` → `start in`) and the whole in lower case,
   * job names and the file's values included.
   */
  add(location: string, attribute: string, message: string): void {
    this.messages.push(`${location} ${attribute.replace(/_/g, ' ')} ${message}`.toLowerCase())
  }

  /** A message the original writes as it is, outside its validator. */
  addVerbatim(message: string): void {
    this.messages.push(message)
  }
}

/** Whether the file gives a value: null (`key:` alone) counts as not given, as in the original. */
export const given = (value: unknown) => value !== undefined && value !== null
export const isString = (value: unknown): value is string => typeof value === 'string'
export const isArrayOfStrings = (value: unknown): value is string[] => Array.isArray(value) && value.every(isString)

/** Rails' `blank?`: null, false, empty or only spaces, an empty list or mapping. */
export function isBlank(value: unknown): boolean {
  if (value === null || value === undefined || value === false) return true
  if (isString(value)) return value.trim() === ''
  if (Array.isArray(value)) return value.length === 0
  if (isYamlHash(value)) return Object.keys(value).length === 0
  return false
}

/** Adds "config contains unknown keys: …" when the mapping has keys beyond `allowed`. */
export function checkKeys(hash: YamlHash, allowed: readonly string[], location: string, errors: ConfigErrors): void {
  const unknown = Object.keys(hash).filter((key) => !allowed.includes(key))
  if (unknown.length > 0) errors.add(location, 'config', `contains unknown keys: ${unknown.join(', ')}`)
}

/** `script`: a string or a list of strings. */
export function commandsEntry(value: unknown, location: string, errors: ConfigErrors): string[] | null {
  if (isString(value)) return [value]
  if (isArrayOfStrings(value)) return value
  errors.add(location, 'config', 'should be a string or an array of strings')
  return null
}

/** `before_script`, `after_script`: a list of strings (11.5 takes no single string here). */
export function scriptEntry(value: unknown, location: string, errors: ConfigErrors): string[] | null {
  if (isArrayOfStrings(value)) return value
  errors.add(location, 'config', 'should be an array of strings')
  return null
}

export function stageEntry(value: unknown, location: string, errors: ConfigErrors): string | null {
  if (isString(value)) return value
  errors.add(location, 'config', 'should be a String')
  return null
}

export function stagesEntry(value: unknown, location: string, errors: ConfigErrors): string[] | null {
  if (isArrayOfStrings(value)) return value
  errors.add(location, 'config', 'should be an array of strings')
  return null
}

/** Names and values are strings or integers (booleans and floats are refused as in 11.5); values become strings. */
export function variablesEntry(value: unknown, location: string, errors: ConfigErrors): Record<string, string> | null {
  const isTextOrInteger = (item: unknown) => isString(item) || Number.isInteger(item)
  if (!isYamlHash(value) || !Object.values(value).every(isTextOrInteger)) {
    errors.add(location, 'config', 'should be a hash of key value pairs')
    return null
  }
  return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, String(item)]))
}

function imageLike(value: unknown, allowed: readonly string[], location: string, errors: ConfigErrors): CiService | null {
  if (isString(value)) return { name: value }
  if (!isYamlHash(value)) {
    errors.add(location, 'config', 'should be a hash or a string')
    return null
  }
  const before = errors.messages.length
  checkKeys(value, allowed, location, errors)
  if (!isString(value.name)) errors.add(location, 'name', 'should be a String')
  if (isBlank(value.name)) errors.add(location, 'name', "can't be blank")
  if (given(value.entrypoint) && !isArrayOfStrings(value.entrypoint)) errors.add(location, 'entrypoint', 'should be an array of strings')
  if (given(value.command) && !isArrayOfStrings(value.command)) errors.add(location, 'command', 'should be an array of strings')
  if (given(value.alias) && !isString(value.alias)) errors.add(location, 'alias', 'should be a String')
  if (errors.messages.length > before) return null
  const image: CiService = { name: value.name as string }
  if (given(value.entrypoint)) image.entrypoint = value.entrypoint as string[]
  if (given(value.command)) image.command = value.command as string[]
  if (given(value.alias)) image.alias = value.alias as string
  return image
}

/** `image`: a name, or `{name, entrypoint}`. */
export function imageEntry(value: unknown, location: string, errors: ConfigErrors): CiImage | null {
  return imageLike(value, ['name', 'entrypoint'], location, errors)
}

/** `services`: a list of names or `{name, entrypoint, command, alias}`. */
export function servicesEntry(value: unknown, location: string, errors: ConfigErrors): CiService[] | null {
  if (!Array.isArray(value)) {
    errors.add(location, 'config', 'should be a Array')
    return null
  }
  // 11.5 builds each service without a parent, so its errors are located at `service` alone.
  const services = value.map((item) => imageLike(item ?? {}, ['name', 'entrypoint', 'command', 'alias'], 'service', errors))
  return services.every((service) => service !== null) ? services : null
}

function booleanEntry(value: unknown, location: string, errors: ConfigErrors): boolean | null {
  if (typeof value === 'boolean') return value
  errors.add(location, 'config', 'should be a boolean value')
  return null
}

const CACHE_POLICIES = ['pull-push', 'push', 'pull'] as const

/** `cache`: `{key (default "default"), untracked, paths, policy (default pull-push)}`. */
export function cacheEntry(value: unknown, location: string, errors: ConfigErrors): CiCache | null {
  if (!isYamlHash(value)) {
    errors.add(location, 'config', 'should be a hash')
    return null
  }
  const before = errors.messages.length
  checkKeys(value, ['key', 'untracked', 'paths', 'policy'], location, errors)
  const policy = value.policy ?? 'pull-push'
  if (!CACHE_POLICIES.includes(policy as never)) errors.add(location, 'policy', 'should be pull-push, push, or pull')
  let key = 'default'
  if (given(value.key)) {
    if (!isString(value.key)) errors.add(`${location}:key`, 'config', 'should be a string or symbol')
    else if (decodeURIComponentSafely(value.key).includes('/')) errors.add(`${location}:key`, 'config', 'cannot contain the "/" character')
    else if (['.', '..'].includes(decodeURIComponentSafely(value.key))) errors.add(`${location}:key`, 'config', 'cannot be "." or ".."')
    else key = value.key
  }
  const untracked = given(value.untracked) ? booleanEntry(value.untracked, `${location}:untracked`, errors) : false
  const paths = given(value.paths) ? pathsEntry(value.paths, `${location}:paths`, errors) : []
  if (errors.messages.length > before) return null
  return { key, paths: paths!, untracked: untracked!, policy: policy as CiCache['policy'] }
}

/** Ruby's CGI.unescape: a key is checked for `/` as it will be used, after %-decoding. */
function decodeURIComponentSafely(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '))
  } catch {
    return text
  }
}

function pathsEntry(value: unknown, location: string, errors: ConfigErrors): string[] | null {
  if (isArrayOfStrings(value)) return value
  errors.add(location, 'config', 'should be an array of strings')
  return null
}

const REPORT_KINDS = ['junit', 'codequality', 'sast', 'dependency_scanning', 'container_scanning', 'dast', 'performance', 'license_management']
const ARTIFACTS_WHEN = ['on_success', 'on_failure', 'always'] as const

/** `artifacts`: `{name, untracked, paths, when (default on_success), expire_in, reports}`. */
export function artifactsEntry(value: unknown, location: string, errors: ConfigErrors): CiArtifacts | null {
  if (!isYamlHash(value)) {
    errors.add(location, 'config', 'should be a hash')
    return null
  }
  const before = errors.messages.length
  checkKeys(value, ['name', 'untracked', 'paths', 'reports', 'when', 'expire_in'], location, errors)
  const has = (key: string) => given(value[key])
  if (has('name') && !isString(value.name)) errors.add(location, 'name', 'should be a String')
  if (has('untracked') && typeof value.untracked !== 'boolean') errors.add(location, 'untracked', 'should be a boolean value')
  if (has('paths') && !isArrayOfStrings(value.paths)) errors.add(location, 'paths', 'should be an array of strings')
  if (has('when') && !ARTIFACTS_WHEN.includes(value.when as never)) errors.add(location, 'when', 'should be on_success, on_failure or always')
  if (has('expire_in') && !(isString(value.expire_in) && parseDuration(value.expire_in) !== null)) errors.add(location, 'expire_in', 'should be a duration')
  const reports: Record<string, string[]> = {}
  if (has('reports')) {
    const reportsLocation = `${location}:reports`
    if (!isYamlHash(value.reports)) errors.add(reportsLocation, 'config', 'should be a hash')
    else {
      checkKeys(value.reports, REPORT_KINDS, reportsLocation, errors)
      for (const [kind, paths] of Object.entries(value.reports)) {
        if (isString(paths)) reports[kind] = [paths]
        else if (isArrayOfStrings(paths)) reports[kind] = paths
        else errors.add(reportsLocation, kind, 'should be an array of strings or a string')
      }
    }
  }
  if (errors.messages.length > before) return null
  return {
    name: has('name') ? value.name as string : null,
    paths: has('paths') ? value.paths as string[] : [],
    untracked: value.untracked === true,
    when: has('when') ? value.when as CiArtifacts['when'] : 'on_success',
    expireIn: has('expire_in') ? value.expire_in as string : null,
    reports,
  }
}

/** The original's environment_name_regex: what a CI file's and the API's environment names may hold. */
export const ENVIRONMENT_NAME = /^[a-zA-Z0-9_\\/${}. -]+$/
export const ENVIRONMENT_NAME_MESSAGE = "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', and spaces"

/** `environment`: a name, or `{name, url, action (start|stop, default start), on_stop}`. */
export function environmentEntry(value: unknown, location: string, errors: ConfigErrors): CiEnvironment | null {
  if (!isString(value) && !isYamlHash(value)) {
    errors.add(location, 'config', 'should be a hash or a string')
    return null
  }
  const before = errors.messages.length
  const hash: YamlHash = isString(value) ? { name: value } : value
  if (isYamlHash(value)) checkKeys(value, ['name', 'url', 'action', 'on_stop'], location, errors)
  if (isBlank(hash.name)) errors.add(location, 'name', "can't be blank")
  if (!isString(hash.name) || !ENVIRONMENT_NAME.test(hash.name)) errors.add(location, 'name', ENVIRONMENT_NAME_MESSAGE)
  const has = (key: string) => given(hash[key])
  if (has('url') && !isString(hash.url)) errors.add(location, 'url', 'must be a valid URL')
  else if (has('url') && (hash.url as string).length > 255) errors.add(location, 'url', 'is too long (maximum is 255 characters)')
  if (has('action') && hash.action !== 'start' && hash.action !== 'stop') errors.add(location, 'action', 'should be start or stop')
  if (has('on_stop') && !isString(hash.on_stop)) errors.add(location, 'on_stop', 'should be a String')
  if (errors.messages.length > before) return null
  return {
    name: hash.name as string,
    url: has('url') ? hash.url as string : null,
    action: has('action') ? hash.action as CiEnvironment['action'] : 'start',
    onStop: has('on_stop') ? hash.on_stop as string : null,
  }
}

/** `/regex/` as the original's validators take it: slashes around a pattern that compiles. */
export function isSlashedRegExp(value: unknown): value is string {
  if (!isString(value)) return false
  const parsed = parseSlashedRegExp(value)
  return parsed !== null && isValidRegExp(parsed.source, parsed.flags)
}

/** `coverage: /…/` → the pattern between the slashes. */
export function coverageEntry(value: unknown, location: string, errors: ConfigErrors): string | null {
  if (isSlashedRegExp(value)) return value.slice(1, value.lastIndexOf('/'))
  errors.add(location, 'config', 'must be a regular expression')
  return null
}

/** The failure reasons 11.5 records, which `retry: when` may name, and `always`. */
export const RETRY_WHEN = ['always', 'unknown_failure', 'script_failure', 'api_failure', 'stuck_or_timeout_failure',
  'runner_system_failure', 'missing_dependency_failure', 'runner_unsupported']

/** `retry`: 0 to 2, or `{max, when}`. */
export function retryEntry(value: unknown, location: string, errors: ConfigErrors): CiRetry | null {
  const before = errors.messages.length
  const checkMax = (max: number, attribute: string) => {
    if (max < 0) errors.add(location, attribute, 'must be greater than or equal to 0')
    if (max > 2) errors.add(location, attribute, 'must be less than or equal to 2')
  }
  if (typeof value === 'number' && Number.isInteger(value)) {
    checkMax(value, 'config')
    return errors.messages.length > before ? null : { max: value, when: ['always'] }
  }
  if (!isYamlHash(value)) {
    errors.addVerbatim(`${location} config has to be either an integer or a hash`)
    return null
  }
  checkKeys(value, ['max', 'when'], location, errors)
  const max = value.max ?? 0
  if (typeof max !== 'number') errors.add(location, 'max', 'is not a number')
  else if (!Number.isInteger(max)) errors.add(location, 'max', 'must be an integer')
  else checkMax(max, 'max')
  let when = ['always']
  if (given(value.when)) {
    if (isString(value.when)) {
      if (!RETRY_WHEN.includes(value.when)) errors.add(location, 'when', 'is not included in the list')
      when = [value.when]
    } else if (isArrayOfStrings(value.when)) {
      const unknown = value.when.filter((reason) => !RETRY_WHEN.includes(reason))
      if (unknown.length > 0) errors.add(location, 'when', `contains unknown values: ${unknown.join(', ')}`)
      when = value.when
    } else {
      errors.add(location, 'when', 'should be an array of strings or a string')
    }
  }
  return errors.messages.length > before ? null : { max: max as number, when }
}

function isArrayOfStringsOrRegexps(value: unknown): value is string[] {
  return isArrayOfStrings(value) && value.every((item) => !/^\/.*\/[a-zA-Z]*$/s.test(item) || isSlashedRegExp(item))
}

/** `only`/`except`: a list of refs, or `{refs, variables, changes, kubernetes}`. */
export function policyEntry(value: unknown, location: string, errors: ConfigErrors): CiJobPolicy | null {
  const none: CiJobPolicy = { refs: null, variables: null, changes: null, kubernetes: null }
  if (Array.isArray(value)) {
    if (isArrayOfStringsOrRegexps(value)) return { ...none, refs: value }
    errors.add(location, 'config', 'should be an array of strings or regexps')
    return null
  }
  if (!isYamlHash(value)) {
    errors.addVerbatim(`${location} has to be either an array of conditions or a hash`)
    return null
  }
  const before = errors.messages.length
  if (isBlank(value)) errors.add(location, 'config', "can't be blank")
  checkKeys(value, ['refs', 'kubernetes', 'variables', 'changes'], location, errors)
  const has = (key: string) => given(value[key])
  if (isArrayOfStrings(value.variables) && !value.variables.every(isValidExpression)) errors.add(location, 'variables', 'Invalid expression syntax')
  if (has('refs') && !isArrayOfStringsOrRegexps(value.refs)) errors.add(location, 'refs', 'should be an array of strings or regexps')
  if (has('kubernetes') && value.kubernetes !== 'active') errors.add(location, 'kubernetes', `unknown value: ${String(value.kubernetes)}`)
  if (has('variables') && !isArrayOfStrings(value.variables)) errors.add(location, 'variables', 'should be an array of strings')
  if (has('changes') && !isArrayOfStrings(value.changes)) errors.add(location, 'changes', 'should be an array of strings')
  if (errors.messages.length > before) return null
  return {
    refs: has('refs') ? value.refs as string[] : null,
    variables: has('variables') ? value.variables as string[] : null,
    changes: has('changes') ? value.changes as string[] : null,
    kubernetes: has('kubernetes') ? 'active' : null,
  }
}

/** A duration no longer than `limitSeconds`, with both of the original's messages when it is not one. */
export function durationWithin(value: unknown, limitSeconds: number, location: string, attribute: string, errors: ConfigErrors): number | null {
  const seconds = isString(value) ? parseDuration(value) : null
  if (seconds === null) errors.add(location, attribute, 'should be a duration')
  if (seconds === null || seconds > limitSeconds) {
    errors.add(location, attribute, 'should not exceed the limit')
    return null
  }
  return seconds
}
