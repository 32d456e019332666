// The answer to POST /projects/:id/uploads, as the original's FileUploader#to_h of release 11.5:
// `alt` (an image's name without its extension, any other file's name; no brackets), `url` (relative
// to the project's web URL) and `markdown`, an image link for images, videos and SVGs.
import path from 'node:path'
import { Type, type Static } from '@sinclair/typebox'
import { isDangerousImage, isImageOrVideo, type StoredUpload } from '../services/uploads/attachments.js'

export const ProjectUpload = Type.Object({
  alt: Type.String(),
  url: Type.String(),
  markdown: Type.String(),
})
export type ProjectUploadEntity = Static<typeof ProjectUpload>

export function presentProjectUpload(upload: StoredUpload): ProjectUploadEntity {
  const imageOrVideo = isImageOrVideo(upload.name)
  const shownName = imageOrVideo ? path.basename(upload.name, path.extname(upload.name)) : upload.name
  const alt = shownName.replace(/[[\]]/g, '')
  const url = `/uploads/${upload.secret}/${upload.name}`
  const link = `[${alt}](${url})`
  return { alt, url, markdown: imageOrVideo || isDangerousImage(upload.name) ? `!${link}` : link }
}
