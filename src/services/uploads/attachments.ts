// Files attached to a project's issues, merge requests and comments (POST /projects/:id/uploads),
// as the original's FileUploader keeps them: each under a random 32-hex secret with its sanitized
// name, at most max_attachment_size megabytes (an application setting), kept under
// $INGOT_DATA_DIR/shared/uploads/-/project/<project id>/<secret>/<name> (by id, so renaming or
// transferring the project moves nothing) and served at <project URL>/uploads/<secret>/<name>.
import fs from 'node:fs/promises'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import type { Db } from '../../db/index.js'
import { getApplicationSettings } from '../settings.js'
import { uploadsRoot } from './user-avatar.js'
import { UPLOAD_TEMPORARY_PREFIX } from './sweep.js'

/** The largest attachment the instance takes, in bytes: max_attachment_size is in megabytes. */
export async function maxAttachmentBytes(db: Db): Promise<number> {
  return (await getApplicationSettings(db)).max_attachment_size * 1024 * 1024
}

export const UPLOAD_SECRET = /^[0-9a-f]{32}$/

/** Longest stored name, in bytes: what file systems take as one path segment. */
export const MAX_UPLOAD_NAME_BYTES = 255

// The original's uploader's lists: images and videos are shown inline and linked as images.
const IMAGE_TYPES: Record<string, string> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', bmp: 'image/bmp', tiff: 'image/tiff', ico: 'image/x-icon',
}
const VIDEO_TYPES: Record<string, string> = {
  mp4: 'video/mp4', m4v: 'video/mp4', mov: 'video/quicktime', webm: 'video/webm', ogv: 'video/ogg',
}
/** Images a browser would run scripts in: linked as images, but only ever served for download. */
const DANGEROUS_EXTENSIONS = new Set(['svg'])

function extensionOf(name: string): string {
  return path.extname(name).slice(1).toLowerCase()
}

/**
 * The name an upload is kept under, as the original's uploader sanitizes it: the last path
 * segment, every character other than a letter, digit, `_`, `.`, `-` or `+` turned into `_`.
 */
export function sanitizedUploadName(filename: string): string {
  const base = filename.replaceAll('\\', '/').split('/').pop() ?? ''
  const name = base.replace(/[^\p{L}\p{M}\p{N}_.+-]/gu, '_')
  if (name === '') return 'unnamed'
  return /^\.+$/.test(name) ? `_${name}` : name
}

/** Whether the original's uploader shows the file inline (and links it as an image). */
export function isImageOrVideo(name: string): boolean {
  const extension = extensionOf(name)
  return extension in IMAGE_TYPES || extension in VIDEO_TYPES
}

/** Whether the name is of an image a browser would run scripts in (linked as one, served as a download). */
export function isDangerousImage(name: string): boolean {
  return DANGEROUS_EXTENSIONS.has(extensionOf(name))
}

/** What a browser is sent for a stored name: inline images and videos; anything else a download. */
export function uploadContentType(name: string): { type: string; inline: boolean } {
  const extension = extensionOf(name)
  const type = IMAGE_TYPES[extension] ?? VIDEO_TYPES[extension]
  return type === undefined ? { type: 'application/octet-stream', inline: false } : { type, inline: true }
}

export interface StoredUpload {
  secret: string
  name: string
}

/** The directory of a project's uploads, relative to the uploads root. */
export function projectUploadsDir(projectId: number): string {
  return `-/project/${projectId}`
}

/** Where a stored upload's file is; null for a secret or name that could not have been stored. */
export function projectUploadPath(dataDir: string, projectId: number, upload: StoredUpload): string | null {
  if (!UPLOAD_SECRET.test(upload.secret) || upload.name !== sanitizedUploadName(upload.name)) return null
  return path.join(uploadsRoot(dataDir), projectUploadsDir(projectId), upload.secret, upload.name)
}

/** Removes every upload of a project (its rows are gone: nothing links to them any more). */
export async function removeProjectUploads(dataDir: string, projectId: number): Promise<void> {
  await fs.rm(path.join(uploadsRoot(dataDir), projectUploadsDir(projectId)), { recursive: true, force: true })
}

/** Stores a file as an upload of the project (its size and name checked by the caller). */
export async function storeProjectUpload(dataDir: string, projectId: number, filename: string, data: Buffer): Promise<StoredUpload> {
  const upload = { secret: randomBytes(16).toString('hex'), name: sanitizedUploadName(filename) }
  const target = projectUploadPath(dataDir, projectId, upload)!
  await fs.mkdir(path.dirname(target), { recursive: true })
  // Written aside, then renamed into place: a reader never sees half a file.
  const temporary = path.join(path.dirname(target), `${UPLOAD_TEMPORARY_PREFIX}${randomBytes(6).toString('hex')}`)
  await fs.writeFile(temporary, data)
  await fs.rename(temporary, target)
  return upload
}
