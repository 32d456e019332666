// A project's CI at the original's URLs: `/pipelines` (newest first, with their status, ref,
// commit and stages as status badges; `?scope=running|branches|tags` as the API's scopes),
// `/pipelines/:id` (its stages and jobs), and `/-/jobs/:id` (a job and its log,
// which follows a running job: the page's script polls `/-/jobs/:id/trace.json?offset=N` for
// what was added, and without scripts the page reloads itself; its artifacts below
// `/-/jobs/:id/artifacts/`, job-artifacts.ts). Forms: POST
// `/pipelines/:id/retry|cancel` and `/-/jobs/:id/retry|cancel`, for those who may run CI for the
// pipeline's ref, through the API's CI services. Reading follows the API: Reporters, or anyone who
// reads the project when its jobs are public. Also `/environments` and their deployments.
import type { FastifyReply } from 'fastify'
import type { Readable } from 'node:stream'
import type { CiBuildRow, CiPipelineRow } from '../../db/schema.js'
import { currentJobsOfPipelines, findJob } from '../../finders/jobs-finder.js'
import { findEnvironmentDeploymentPage, latestDeploymentsOf } from '../../finders/deployments-finder.js'
import { findPipeline, findPipelinePage } from '../../finders/pipelines-finder.js'
import { canOnProject } from '../../policies/project-policy.js'
import { canRunCiFor } from '../../services/ci/ref-access.js'
import { ENDED_STATUSES, openTrace } from '../../services/ci/trace.js'
import { cancelJob, cancelPipeline, retryJob, retryPipeline } from '../../services/ci/transitions.js'
import { renderTerminal } from '../ansi.js'
import { SafeHtml, csrfField, html, page } from '../html.js'
import { redirect, sendNotFound, sendPage, tokenOf } from '../visit.js'
import { commitUrl } from './commit.js'
import { artifactsUrl, jobArchive, jobArtifactsPage } from './job-artifacts.js'
import { projectChrome, projectUrl, type ProjectPage, type ProjectPageRequest } from './context.js'
import { pageLinks, timeOf, userLink } from './issuables.js'
import { usersById } from '../../finders/rows.js'
import { findEnvironment, findEnvironmentPage } from '../../finders/environments-finder.js'
import { pageNumber } from '../listings.js'
import { BRANCH_PREFIX, TAG_PREFIX, shortRefName } from '../../git/ref-names.js'
import { compositeStatus } from '../../services/ci/status.js'

const PER_PAGE = 20
/** The most of a log a page shows at once: the end of a longer one, with a link to the whole. */
const LOG_TAIL_BYTES = 1024 * 1024

function statusBadge(status: string): SafeHtml {
  return html`<span class="badge status-${status}">${status}</span>`
}

function duration(startedAt: number | null, finishedAt: number | null): string {
  if (startedAt === null) return ''
  const seconds = Math.max(0, Math.round(((finishedAt ?? Date.now()) - startedAt) / 1000))
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`
}

function pipelineUrl(request: ProjectPageRequest, id: number): string {
  return `${projectUrl(request.loaded)}/pipelines/${id}`
}

function jobUrl(request: ProjectPageRequest, id: number): string {
  return `${projectUrl(request.loaded)}/-/jobs/${id}`
}

/** The jobs of one pipeline (its current ones, not those replaced by a retry), by stage in order. */
async function stagesOf(request: ProjectPageRequest, pipeline: CiPipelineRow): Promise<{ name: string; jobs: CiBuildRow[] }[]> {
  const stages = byStage((await currentJobsOfPipelines(request.req.ingot.db, [pipeline.id])).get(pipeline.id) ?? [])
  for (const stage of stages) stage.jobs.sort((a, b) => a.name.localeCompare(b.name))
  return stages
}

/** Jobs in stage order, grouped by their stage. */
function byStage(jobs: readonly CiBuildRow[]): { name: string; jobs: CiBuildRow[] }[] {
  const stages: { name: string; jobs: CiBuildRow[] }[] = []
  for (const job of jobs) {
    const last = stages[stages.length - 1]
    if (last !== undefined && last.name === job.stage) last.jobs.push(job)
    else stages.push({ name: job.stage, jobs: [job] })
  }
  return stages
}

async function mayRunCi(request: ProjectPageRequest, pipeline: CiPipelineRow): Promise<boolean> {
  const { req, visit, loaded } = request
  return visit.session !== null && req.actor !== null && canOnProject(req.actor, loaded, 'update_build')
    && await canRunCiFor(req.ingot.db, req.actor, loaded, pipeline.ref, pipeline.tag === 1)
}

function actionForm(request: ProjectPageRequest, action: string, label: string): SafeHtml {
  return html`<form method="post" action="${action}">${csrfField(tokenOf(request.visit))}<button type="submit">${label}</button></form>`
}

/** The list's tabs: every pipeline, the running ones, the latest of each branch or tag (the API's scopes). */
const SCOPES = [
  { scope: null, label: 'All' }, { scope: 'running', label: 'Running' }, { scope: 'branches', label: 'Branches' }, { scope: 'tags', label: 'Tags' },
] as const

type ListScope = 'running' | 'branches' | 'tags'


/** A pipeline's stages as badges, each with the status its jobs make together (as the pipeline's own is made). */
function stageBadges(jobs: readonly CiBuildRow[]): SafeHtml {
  return html`<ul class="stage-badges">${byStage(jobs).map((stage) => {
    const status = compositeStatus(stage.jobs) ?? 'created'
    return html`<li><span class="badge status-${status}">${stage.name}: ${status}</span></li>`
  })}</ul>`
}

async function listPage(request: ProjectPageRequest): Promise<FastifyReply> {
  const { req, reply, visit, loaded } = request
  const number = pageNumber(req.query)
  const asked = (req.query as Record<string, unknown>).scope
  const scope = SCOPES.find((s) => s.scope !== null && s.scope === asked)?.scope ?? null
  const scopeRefs = scope === 'branches' || scope === 'tags'
    ? (await req.ingot.repositories.open(loaded.project.id).refNames(scope === 'tags' ? TAG_PREFIX : BRANCH_PREFIX)).map(shortRefName)
    : undefined
  const found = await findPipelinePage(req.ingot.db, loaded.project.id, {
    ...(scope === null ? {} : { scope: scope as ListScope }), ...(scopeRefs === undefined ? {} : { scopeRefs }), orderBy: 'id', sort: 'desc',
  }, { page: number, per_page: PER_PAGE })
  const [users, jobs] = await Promise.all([
    usersById(req.ingot.db, found.items.flatMap((p) => (p.user_id === null ? [] : [p.user_id]))),
    currentJobsOfPipelines(req.ingot.db, found.items.map((p) => p.id)),
  ])
  const base = `${projectUrl(loaded)}/pipelines`
  const scopeUrl = (s: ListScope | null) => (s === null ? base : `${base}?scope=${s}`)
  return sendPage(reply, visit, 200, page({ title: `Pipelines · ${loaded.project.name}`, user: visit.session?.user ?? null, wide: true }, projectChrome(req.actor, loaded, 'pipelines', html`
<h1>Pipelines</h1>
<nav aria-label="Pipelines shown"><ul class="actions">${SCOPES.map((s) => html`<li><a href="${scopeUrl(s.scope)}"${s.scope === scope ? html` aria-current="page"` : ''}>${s.label}</a></li>`)}</ul></nav>
${found.items.length === 0 ? html`<p class="muted">${scope === null ? html`No pipelines yet: push a <code>.gitlab-ci.yml</code> to start one.` : 'No pipelines here.'}</p>` : html`<table class="pipelines">
<thead><tr><th scope="col">Status</th><th scope="col">Pipeline</th><th scope="col">Ref and commit</th><th scope="col">Stages</th><th scope="col">Started by</th><th scope="col">Duration</th></tr></thead>
<tbody>${found.items.map((p) => {
    const user = p.user_id === null ? undefined : users.get(p.user_id)
    return html`<tr><td>${statusBadge(p.status)}</td><td><a href="${pipelineUrl(request, p.id)}">#${p.id}</a></td>
<td><span class="mono">${p.ref}</span> · <a class="mono" href="${commitUrl(request, p.sha)}">${p.sha.slice(0, 8)}</a></td><td>${stageBadges(jobs.get(p.id) ?? [])}</td><td>${user === undefined ? html`<span class="muted">—</span>` : userLink(user)}</td>
<td>${duration(p.started_at, p.finished_at)} <span class="muted">${timeOf(p.created_at)}</span></td></tr>`
  })}</tbody></table>`}
${pageLinks(base, new URLSearchParams(scope === null ? {} : { scope }), number, PER_PAGE, found.total)}`)))
}

async function pipelinePage(request: ProjectPageRequest, pipeline: CiPipelineRow): Promise<FastifyReply> {
  const { req, reply, visit, loaded } = request
  const [stages, mayRun] = await Promise.all([stagesOf(request, pipeline), mayRunCi(request, pipeline)])
  const here = pipelineUrl(request, pipeline.id)
  const ended = (ENDED_STATUSES as readonly string[]).includes(pipeline.status)
  return sendPage(reply, visit, 200, page({ title: `Pipeline #${pipeline.id} · ${loaded.project.name}`, user: visit.session?.user ?? null, csrfToken: mayRun ? tokenOf(visit) : undefined, wide: true }, projectChrome(req.actor, loaded, 'pipelines', html`
<h1>Pipeline #${pipeline.id} ${statusBadge(pipeline.status)}</h1>
<p>On <span class="mono">${pipeline.ref}</span> at <a class="mono" href="${commitUrl(request, pipeline.sha)}">${pipeline.sha.slice(0, 8)}</a> · created ${timeOf(pipeline.created_at)}${pipeline.started_at === null ? '' : html` · ${duration(pipeline.started_at, pipeline.finished_at)}`}</p>
${pipeline.yaml_errors === null ? '' : html`<p class="alert">${pipeline.yaml_errors}</p>`}
${mayRun ? html`<div class="actions">${pipeline.status === 'failed' || pipeline.status === 'canceled' ? actionForm(request, `${here}/retry`, 'Retry the failed jobs') : ''}${ended ? '' : actionForm(request, `${here}/cancel`, 'Cancel running')}</div>` : ''}
<div class="stages">${stages.map((stage) => html`<section class="box stage" aria-labelledby="stage-${stage.name}"><header><h2 id="stage-${stage.name}">${stage.name}</h2></header>
<ul class="jobs">${stage.jobs.map((job) => html`<li>${statusBadge(job.status)} <a href="${jobUrl(request, job.id)}">${job.name}</a>${job.allow_failure === 1 ? html` <span class="muted">(allowed to fail)</span>` : ''} <span class="muted">${duration(job.started_at, job.finished_at)}</span></li>`)}</ul></section>`)}</div>`)))
}

/** Reads a log from `offset` on: the bytes up to `limit` (the last `limit` when `tail`), and its whole length. */
async function readTrace(stream: Readable, offset: number, limit: number, tail: boolean): Promise<{ bytes: Buffer; length: number }> {
  const chunks: Buffer[] = []
  let kept = 0
  let length = 0
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    const start = Math.max(0, offset - length)
    length += chunk.length
    if (start >= chunk.length) continue
    const part = start === 0 ? chunk : chunk.subarray(start)
    if (!tail && kept >= limit) continue
    chunks.push(part)
    kept += part.length
    while (tail && chunks.length > 1 && kept - chunks[0]!.length >= limit) kept -= chunks.shift()!.length
  }
  const bytes = Buffer.concat(chunks)
  return { bytes: tail ? bytes.subarray(Math.max(0, bytes.length - limit)) : bytes.subarray(0, limit), length }
}

/** The log's text from `offset` as a page shows it, up to the last whole line unless the job has ended; the offset after it. */
function logChunk(bytes: Buffer, offset: number, complete: boolean): { markup: string; next: number } {
  const end = complete ? bytes.length : bytes.lastIndexOf(0x0a) + 1
  return { markup: renderTerminal(bytes.subarray(0, end).toString('utf8')), next: offset + end }
}

async function jobPage(request: ProjectPageRequest, job: CiBuildRow, pipeline: CiPipelineRow): Promise<FastifyReply> {
  const { req, reply, visit, loaded } = request
  const complete = (ENDED_STATUSES as readonly string[]).includes(job.status) || job.status === 'skipped' || job.status === 'manual'
  const [mayRun, trace, archive, users] = await Promise.all([
    mayRunCi(request, pipeline), openTrace(req.ingot, job.id), jobArchive(request, job),
    usersById(req.ingot.db, job.user_id === null ? [] : [job.user_id]),
  ])
  const { bytes, length } = await readTrace(trace, 0, LOG_TAIL_BYTES, true)
  const start = length - bytes.length
  // A tail starts mid-line: from the first whole line on.
  const from = start === 0 ? 0 : bytes.indexOf(0x0a) + 1
  const chunk = logChunk(bytes.subarray(from), start + from, complete)
  const here = jobUrl(request, job.id)
  const api = `/api/v4/projects/${loaded.project.id}/jobs/${job.id}`
  const user = job.user_id === null ? undefined : users.get(job.user_id)
  return sendPage(reply, visit, 200, page({
    title: `${job.name} (#${job.id}) · ${loaded.project.name}`, user: visit.session?.user ?? null, csrfToken: mayRun ? tokenOf(visit) : undefined, wide: true,
    scripts: complete ? [] : ['job-log.js'], ...(complete ? {} : { refreshWithoutScriptSeconds: 5 }),
  }, projectChrome(req.actor, loaded, 'pipelines', html`
<h1>Job ${job.name} <small class="muted">#${job.id}</small></h1>
<p><span id="job-status" aria-live="polite">${job.status}</span> · stage ${job.stage} of <a href="${pipelineUrl(request, pipeline.id)}">pipeline #${pipeline.id}</a> on <span class="mono">${pipeline.ref}</span>${user === undefined ? '' : html` · started by ${userLink(user)}`}${job.started_at === null ? '' : html` · ${duration(job.started_at, job.finished_at)}`}</p>
<div class="actions">
${mayRun && complete && job.kind === 'ci' ? actionForm(request, `${here}/retry`, 'Retry') : ''}${mayRun && !complete ? actionForm(request, `${here}/cancel`, 'Cancel') : ''}
<a class="button" href="${api}/trace">Raw log</a>${archive === null ? '' : html`<a class="button" href="${artifactsUrl(request, job, 'download')}">Download artifacts</a><a class="button" href="${artifactsUrl(request, job, 'browse')}">Browse artifacts</a>`}
</div>
${start > 0 ? html`<p class="muted">The log's first ${Math.round(start / 1024)} KB are left out here: the raw log has them.</p>` : ''}
<pre class="job-log" id="job-log" data-trace-url="${here}/trace.json" data-offset="${chunk.next}" data-complete="${complete ? 'true' : 'false'}">${new SafeHtml(chunk.markup)}</pre>`)))
}

/** `trace.json?offset=N`: what the log gained since N (whole lines while the job runs), rendered, with the job's status. */
async function traceJson(request: ProjectPageRequest, job: CiBuildRow): Promise<FastifyReply> {
  const { req, reply } = request
  const asked = String((req.query as Record<string, unknown>).offset ?? '0')
  const offset = /^\d{1,12}$/.test(asked) ? Number(asked) : 0
  const complete = (ENDED_STATUSES as readonly string[]).includes(job.status)
  const { bytes } = await readTrace(await openTrace(req.ingot, job.id), offset, LOG_TAIL_BYTES, false)
  const chunk = logChunk(bytes, offset, complete)
  return reply.header('cache-control', 'no-store').type('application/json; charset=utf-8')
    .send({ offset: chunk.next, html: chunk.markup === '' && chunk.next === offset ? '' : chunk.markup, complete, status: job.status })
}

function numberSegment(segment: string | undefined): number | null {
  return segment !== undefined && /^\d{1,15}$/.test(segment) ? Number(segment) : null
}

async function loadedPipeline(request: ProjectPageRequest, segment: string | undefined): Promise<CiPipelineRow | null> {
  const id = numberSegment(segment)
  return id === null ? null : findPipeline(request.req.ingot.db, request.loaded.project.id, id)
}

async function loadedJob(request: ProjectPageRequest, segment: string | undefined): Promise<{ job: CiBuildRow; pipeline: CiPipelineRow } | null> {
  const id = numberSegment(segment)
  const job = id === null ? null : await findJob(request.req.ingot.db, request.loaded.project.id, id)
  const pipeline = job === null ? null : await findPipeline(request.req.ingot.db, request.loaded.project.id, job.pipeline_id)
  return job === null || pipeline === null ? null : { job, pipeline }
}

export const pipelinesPage: ProjectPage = async (request) => {
  const { req, reply, visit, loaded, rest } = request
  if (!canOnProject(req.actor, loaded, 'read_pipeline')) return sendNotFound(reply, visit)
  const [first, ...more] = rest
  if (first === undefined) return listPage(request)
  const pipeline = await loadedPipeline(request, first)
  return pipeline === null || more.length > 0 ? sendNotFound(reply, visit) : pipelinePage(request, pipeline)
}

export const jobsPage: ProjectPage = async (request) => {
  const { req, reply, visit, loaded, rest } = request
  if (!canOnProject(req.actor, loaded, 'read_build')) return sendNotFound(reply, visit)
  const [first, second, ...more] = rest
  const found = await loadedJob(request, first)
  if (found !== null && second === 'artifacts') return jobArtifactsPage(request, found.job, more)
  if (found === null || more.length > 0) return sendNotFound(reply, visit)
  if (second === undefined) return jobPage(request, found.job, found.pipeline)
  if (second === 'trace.json') return traceJson(request, found.job)
  return sendNotFound(reply, visit)
}

export const pipelineForms: ProjectPage = async (request) => {
  const { req, reply, visit, rest } = request
  const [first, action, ...more] = rest
  const pipeline = await loadedPipeline(request, first)
  if (pipeline === null || more.length > 0 || !await mayRunCi(request, pipeline)) return sendNotFound(reply, visit)
  if (action === 'retry') await retryPipeline(req.ingot, pipeline, req.actor!.user.id)
  else if (action === 'cancel') await cancelPipeline(req.ingot, pipeline)
  else return sendNotFound(reply, visit)
  return redirect(reply, visit, pipelineUrl(request, pipeline.id))
}

export const jobForms: ProjectPage = async (request) => {
  const { req, reply, visit, rest } = request
  const [first, action, ...more] = rest
  const found = await loadedJob(request, first)
  if (found === null || more.length > 0 || !await mayRunCi(request, found.pipeline)) return sendNotFound(reply, visit)
  if (action === 'cancel') {
    await cancelJob(req.ingot, found.job.id)
    return redirect(reply, visit, jobUrl(request, found.job.id))
  }
  if (action !== 'retry') return sendNotFound(reply, visit)
  const outcome = await retryJob(req.ingot, found.job.id, req.actor!.user.id)
  return redirect(reply, visit, jobUrl(request, 'retried' in outcome ? outcome.retried.id : found.job.id))
}

/**
 * `/environments` (each with its latest deployment) and `/environments/:id` (its deployments,
 * newest first): Reporters, as the API's environments and deployments.
 */
export const environmentsPage: ProjectPage = async (request) => {
  const { req, reply, visit, loaded, rest } = request
  if (!canOnProject(req.actor, loaded, 'read_environment') || rest.length > 1) return sendNotFound(reply, visit)
  const { db } = req.ingot
  const base = `${projectUrl(loaded)}/environments`
  const number = pageNumber(req.query)
  if (rest.length === 0) {
    const found = await findEnvironmentPage(db, loaded.project.id, { page: number, per_page: PER_PAGE })
    const latest = await latestDeploymentsOf(db, found.items.map((environment) => environment.id))
    return sendPage(reply, visit, 200, page({ title: `Environments · ${loaded.project.name}`, user: visit.session?.user ?? null, wide: true }, projectChrome(req.actor, loaded, 'environments', html`
<h1>Environments</h1>
${found.items.length === 0 ? html`<p class="muted">No environments: a job with <code>environment:</code> makes one when it deploys.</p>` : html`<table><thead><tr><th scope="col">Environment</th><th scope="col">State</th><th scope="col">Last deployment</th></tr></thead>
<tbody>${found.items.map((environment) => {
      const deployment = latest.get(environment.id)
      return html`<tr><td><a href="${base}/${environment.id}">${environment.name}</a>${environment.external_url === null ? '' : html` · <a href="${environment.external_url}" rel="nofollow noopener">open</a>`}</td><td>${environment.state}</td>
<td>${deployment === undefined ? html`<span class="muted">None</span>` : html`#${deployment.iid} <span class="mono">${deployment.ref}</span> at <a class="mono" href="${commitUrl(request, deployment.sha)}">${deployment.sha.slice(0, 8)}</a> ${timeOf(deployment.created_at)}`}</td></tr>`
    })}</tbody></table>`}
${pageLinks(base, new URLSearchParams(), number, PER_PAGE, found.total)}`)))
  }
  const id = /^\d{1,15}$/.test(rest[0]!) ? Number(rest[0]) : null
  const environment = id === null ? null : await findEnvironment(db, loaded.project.id, id)
  if (environment === null) return sendNotFound(reply, visit)
  const found = await findEnvironmentDeploymentPage(db, environment.id, { page: number, per_page: PER_PAGE })
  return sendPage(reply, visit, 200, page({ title: `${environment.name} · Environments · ${loaded.project.name}`, user: visit.session?.user ?? null, wide: true }, projectChrome(req.actor, loaded, 'environments', html`
<h1>Environment ${environment.name} <small class="muted">${environment.state}</small></h1>
${found.items.length === 0 ? html`<p class="muted">No deployments.</p>` : html`<ol class="issuable-list">${found.items.map((deployment) => html`<li>#${deployment.iid} <span class="mono">${deployment.ref}</span> at <a class="mono" href="${commitUrl(request, deployment.sha)}">${deployment.sha.slice(0, 8)}</a>${deployment.deployable_id === null ? '' : html` by <a href="${jobUrl(request, deployment.deployable_id)}">job #${deployment.deployable_id}</a>`} <span class="muted">${timeOf(deployment.created_at)}</span></li>`)}</ol>`}
${pageLinks(`${base}/${environment.id}`, new URLSearchParams(), number, PER_PAGE, found.total)}`)))
}

