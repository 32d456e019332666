// User avatars (the `avatar` file of POST and PUT /users): checked like the original's (an image
// format, at most 200 KB), kept under $INGOT_DATA_DIR/shared/uploads/-/system/user/avatar/<id>/
// and served at INGOT_EXTERNAL_URL/uploads/<that path> (see api/uploads.ts).
import fs from 'node:fs/promises'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import type { Db } from '../../db/index.js'
import type { UserRow } from '../../db/schema.js'
import type { UploadedFile } from '../../common/uploaded-file.js'
import { UPLOAD_TEMPORARY_PREFIX } from './sweep.js'

export const AVATAR_MAX_BYTES = 200 * 1024
export const AVATAR_EXTENSIONS = ['png', 'jpg', 'jpeg', 'gif', 'bmp', 'tiff', 'ico'] as const

export const AVATAR_CONTENT_TYPES: Record<typeof AVATAR_EXTENSIONS[number], string> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', bmp: 'image/bmp', tiff: 'image/tiff', ico: 'image/x-icon',
}

export function uploadsRoot(dataDir: string): string {
  return path.join(dataDir, 'shared', 'uploads')
}

/** The directory of a user's avatar, relative to the uploads root (and in its URL). */
export function userAvatarDir(userId: number): string {
  return `-/system/user/avatar/${userId}`
}

function extensionOf(filename: string): string {
  return path.extname(filename).slice(1).toLowerCase()
}

export function avatarErrors(file: UploadedFile): string[] {
  const errors: string[] = []
  if (!(AVATAR_EXTENSIONS as readonly string[]).includes(extensionOf(file.filename))) {
    errors.push(`file format is not supported. Please try one of the following supported formats: ${AVATAR_EXTENSIONS.join(', ')}`)
  }
  if (file.data.length > AVATAR_MAX_BYTES) errors.push('is too big (should be at most 200 KB)')
  return errors
}

/** A name safe in a path and a URL: the upload's own name when it is, else avatar.<extension>. */
function storedName(filename: string): string {
  const base = path.basename(filename)
  return /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(base) ? base : `avatar.${extensionOf(filename)}`
}

/** Stores a checked avatar as the user's one avatar and records its path; the previous one goes. */
export async function setUserAvatar(db: Db, dataDir: string, user: UserRow, file: UploadedFile): Promise<UserRow> {
  const dir = path.join(uploadsRoot(dataDir), userAvatarDir(user.id))
  const name = storedName(file.filename)
  await fs.mkdir(dir, { recursive: true })
  // Written aside, then renamed into place: a reader never sees half a file.
  const temporary = path.join(dir, `${UPLOAD_TEMPORARY_PREFIX}${randomBytes(6).toString('hex')}`)
  await fs.writeFile(temporary, file.data)
  await fs.rename(temporary, path.join(dir, name))
  const updated = await db.updateTable('users').set({ avatar_path: `${userAvatarDir(user.id)}/${name}`, updated_at: Date.now() })
    .where('id', '=', user.id).returningAll().executeTakeFirstOrThrow()
  for (const entry of await fs.readdir(dir)) {
    if (entry !== name) await fs.rm(path.join(dir, entry), { force: true })
  }
  return updated
}

/** Removes a deleted user's avatar files. */
export async function removeUserAvatar(dataDir: string, userId: number): Promise<void> {
  await fs.rm(path.join(uploadsRoot(dataDir), userAvatarDir(userId)), { recursive: true, force: true })
}
