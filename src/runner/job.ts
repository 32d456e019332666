// One job, from the moment the server hands it out to the final update, in the original runner's
// order: say it runs (PUT running), check the commit out, restore the cache, download the
// artifacts of its dependencies, run before_script + script, then after_script, save the cache,
// upload the artifacts, and report success or failure with its reason. All of it under the job's
// time limit (`runner_info.timeout`), streaming the trace as it goes; stopped at once when the
// server cancels the job (a 403 or a Job-Status that is not running), which then wants no final
// word. The work directory is removed at the end, whatever happened.
import { randomBytes } from 'node:crypto'
import { createReadStream } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'
import { Readable } from 'node:stream'
import { createGzip } from 'node:zlib'
import type { Logger } from 'pino'
import { extractZip, normalizePattern, saveStream, selectEntries, zipEntries, type ArchiveEntry } from './archive.js'
import { restoreCache, saveCache } from './cache.js'
import { CheckoutError, checkoutCommit } from './checkout.js'
import type { JobArtifacts, JobPayload, RunnerClient, RunnerInfo } from './client.js'
import type { JobDirs, Sandbox } from './sandbox.js'
import { runStep } from './shell.js'
import { TraceBuffer } from './trace.js'

export interface JobContext {
  client: RunnerClient
  sandbox: Sandbox
  info: RunnerInfo
  /** The runner's directory: work directories go in `builds/`, caches in `cache/`. */
  dir: string
  description: string
  /** Where to clone from instead of `repo_url` (the original's clone_url); null: `repo_url`. */
  cloneUrl: string | null
  log: Logger
  /** Aborted when the runner stops: the job ends failed (a system failure). */
  shutdown: AbortSignal
}

export type FailureReason = 'script_failure' | 'job_execution_timeout' | 'runner_system_failure' | 'missing_dependency_failure'

export type JobOutcome = { state: 'success' } | { state: 'failed'; reason: FailureReason } | { state: 'canceled' }

/** after_script's own time limit, as the original runner's. */
const AFTER_SCRIPT_TIMEOUT_MS = 5 * 60_000
const DEFAULT_TIMEOUT_SECONDS = 3600
const STANDARD_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
/** Job statuses in an answer that mean the server no longer wants the job run. */
const STOPPED = new Set(['canceled', 'canceling', 'failed'])

class JobFailure extends Error {
  constructor(message: string, readonly reason: FailureReason) {
    super(message)
  }
}

export async function runJob(job: JobPayload, ctx: JobContext): Promise<JobOutcome> {
  const log = ctx.log.child({ job: job.id })
  const startedAt = Date.now()
  log.info({ project: job.job_info.project_name, name: job.job_info.name, stage: job.job_info.stage }, 'job started')
  const canceled = new AbortController()
  const trace = new TraceBuffer({
    send: (start, bytes) => ctx.client.appendTrace(job, start, bytes),
    touch: () => ctx.client.updateJob(job, { state: 'running' }),
    onAbandoned: () => canceled.abort(),
    secrets: secretValues(job),
  })
  const root = path.join(ctx.dir, 'builds', `${job.id}-${randomBytes(4).toString('hex')}`)
  let outcome: JobOutcome
  try {
    // As newer runners: the job is ours only once the server has heard it runs.
    const accepted = await ctx.client.updateJob(job, { state: 'running' }).catch(() => null)
    if (accepted !== null && (accepted.status === 403 || (accepted.jobStatus !== null && STOPPED.has(accepted.jobStatus)))) canceled.abort()
    outcome = canceled.signal.aborted ? { state: 'canceled' } : await execute(job, ctx, trace, root, canceled)
  } catch (err) {
    trace.write(`\x1b[31;1mERROR: ${err instanceof Error ? err.message : String(err)}\x1b[0;m\n`)
    outcome = { state: 'failed', reason: 'runner_system_failure' }
  } finally {
    await fs.rm(root, { recursive: true, force: true }).catch((err: unknown) => log.warn({ err }, 'could not remove the work directory'))
  }
  if (canceled.signal.aborted) outcome = { state: 'canceled' }
  else if (ctx.shutdown.aborted) outcome = { state: 'failed', reason: 'runner_system_failure' }
  await finish(job, ctx, trace, outcome)
  log.info({ outcome: outcome.state, ...(outcome.state === 'failed' ? { reason: outcome.reason } : {}), durationMs: Date.now() - startedAt }, 'job finished')
  return outcome
}

/**
 * The values a trace must not show: of the variables the server marks masked or not public
 * (CI_JOB_TOKEN, the CI/CD variables), as sent and as the job's shell has them ($NAME expanded
 * with the job's variables: `pa$word` is `pa` in the shell).
 */
function secretValues(job: JobPayload): string[] {
  const variables = job.variables ?? []
  const values = Object.fromEntries(variables.map((variable) => [variable.key, variable.value]))
  return variables.filter((variable) => variable.public === false || variable.masked === true)
    .flatMap((variable) => [variable.value, expand(variable.value, values)])
}

/** The last lines of the trace and the final update; none for a job the server canceled. */
async function finish(job: JobPayload, ctx: JobContext, trace: TraceBuffer, outcome: JobOutcome): Promise<void> {
  if (outcome.state === 'canceled') {
    await trace.close()
    return
  }
  if (outcome.state === 'success') trace.write('\x1b[32;1mJob succeeded\x1b[0;m\n')
  else if (ctx.shutdown.aborted) trace.write('\x1b[31;1mERROR: Job failed (system failure): the runner stopped\x1b[0;m\n')
  const complete = await trace.close()
  const update = outcome.state === 'success' ? { state: 'success' as const } : { state: 'failed' as const, failure_reason: outcome.reason }
  for (let attempt = 0; attempt < 5; attempt += 1) {
    // A trace the appends could not deliver whole goes with the final update (which replaces the server's).
    const answer = await ctx.client.updateJob(job, complete ? update : { ...update, trace: trace.text() }).catch(() => null)
    if (answer !== null && (answer.status === 200 || answer.status === 403)) return
    await new Promise((resolve) => setTimeout(resolve, 500 * 2 ** attempt))
  }
  ctx.log.warn({ job: job.id }, 'the server did not take the final update')
}

async function execute(job: JobPayload, ctx: JobContext, trace: TraceBuffer, root: string, cancel: AbortController): Promise<JobOutcome> {
  const canceled = cancel.signal
  const output = (text: string) => trace.write(text)
  const timeoutSeconds = job.runner_info?.timeout ?? DEFAULT_TIMEOUT_SECONDS
  const deadline = Date.now() + timeoutSeconds * 1000
  const timedOut = new AbortController()
  const timer = setTimeout(() => timedOut.abort(), timeoutSeconds * 1000)
  const stopped = AbortSignal.any([canceled, ctx.shutdown])
  const signal = AbortSignal.any([stopped, timedOut.signal])
  const timeoutFailure = (): JobOutcome => {
    output(`\x1b[31;1mERROR: Job failed: execution took longer than ${timeoutSeconds} seconds\x1b[0;m\n`)
    return { state: 'failed', reason: 'job_execution_timeout' }
  }
  try {
    writeHeader(job, ctx, output)
    const projectPath = safeProjectPath(job)
    const dirs: JobDirs = { builds: path.join(root, 'builds'), tmp: path.join(root, 'tmp'), home: path.join(root, 'home') }
    await fs.mkdir(root, { recursive: true, mode: 0o700 })
    for (const dir of Object.values(dirs)) await fs.mkdir(dir, { mode: 0o700 })
    const projectDir = path.join(dirs.builds, projectPath)
    await fs.mkdir(projectDir, { recursive: true })
    const inside = ctx.sandbox.inside(dirs)
    const insideProjectDir = path.posix.join(inside.builds, projectPath)
    const env = await jobEnvironment(job, ctx, dirs, inside, insideProjectDir)

    let tracked: Set<string>
    try {
      tracked = await checkoutCommit({
        dir: projectDir, repoUrl: cloneUrlOf(job, ctx.cloneUrl), refspecs: job.git_info.refspecs ?? [], depth: job.git_info.depth ?? 0,
        sha: job.git_info.sha, home: dirs.home, signal, output,
      })
    } catch (err) {
      if (timedOut.signal.aborted) return timeoutFailure()
      if (stopped.aborted) return { state: 'canceled' }
      throw new JobFailure(err instanceof CheckoutError ? err.message : String(err), 'runner_system_failure')
    }

    const caches = (job.cache ?? []).filter((cache) => cache !== null && ((cache.paths?.length ?? 0) > 0 || cache.untracked === true))
    const cacheTarget = { root: path.join(ctx.dir, 'cache'), projectId: job.job_info.project_id, projectDir, output }
    for (const cache of caches) await restoreCache(cacheTarget, cache!, expand(cache!.key ?? 'default', env))
    await downloadDependencies(job, ctx, root, projectDir, output, signal)
    if (signal.aborted) return timedOut.signal.aborted ? timeoutFailure() : { state: 'canceled' }

    const step = (name: string) => job.steps.find((candidate) => candidate.name === name)
    const script = step('script')?.script ?? []
    const result = await runStep({
      sandbox: ctx.sandbox, dirs, cwd: insideProjectDir, env, commands: script, name: 'script',
      timeoutMs: Math.max(deadline - Date.now(), 1), signal: stopped, output: (chunk) => trace.write(chunk),
    })
    if (result.outcome === 'aborted') return { state: 'canceled' }
    const afterScript = step('after_script')?.script ?? []
    if (afterScript.length > 0) {
      output('Running after script...\n')
      const after = await runStep({
        sandbox: ctx.sandbox, dirs, cwd: insideProjectDir, env: { ...env, CI_JOB_STATUS: result.outcome === 'success' ? 'success' : 'failed' },
        commands: afterScript, name: 'after_script', timeoutMs: AFTER_SCRIPT_TIMEOUT_MS, signal: stopped, output: (chunk) => trace.write(chunk),
      })
      if (after.outcome === 'aborted') return { state: 'canceled' }
      if (after.outcome === 'timeout') output('\x1b[33;1mWARNING: after_script took longer than 5 minutes and was stopped\x1b[0;m\n')
    }
    const succeeded = result.outcome === 'success'
    if (succeeded) for (const cache of caches) await saveCache(cacheTarget, cache!, expand(cache!.key ?? 'default', env), tracked)
    for (const artifacts of job.artifacts ?? []) {
      if (uploads(artifacts, succeeded)) await uploadArtifacts(job, ctx, artifacts, projectDir, tracked, env, output, cancel)
    }
    if (canceled.aborted) return { state: 'canceled' }
    if (result.outcome === 'timeout') return timeoutFailure()
    if (!succeeded) {
      output(`\x1b[31;1mERROR: Job failed: exit code ${result.exitCode ?? 1}\x1b[0;m\n`)
      return { state: 'failed', reason: 'script_failure' }
    }
    return { state: 'success' }
  } catch (err) {
    if (timedOut.signal.aborted) return timeoutFailure()
    if (canceled.aborted) return { state: 'canceled' }
    if (!(err instanceof JobFailure)) throw err
    output(`\x1b[31;1mERROR: Job failed: ${err.message}\x1b[0;m\n`)
    return { state: 'failed', reason: err.reason }
  } finally {
    clearTimeout(timer)
  }
}

function writeHeader(job: JobPayload, ctx: JobContext, output: (text: string) => void): void {
  output(`Running with ${ctx.info.name} ${ctx.info.version} (${ctx.info.revision})\n  on ${ctx.description}\n`)
  output(ctx.sandbox.kind === 'bubblewrap'
    ? 'Using the shell executor in a bubblewrap sandbox...\n'
    : '\x1b[33;1mWARNING: this job runs unsandboxed: its commands see the runner\'s whole machine (INGOT_RUNNER_UNSANDBOXED=true)\x1b[0;m\n')
  const image = job.image?.name
  const services = (job.services ?? []).map((service) => service?.name).filter((name): name is string => typeof name === 'string')
  if (image !== undefined || services.length > 0) {
    const what = [image === undefined ? null : `image ${image}`, services.length === 0 ? null : `services ${services.join(', ')}`].filter((part) => part !== null).join(' and ')
    output(`\x1b[33;1mWARNING: ${what} ignored: this runner runs jobs in a shell, not in containers\x1b[0;m\n`)
  }
}

/** The job's environment: nothing of the runner's, only the job's variables and what a shell needs. */
async function jobEnvironment(job: JobPayload, ctx: JobContext, dirs: JobDirs, inside: JobDirs, projectDir: string): Promise<Record<string, string>> {
  const env: Record<string, string> = {
    PATH: ctx.sandbox.kind === 'none' ? process.env.PATH ?? STANDARD_PATH : STANDARD_PATH,
    HOME: inside.home, TMPDIR: inside.tmp, LANG: 'C.UTF-8', SHELL: '/bin/bash',
  }
  const files = path.join(dirs.tmp, '.ingot-variables')
  for (const variable of job.variables ?? []) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(variable.key)) continue
    if (variable.file === true) {
      // A file variable is the path of a file holding its value, as the original runner's.
      await fs.mkdir(files, { recursive: true, mode: 0o700 })
      await fs.writeFile(path.join(files, variable.key), variable.value, { mode: 0o600 })
      env[variable.key] = path.posix.join(inside.tmp, '.ingot-variables', variable.key)
    } else {
      env[variable.key] = variable.value
    }
  }
  Object.assign(env, {
    CI_PROJECT_DIR: projectDir, CI_BUILDS_DIR: inside.builds, CI_SERVER: 'yes', CI_SHARED_ENVIRONMENT: 'true',
    CI_RUNNER_VERSION: ctx.info.version, CI_RUNNER_REVISION: ctx.info.revision, CI_RUNNER_EXECUTABLE_ARCH: `${ctx.info.platform}/${ctx.info.architecture}`,
  })
  // Values may name other variables ($VAR, ${VAR}), which the original runner expands.
  for (const variable of job.variables ?? []) {
    if (variable.file !== true && env[variable.key] === variable.value) env[variable.key] = expand(variable.value, env)
  }
  return env
}

/** `$NAME` and `${NAME}` in `text` replaced by the variables' values (unknown ones by nothing). */
export function expand(text: string, env: Readonly<Record<string, string>>): string {
  return text.replace(/\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g, (_match, braced: string | undefined, bare: string | undefined) => env[(braced ?? bare)!] ?? '')
}

/** The project's path below the builds directory, from CI_PROJECT_PATH (plain segments only). */
function safeProjectPath(job: JobPayload): string {
  const projectPath = job.variables?.find((variable) => variable.key === 'CI_PROJECT_PATH')?.value ?? ''
  const segments = projectPath.split('/')
  if (segments.length > 0 && segments.every((segment) => /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/.test(segment))) return segments.join('/')
  return `project-${job.job_info.project_id}`
}

/** `repo_url`, or the same project under the runner's clone URL with the job token (as the original's clone_url). */
function cloneUrlOf(job: JobPayload, cloneUrl: string | null): string {
  if (cloneUrl === null) return job.git_info.repo_url
  const projectPath = job.variables?.find((variable) => variable.key === 'CI_PROJECT_PATH')?.value
  if (projectPath === undefined) return job.git_info.repo_url
  const url = new URL(cloneUrl)
  url.username = 'gitlab-ci-token'
  url.password = job.token
  url.pathname = path.posix.join(url.pathname, `${projectPath}.git`)
  return url.toString()
}

async function downloadDependencies(job: JobPayload, ctx: JobContext, root: string, projectDir: string, output: (text: string) => void, signal: AbortSignal): Promise<void> {
  for (const dependency of job.dependencies ?? []) {
    if (dependency.artifacts_file === undefined || dependency.artifacts_file === null) continue
    output(`Downloading artifacts for ${dependency.name} (${dependency.id})...\n`)
    // With this job's token: the server lets a job read the artifacts of its own pipeline.
    const stream = await ctx.client.downloadArtifacts(dependency.id, job.token, signal)
    if (stream === null) throw new JobFailure(`the artifacts of ${dependency.name} (${dependency.id}) are gone`, 'missing_dependency_failure')
    // Kept beside the build directory, never in it: the job never sees the archive.
    const file = path.join(root, `dependency-${dependency.id}.zip`)
    await saveStream(stream, file)
    const entries = await extractZip(file, projectDir)
    await fs.rm(file, { force: true })
    output(`Downloaded and extracted ${entries} entries of ${dependency.name}\n`)
  }
}

/**
 * A report's file as the original runner sends it: `gzip`, each matched file as a member of one
 * gzip stream (junit's format); `raw`, the one matched file as it is. Regular files only: a link
 * could point out of the project.
 */
function reportOf(projectDir: string, entries: readonly ArchiveEntry[], format: string): { stream: Readable } | { refused: string } {
  const files = entries.filter((entry) => entry.kind === 'file').map((entry) => path.join(projectDir, entry.name))
  if (files.length === 0) return { refused: 'no report files to upload' }
  if (format === 'raw') {
    return files.length === 1 ? { stream: createReadStream(files[0]!) } : { refused: 'a raw report must be one file' }
  }
  if (format !== 'gzip') return { refused: `reports of format ${format} are not uploaded by this runner` }
  async function* members(): AsyncGenerator<Buffer> {
    for (const file of files) for await (const chunk of createReadStream(file).pipe(createGzip())) yield chunk as Buffer
  }
  return { stream: Readable.from(members()) }
}

function uploads(artifacts: JobArtifacts, succeeded: boolean): boolean {
  const when = artifacts.when ?? 'on_success'
  return when === 'always' || (when === 'on_success') === succeeded
}

async function uploadArtifacts(
  job: JobPayload, ctx: JobContext, artifacts: JobArtifacts, projectDir: string, tracked: ReadonlySet<string>,
  env: Record<string, string>, output: (text: string) => void, cancel: AbortController,
): Promise<void> {
  const type = artifacts.artifact_type ?? 'archive'
  output(type === 'archive' ? 'Uploading artifacts...\n' : `Uploading ${type} report...\n`)
  const patterns: string[] = []
  for (const pattern of artifacts.paths ?? []) {
    const normalized = normalizePattern(expand(pattern, env))
    if (typeof normalized === 'string') patterns.push(normalized)
    else output(`\x1b[33;1mWARNING: ${normalized.refused}\x1b[0;m\n`)
  }
  const entries = await selectEntries(projectDir, { patterns, untracked: artifacts.untracked === true, tracked })
  if (entries.length === 0) {
    output(`\x1b[33;1mWARNING: ${(artifacts.paths ?? []).join(', ') || 'untracked'}: no matching files\x1b[0;m\n\x1b[31;1mERROR: No files to upload\x1b[0;m\n`)
    return
  }
  output(`${entries.filter((entry) => entry.kind !== 'directory').length} files and ${entries.filter((entry) => entry.kind === 'directory').length} directories found\n`)
  const report = type === 'archive' ? null : reportOf(projectDir, entries, artifacts.artifact_format ?? 'gzip')
  if (report !== null && 'refused' in report) {
    output(`\x1b[33;1mWARNING: ${report.refused}\x1b[0;m\n`)
    return
  }
  const archive = report?.stream ?? await zipEntries(projectDir, entries, (name, why) => output(`\x1b[33;1mWARNING: ${name}: ${why}\x1b[0;m\n`))
  const name = expand(artifacts.name ?? '', env).replace(/[/\\]/g, '_') || 'artifacts'
  const answer = await ctx.client.uploadArtifacts(job, archive, {
    filename: report === null ? `${name}.zip` : name, expireIn: artifacts.expire_in ?? null, type, format: artifacts.artifact_format ?? (report === null ? 'zip' : 'gzip'),
  })
  if (answer.status === 201) {
    output('Uploading artifacts to coordinator... ok\n')
    return
  }
  if (answer.status === 403 || (answer.jobStatus !== null && STOPPED.has(answer.jobStatus))) {
    cancel.abort()
    throw new JobFailure('the job was canceled', 'runner_system_failure')
  }
  if (answer.status === 413) throw new JobFailure('Uploading artifacts to coordinator... too large archive', 'script_failure')
  throw new JobFailure(`Uploading artifacts to coordinator... failed: the server answered ${answer.status}`, 'runner_system_failure')
}
