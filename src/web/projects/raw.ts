// The raw page, `/raw/<ref…>/<path…>`: a file's exact bytes, never rendered by the browser as a
// page. Text is text/plain, images are sent with their type to be shown, anything else is a
// download; a sandboxing Content-Security-Policy keeps even an SVG's scripts from running, and
// app.ts forbids sniffing.
import type { FastifyReply } from 'fastify'
import type { Readable } from 'node:stream'
import { peekStream, looksBinary, streamBlob } from '../../git/blob.js'
import type { GitRepository } from '../../git/repository.js'
import { canOnProject } from '../../policies/project-policy.js'
import { sendNotFound } from '../visit.js'
import { refAndPath, type ProjectPage, type ProjectPageRequest } from './context.js'

/** The images browsers show, by extension. */
const IMAGE_TYPES: Readonly<Record<string, string>> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', avif: 'image/avif',
  bmp: 'image/bmp', ico: 'image/vnd.microsoft.icon', svg: 'image/svg+xml',
}

/** The image type of a file by its name; null for anything else. */
export function imageTypeOf(path: string): string | null {
  const dot = path.lastIndexOf('.')
  return dot === -1 ? null : IMAGE_TYPES[path.slice(dot + 1).toLowerCase()] ?? null
}

/** The policy of every file sent as it is (here and as a job's artifact): nothing runs, nothing loads, sandboxed. */
export const RAW_CSP = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox"

/** `filename*` of Content-Disposition (RFC 6266): the name percent-encoded, so no quote or line break can break out. */
function dispositionOf(kind: 'inline' | 'attachment', path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1)
  return `${kind}; filename*=UTF-8''${encodeURIComponent(name)}`
}

/** A blob's exact bytes as the raw page sends them: text as text, images to be shown, the rest as a download; sandboxed. */
export function sendRawFile(reply: FastifyReply, repo: GitRepository, blob: { oid: string; size: number }, path: string): Promise<FastifyReply> {
  return sendRawBytes(reply, streamBlob(repo, blob.oid), blob.size, path)
}

/** A file's `size` bytes as the raw page sends them (a blob's, or a job artifact's): see sendRawFile. */
export async function sendRawBytes(reply: FastifyReply, source: Readable, size: number, path: string): Promise<FastifyReply> {
  const { first, stream } = await peekStream(source)
  const image = imageTypeOf(path)
  const binary = looksBinary(first)
  const type = image ?? (binary ? 'application/octet-stream' : 'text/plain; charset=utf-8')
  return reply.code(200).headers({
    'content-type': type,
    'content-length': String(size),
    'content-disposition': dispositionOf(image === null && binary ? 'attachment' : 'inline', path),
    'content-security-policy': RAW_CSP,
    'cache-control': 'private, no-cache',
    'referrer-policy': 'strict-origin-when-cross-origin',
  }).send(stream)
}

const rawPage: ProjectPage = async ({ req, reply, visit, loaded, rest }: ProjectPageRequest) => {
  if (!canOnProject(req.actor, loaded, 'download_code')) return sendNotFound(reply, visit)
  const repo = req.ingot.repositories.open(loaded.project.id)
  const target = await refAndPath(repo, rest)
  const info = target === null || target.path === '' ? null : await repo.info(`${target.commit}:${target.path}`)
  if (target === null || info === null || info.type !== 'blob') return sendNotFound(reply, visit)
  return sendRawFile(reply, repo, info, target.path)
}

export default rawPage
