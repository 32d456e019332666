// The global entries and each job's, validated as the original 11.5's entry tree does: the
// entry's own checks first, then its children in the order GitLab declares them. A job takes the
// global before_script, after_script, image, services and cache when it has none of its own.
import {
  artifactsEntry, cacheEntry, checkKeys, given, commandsEntry, ConfigErrors, coverageEntry, durationWithin, environmentEntry,
  imageEntry, isArrayOfStrings, isBlank, isString, policyEntry, retryEntry, scriptEntry, servicesEntry, stageEntry,
  stagesEntry, variablesEntry,
} from './entries.js'
import { isYamlHash, type CiCache, type CiImage, type CiJob, type CiJobPolicy, type CiService, type CiWhen, type YamlHash } from './types.js'

export const GLOBAL_KEYS = ['before_script', 'image', 'services', 'after_script', 'variables', 'stages', 'types', 'cache']

const JOB_KEYS = ['tags', 'script', 'only', 'except', 'type', 'image', 'services', 'allow_failure', 'stage', 'when',
  'start_in', 'artifacts', 'cache', 'dependencies', 'before_script', 'after_script', 'variables', 'environment',
  'coverage', 'retry', 'parallel', 'extends']

const WHEN_VALUES: readonly CiWhen[] = ['on_success', 'on_failure', 'always', 'manual', 'delayed']
const ONE_DAY_SECONDS = 86_400
export const DEFAULT_STAGES = ['build', 'test', 'deploy']

export interface GlobalEntries {
  beforeScript: string[] | null
  afterScript: string[] | null
  image: CiImage | null
  services: CiService[] | null
  variables: Record<string, string>
  stages: string[]
  cache: CiCache | null
}

/** A job as written, validated, before parallel jobs expand (`parallel` is the count) and stages are numbered. */
export type ValidatedJob = Omit<CiJob, 'stageIndex' | 'parallel'> & { parallel: number | null }

/** A value, validated by `entry` when the file gives one. */
function optional<T>(value: unknown, entry: (value: unknown) => T | null): T | null {
  return given(value) ? entry(value) : null
}

export function validateGlobal(root: YamlHash, errors: ConfigErrors): GlobalEntries {
  const stagesValue = given(root.stages) ? root.stages : root.types
  return {
    beforeScript: optional(root.before_script, (v) => scriptEntry(v, 'before_script', errors)),
    image: optional(root.image, (v) => imageEntry(v, 'image', errors)),
    services: optional(root.services, (v) => servicesEntry(v, 'services', errors)),
    afterScript: optional(root.after_script, (v) => scriptEntry(v, 'after_script', errors)),
    variables: optional(root.variables, (v) => variablesEntry(v, 'variables', errors)) ?? {},
    stages: optional(stagesValue, (v) => stagesEntry(v, given(root.stages) ? 'stages' : 'types', errors)) ?? DEFAULT_STAGES,
    cache: optional(root.cache, (v) => cacheEntry(v, 'cache', errors)),
  }
}

const DEFAULT_ONLY: CiJobPolicy = { refs: ['branches', 'tags'], variables: null, changes: null, kubernetes: null }

/** The job named `name`, or null when it has errors (added to `errors`). */
export function validateJob(name: string, config: unknown, globals: GlobalEntries, errors: ConfigErrors): ValidatedJob | null {
  const location = `jobs:${name}`
  const before = errors.messages.length
  if (!isYamlHash(config)) {
    if (!given(config)) {
      errors.add(location, 'config', "can't be blank")
      errors.add(location, 'script', "can't be blank")
    } else {
      errors.add(location, 'config', 'should be a hash')
    }
    return null
  }
  checkKeys(config, JOB_KEYS, location, errors)
  if (isBlank(config)) errors.add(location, 'config', "can't be blank")
  if (isBlank(config.script)) errors.add(location, 'script', "can't be blank")
  if (given(config.tags) && !isArrayOfStrings(config.tags)) errors.add(location, 'tags', 'should be an array of strings')
  if (given(config.allow_failure) && typeof config.allow_failure !== 'boolean') errors.add(location, 'allow_failure', 'should be a boolean value')
  const parallel = given(config.parallel) ? checkParallel(config.parallel, location, errors) : null
  const when = config.when ?? 'on_success'
  if (!WHEN_VALUES.includes(when as CiWhen)) errors.add(location, 'when', 'should be on_success, on_failure, always, manual or delayed')
  if (given(config.dependencies) && !isArrayOfStrings(config.dependencies)) errors.add(location, 'dependencies', 'should be an array of strings')
  if (given(config.extends) && !isString(config.extends)) errors.add(location, 'extends', 'should be a String')
  let startIn: ValidatedJob['startIn'] = null
  if (when === 'delayed') {
    const seconds = durationWithin(config.start_in, ONE_DAY_SECONDS, location, 'start_in', errors)
    if (seconds !== null) startIn = { text: config.start_in as string, seconds }
  } else if (given(config.start_in)) {
    errors.add(location, 'start_in', 'must be blank')
  }

  const at = (key: string) => `${location}:${key}`
  const beforeScript = optional(config.before_script, (v) => scriptEntry(v, at('before_script'), errors))
  const script = optional(config.script, (v) => commandsEntry(v, at('script'), errors))
  const stage = optional(config.stage, (v) => stageEntry(v, at('stage'), errors))
  const deprecatedStage = optional(config.type, (v) => stageEntry(v, at('type'), errors))
  const afterScript = optional(config.after_script, (v) => scriptEntry(v, at('after_script'), errors))
  const cache = optional(config.cache, (v) => cacheEntry(v, at('cache'), errors))
  const image = optional(config.image, (v) => imageEntry(v, at('image'), errors))
  const services = optional(config.services, (v) => servicesEntry(v, at('services'), errors))
  const only = optional(config.only, (v) => policyEntry(v, at('only'), errors))
  const except = optional(config.except, (v) => policyEntry(v, at('except'), errors))
  const variables = optional(config.variables, (v) => variablesEntry(v, at('variables'), errors))
  const artifacts = optional(config.artifacts, (v) => artifactsEntry(v, at('artifacts'), errors))
  const environment = optional(config.environment, (v) => environmentEntry(v, at('environment'), errors))
  const coverage = optional(config.coverage, (v) => coverageEntry(v, at('coverage'), errors))
  const retry = optional(config.retry, (v) => retryEntry(v, at('retry'), errors))
  if (errors.messages.length > before) return null

  return {
    name,
    stage: stage ?? deprecatedStage ?? 'test',
    beforeScript: beforeScript ?? globals.beforeScript ?? [],
    script: script!,
    afterScript: afterScript ?? globals.afterScript ?? [],
    when: when as CiWhen,
    startIn,
    // Unset, a manual job may fail without failing the pipeline: it is an action someone may never take.
    allowFailure: given(config.allow_failure) ? config.allow_failure as boolean : when === 'manual',
    tags: given(config.tags) ? config.tags as string[] : [],
    dependencies: given(config.dependencies) ? config.dependencies as string[] : null,
    only: only ?? DEFAULT_ONLY,
    except,
    variables: { ...globals.variables, ...variables },
    image: image ?? globals.image,
    services: services ?? globals.services ?? [],
    cache: cache ?? globals.cache,
    artifacts,
    environment,
    coverage,
    retry,
    parallel,
  }
}

/** Rails' numericality check with 2..50, integers only (a numeric string counts, as in Rails). */
function checkParallel(value: unknown, location: string, errors: ConfigErrors): number | null {
  const number = typeof value === 'number' ? value : isString(value) && value.trim() !== '' ? Number(value) : Number.NaN
  if (Number.isNaN(number)) errors.add(location, 'parallel', 'is not a number')
  else if (!Number.isInteger(number)) errors.add(location, 'parallel', 'must be an integer')
  else if (number < 2) errors.add(location, 'parallel', 'must be greater than or equal to 2')
  else if (number > 50) errors.add(location, 'parallel', 'must be less than or equal to 50')
  else return number
  return null
}

/** A hidden job (`.name`) is only a template: anything but nothing. */
export function validateHiddenJob(name: string, config: unknown, errors: ConfigErrors): void {
  if (isBlank(config)) errors.add(`jobs:${name}`, 'config', "can't be blank")
}
