// Whether a job belongs in a pipeline, from its `only` and `except` as the original 11.5 decides:
// every part of `only` that is given must hold, and no part of `except` that is given may.
import { evaluateExpression } from './expressions.js'
import { matchesGlob } from './glob.js'
import { parseSlashedRegExp, safeRegExpTest } from './safe-regexp.js'
import type { CiJob, CiJobPolicy } from './types.js'

export type PipelineSource = 'push' | 'web' | 'trigger' | 'schedule' | 'api' | 'external' | 'pipeline' | 'merge_request'

export interface PipelineContext {
  /** The branch or tag name (not `refs/heads/…`). */
  ref: string
  tag: boolean
  source: PipelineSource
  /** The variables the job would have: predefined, project, trigger, the file's. */
  variables: Readonly<Record<string, string>>
  /**
   * Paths the push changed, for a push to an existing branch; undefined otherwise, and then every
   * `changes` holds (the original cannot tell what a new branch, a tag or a web pipeline changed).
   */
  changedPaths?: readonly string[]
  /** `full/path` of the project, for `pattern@full/path` refs; without it such refs never match. */
  projectPath?: string
  /** Whether the project has an active Kubernetes integration (`kubernetes: active`); Ingot has none. */
  kubernetesActive?: boolean
}

/** A source's name in refs, singular or plural (`pushes`, `triggers`, `merge_requests`). */
function namesSource(pattern: string, source: PipelineSource): boolean {
  return pattern === source || pattern === (source.endsWith('h') ? `${source}es` : `${source}s`)
}

function refMatches(entry: string, context: PipelineContext): boolean {
  // Split at the first `@` even in a `/regex/`, as the original does (its documentation has `\x40`
  // match an `@` in a ref), so `/^release/@group/app` is a pattern and a project.
  const at = entry.indexOf('@')
  const pattern = at < 0 ? entry : entry.slice(0, at)
  if (at >= 0 && entry.slice(at + 1) !== context.projectPath) return false
  if (pattern === 'tags') return context.tag
  // A merge request's pipeline is neither a branch's nor a tag's.
  if (pattern === 'branches') return !context.tag && context.source !== 'merge_request'
  if (namesSource(pattern, context.source)) return true
  const regexp = parseSlashedRegExp(pattern)
  if (regexp !== null) return safeRegExpTest(regexp.source, regexp.flags, context.ref)
  return pattern === context.ref
}

/** The conditions the policy gives, each as whether it holds. */
function conditions(policy: CiJobPolicy, context: PipelineContext): boolean[] {
  const held: boolean[] = []
  if (policy.refs !== null) held.push(policy.refs.some((entry) => refMatches(entry, context)))
  if (policy.kubernetes !== null) held.push(context.kubernetesActive === true)
  if (policy.variables !== null) held.push(policy.variables.some((statement) => evaluateExpression(statement, context.variables)))
  if (policy.changes !== null) {
    const { changedPaths } = context
    held.push(changedPaths === undefined || changedPaths.some((path) => policy.changes!.some((glob) => matchesGlob(glob, path))))
  }
  return held
}

export function jobIncluded(job: Pick<CiJob, 'only' | 'except'>, context: PipelineContext): boolean {
  return conditions(job.only, context).every(Boolean) && !(job.except !== null && conditions(job.except, context).some(Boolean))
}
