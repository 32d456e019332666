// From validated jobs to the pipeline definition: parallel jobs become their instances
// (`rspec 1/3` …, dependencies on `rspec` naming them all, as 11.5's Normalizer does), stages are
// numbered, and the checks that need every job are made with the original's messages: stages
// declared, dependencies on jobs of earlier stages, `on_stop` naming a job that stops the same
// environment.
import type { ValidatedJob } from './job.js'
import type { CiJob, CiPipelineDefinition } from './types.js'

function expandParallel(jobs: readonly ValidatedJob[]): Omit<CiJob, 'stageIndex'>[] {
  const instances = new Map<string, string[]>()
  for (const job of jobs) {
    if (job.parallel !== null) instances.set(job.name, Array.from({ length: job.parallel }, (_, i) => `${job.name} ${i + 1}/${job.parallel}`))
  }
  return jobs.flatMap(({ parallel: total, ...job }): Omit<CiJob, 'stageIndex'>[] => {
    const dependencies = job.dependencies?.flatMap((name) => instances.get(name) ?? [name]) ?? null
    if (total === null) return [{ ...job, dependencies, parallel: null }]
    return instances.get(job.name)!.map((name, i) => ({ ...job, name, dependencies, parallel: { index: i + 1, total } }))
  })
}

function checkJob(job: CiJob, jobs: ReadonlyMap<string, CiJob>, stages: readonly string[]): string | null {
  const prefix = `${job.name} job:`
  if (job.stageIndex < 0) return `${prefix} stage parameter should be ${stages.join(', ')}`
  for (const dependency of job.dependencies ?? []) {
    const other = jobs.get(dependency)
    if (other === undefined) return `${prefix} undefined dependency: ${dependency}`
    if (other.stageIndex >= job.stageIndex) return `${prefix} dependency ${dependency} is not defined in prior stages`
  }
  const onStop = job.environment?.onStop
  if (onStop !== undefined && onStop !== null) {
    const stopper = jobs.get(onStop)
    if (stopper === undefined) return `${prefix} on_stop job ${onStop} is not defined`
    if (stopper.environment === null) return `${prefix} on_stop job ${onStop} does not have environment defined`
    if (stopper.environment.name !== job.environment!.name) return `${prefix} on_stop job ${onStop} have different environment name`
    if (stopper.environment.action !== 'stop') return `${prefix} on_stop job ${onStop} needs to have action stop defined`
  }
  return null
}

export function normalizePipeline(
  stages: string[], variables: Record<string, string>, validated: readonly ValidatedJob[],
): { ok: true; config: CiPipelineDefinition } | { ok: false; errors: string[] } {
  const jobs = expandParallel(validated).map((job) => ({ ...job, stageIndex: stages.indexOf(job.stage) }))
  const byName = new Map(jobs.map((job) => [job.name, job]))
  const errors = jobs.map((job) => checkJob(job, byName, stages)).filter((error) => error !== null)
  return errors.length > 0 ? { ok: false, errors } : { ok: true, config: { stages, variables, jobs } }
}
