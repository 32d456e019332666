// A CI file (`.gitlab-ci.yml`) to a validated, normalized pipeline definition, in the original
// 11.5's order: read the YAML, merge includes, resolve `extends`, validate every entry (all their
// errors together), then the checks across jobs. Pure: the only outside access is the caller's
// reader of local includes.
import { ConfigErrors } from './entries.js'
import { resolveExtends } from './extends.js'
import { resolveIncludes, type ReadLocalFile } from './include.js'
import { GLOBAL_KEYS, validateGlobal, validateHiddenJob, validateJob, type ValidatedJob } from './job.js'
import { loadCiYaml } from './load.js'
import { normalizePipeline } from './normalize.js'
import type { CiConfigResult } from './types.js'

export interface ParseCiConfigOptions {
  /** Reads `include: local` files; without it they are errors (no project to read from). */
  readLocalFile?: ReadLocalFile
}

export async function parseCiConfig(content: string, options: ParseCiConfigOptions = {}): Promise<CiConfigResult> {
  if (content.trim() === '') return { ok: false, errors: ['Please provide content of .gitlab-ci.yml'] }
  const loaded = loadCiYaml(content)
  if (!loaded.ok) return { ok: false, errors: [loaded.error] }
  const included = await resolveIncludes(loaded.value, options.readLocalFile)
  if (!included.ok) return included
  const extended = resolveExtends(included.value)
  if (!extended.ok) return { ok: false, errors: [extended.error] }
  const root = extended.value

  const errors = new ConfigErrors()
  const globals = validateGlobal(root, errors)
  const jobEntries = Object.entries(root).filter(([key]) => !GLOBAL_KEYS.includes(key))
  if (!jobEntries.some(([name]) => !name.startsWith('.'))) errors.add('jobs', 'config', 'should contain at least one visible job')
  const jobs: ValidatedJob[] = []
  for (const [name, config] of jobEntries) {
    if (name.startsWith('.')) validateHiddenJob(name, config, errors)
    else {
      const job = validateJob(name, config, globals, errors)
      if (job !== null) jobs.push(job)
    }
  }
  if (errors.messages.length > 0) return { ok: false, errors: errors.messages }
  return normalizePipeline(globals.stages, globals.variables, jobs)
}
