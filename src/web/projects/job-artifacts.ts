// A job's artifacts at the original's URLs, below `/-/jobs/:id/artifacts/`: `download` (the
// archive, as the API sends it), `browse[/<dir…>]` (the directories and files of the archive, read
// from the central directory stored at upload, as the API's artifact routes read it), `file/<path…>`
// (one file as the API sends it: its exact bytes, an attachment of a safe type) and `raw/<path…>`
// (one file as the raw page sends a blob: text as text, images shown, the rest a download). Every
// file is sent under the raw page's sandboxing policy, so none is ever a page of this site. Who may
// read them is the job page's question (read_build, as the API's artifact routes); an expired or
// missing archive is the 404 page.
import type { FastifyReply } from 'fastify'
import type { CiBuildRow, CiJobArtifactRow } from '../../db/schema.js'
import { artifactDirectory, artifactsByJob, liveArchive } from '../../finders/job-artifacts-finder.js'
import { openArtifactEntry } from '../../services/ci/artifacts.js'
import { uploadContentType } from '../../services/uploads/attachments.js'
import { sendAttachment } from '../../api/attachment.js'
import { html, page, type SafeHtml } from '../html.js'
import { sendNotFound, sendPage } from '../visit.js'
import { encodePath, projectChrome, projectUrl, type ProjectPageRequest } from './context.js'
import { RAW_CSP, sendRawBytes } from './raw.js'

/** The job's archive while it has one that has not expired, as the API's artifact routes find it. */
export async function jobArchive(request: ProjectPageRequest, job: CiBuildRow): Promise<CiJobArtifactRow | null> {
  return liveArchive((await artifactsByJob(request.req.ingot.db, [job.id])).get(job.id) ?? [])
}

export function artifactsUrl(request: ProjectPageRequest, job: CiBuildRow, action: 'download' | 'browse' | 'file' | 'raw', path = ''): string {
  return `${projectUrl(request.loaded)}/-/jobs/${job.id}/artifacts/${action}${path === '' ? '' : `/${encodePath(path)}`}`
}

function sizeOf(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`
}

/** The links to each directory above `path` in the archive, the last one plain. */
function archiveBreadcrumbs(request: ProjectPageRequest, job: CiBuildRow, path: string): SafeHtml {
  const segments = path === '' ? [] : path.split('/')
  return html`<nav aria-label="Path"><ol class="breadcrumbs">
<li>${segments.length === 0 ? 'artifacts' : html`<a href="${artifactsUrl(request, job, 'browse')}">artifacts</a>`}</li>${segments.map((segment, i) => i === segments.length - 1
    ? html`<li aria-current="location">${segment}</li>`
    : html`<li><a href="${artifactsUrl(request, job, 'browse', segments.slice(0, i + 1).join('/'))}">${segment}</a></li>`)}
</ol></nav>`
}

async function browsePage(request: ProjectPageRequest, job: CiBuildRow, archive: CiJobArtifactRow, path: string): Promise<FastifyReply> {
  const { req, reply, visit, loaded } = request
  const directory = await artifactDirectory(req.ingot.db, archive.id, path)
  if (directory === null) return sendNotFound(reply, visit)
  const inside = (name: string) => (path === '' ? name : `${path}/${name}`)
  const empty = directory.directories.length === 0 && directory.files.length === 0
  return sendPage(reply, visit, 200, page({ title: `Artifacts of ${job.name} (#${job.id}) · ${loaded.project.name}`, user: visit.session?.user ?? null, wide: true }, projectChrome(req.actor, loaded, 'pipelines', html`
<h1>Artifacts of job <a href="${projectUrl(loaded)}/-/jobs/${job.id}">${job.name} <small class="muted">#${job.id}</small></a></h1>
<p><a class="button" href="${artifactsUrl(request, job, 'download')}">Download the archive</a> <span class="muted">${archive.filename} · ${sizeOf(archive.size)}</span></p>
${archiveBreadcrumbs(request, job, path)}
${empty ? html`<p class="muted">The archive has no files to browse.</p>` : html`<table><thead><tr><th scope="col">Name</th><th scope="col">Size</th><th scope="col">Download</th></tr></thead>
<tbody>${directory.directories.map((name) => html`<tr><td><a href="${artifactsUrl(request, job, 'browse', inside(name))}">${name}/</a></td><td></td><td></td></tr>`)}
${directory.files.map((file) => html`<tr><td><a href="${artifactsUrl(request, job, 'raw', file.path)}">${file.name}</a></td><td>${sizeOf(file.size)}</td><td><a href="${artifactsUrl(request, job, 'file', file.path)}" aria-label="Download ${file.name}">Download</a></td></tr>`)}</tbody></table>`}`)))
}

/** `file` and `raw`: one file of the archive, found in its stored index as the API finds it. */
async function sendEntry(request: ProjectPageRequest, archive: CiJobArtifactRow, path: string, as: 'file' | 'raw'): Promise<FastifyReply> {
  const { req, reply, visit } = request
  const entry = path === '' ? null : await openArtifactEntry(req.ingot, archive, path)
  if (entry === null) return sendNotFound(reply, visit)
  if (as === 'raw') return sendRawBytes(reply, entry.stream, entry.size, path)
  const name = path.split('/').pop()!
  return sendAttachment(reply.header('content-security-policy', RAW_CSP), name, uploadContentType(name).type, entry.size, entry.stream)
}

/** `/-/jobs/:id/artifacts/<action>/<path…>` of a job the visitor may read. */
export async function jobArtifactsPage(request: ProjectPageRequest, job: CiBuildRow, segments: readonly string[]): Promise<FastifyReply> {
  const { reply, visit } = request
  const [action, ...rest] = segments
  const archive = await jobArchive(request, job)
  if (archive === null) return sendNotFound(reply, visit)
  const path = rest.join('/')
  if (action === 'download' && rest.length === 0) {
    const stream = await request.req.ingot.blobs.get(archive.blob_key)
    if (stream === null) return sendNotFound(reply, visit)
    return sendAttachment(reply.header('content-security-policy', RAW_CSP), archive.filename, 'application/octet-stream', archive.size, stream)
  }
  if (action === 'browse') return browsePage(request, job, archive, path)
  if (action === 'file' || action === 'raw') return sendEntry(request, archive, path, action)
  return sendNotFound(reply, visit)
}
