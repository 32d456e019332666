// The admin area's background jobs at `/admin/background_jobs`: the job queue's operator view, as
// `ingot admin jobs` shows it (how many jobs of each kind wait, run and are dead, how long the
// oldest due job has waited, the dead jobs with their last errors), with a Retry and a Remove form
// per dead job (`/admin/background_jobs/:id/retry`, `/admin/background_jobs/:id` with
// `_method=delete`) and Retry all (`/admin/background_jobs/retry_all`), through jobs/queue.ts.
import type { FastifyPluginAsync } from 'fastify'
import type { JobState } from '../../jobs/queue.js'
import { csrfField, html } from '../html.js'
import { timeOf } from '../projects/issuables.js'
import { WEB, formMethod, methodField, redirect, sendNotFound, tokenOf } from '../visit.js'
import { adminPage, forAdmin } from './layout.js'

const STATES: readonly JobState[] = ['waiting', 'running', 'dead']
/** Dead jobs are kept 30 days; the page shows the oldest this many. */
const DEAD_SHOWN = 50
/** A payload can be large (a web hook's event): its start tells which job it is. */
const PAYLOAD_SHOWN = 200

function cut(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length)}…`
}

/** A job id from the path: the table store's numbers, pg-boss's UUIDs. */
function jobIdParam(params: unknown): string | null {
  const { id } = params as { id: string }
  return /^[0-9a-f-]{1,36}$/i.test(id) ? id : null
}

const backgroundJobPages: FastifyPluginAsync = async (app) => {
  app.get('/admin/background_jobs', WEB, forAdmin(async (req, reply, visit) => {
    const { jobs } = req.ingot
    const [{ kinds, total }, oldestDueAgeMs, dead] = await Promise.all([jobs.countsByKind(), jobs.oldestDueAgeMs(), jobs.list({ state: 'dead', limit: DEAD_SHOWN })])
    const token = tokenOf(visit)
    return adminPage(reply, visit, 'Background jobs', '/admin/background_jobs', html`<h1>Background jobs</h1>
<p>${oldestDueAgeMs === null ? 'No job is due now.' : `The oldest due job has waited ${Math.round(oldestDueAgeMs / 1000)} seconds.`}</p>
${kinds.length === 0 ? html`<p class="muted">No background jobs are waiting, running or dead.</p>` : html`<table><thead><tr><th scope="col">Kind</th>${STATES.map((state) => html`<th scope="col">${state}</th>`)}</tr></thead>
<tbody>${kinds.map(([kind, row]) => html`<tr><th scope="row"><code>${kind}</code></th>${STATES.map((state) => html`<td>${row[state]}</td>`)}</tr>`)}</tbody>
<tfoot><tr><th scope="row">Total</th>${STATES.map((state) => html`<td>${total[state]}</td>`)}</tr></tfoot></table>`}
<section aria-labelledby="dead-title"><h2 id="dead-title">Dead jobs</h2>
<p class="muted">Jobs that failed their last attempt, kept 30 days${total.dead > dead.length ? html`; the oldest ${dead.length} of ${total.dead}` : ''}. Retrying makes one due again with one more attempt.</p>
${dead.length === 0 ? html`<p class="muted">No dead jobs.</p>` : html`<form class="inline-form" method="post" action="/admin/background_jobs/retry_all">${csrfField(token)}<button type="submit">Retry all dead jobs</button></form>
<table><thead><tr><th scope="col">Job</th><th scope="col">Attempts</th><th scope="col">Died</th><th scope="col">Error and payload</th><th scope="col">Actions</th></tr></thead><tbody>${dead.map((job) => html`<tr>
<td><code>${job.kind}</code><br><span class="muted">${job.id}</span></td><td>${job.attempts} of ${job.maxAttempts}</td><td>${job.finishedAt === null ? '' : timeOf(job.finishedAt)}</td>
<td><pre>${job.lastError ?? ''}</pre><code>${cut(JSON.stringify(job.payload) ?? 'null', PAYLOAD_SHOWN)}</code></td>
<td><form class="inline-form" method="post" action="/admin/background_jobs/${job.id}/retry">${csrfField(token)}<button type="submit" aria-label="Retry job ${job.id}">Retry</button></form>
<form class="inline-form" method="post" action="/admin/background_jobs/${job.id}">${csrfField(token)}${methodField('DELETE')}<button type="submit" aria-label="Remove job ${job.id}">Remove</button></form></td></tr>`)}</tbody></table>`}
</section>`)
  }))

  app.post('/admin/background_jobs/retry_all', WEB, forAdmin(async (req, reply, visit) => {
    await req.ingot.jobs.retryAllDead()
    return redirect(reply, visit, '/admin/background_jobs')
  }))

  app.post('/admin/background_jobs/:id/retry', WEB, forAdmin(async (req, reply, visit) => {
    const id = jobIdParam(req.params)
    if (id === null || !await req.ingot.jobs.retryDead(id)) return sendNotFound(reply, visit)
    return redirect(reply, visit, '/admin/background_jobs')
  }))

  // Removes a job that is not running (the page offers it for dead ones).
  app.post('/admin/background_jobs/:id', WEB, forAdmin(async (req, reply, visit) => {
    const id = jobIdParam(req.params)
    if (id === null || formMethod(req) !== 'DELETE' || await req.ingot.jobs.remove([id]) === 0) return sendNotFound(reply, visit)
    return redirect(reply, visit, '/admin/background_jobs')
  }))
}

export default backgroundJobPages
