// Wiki page and attachment entities (spec: Wiki page and attachment), in the original's field
// order: a list without `with_content` leaves `content` out. An attachment's Markdown link embeds
// images and videos (named without their extension) and SVG files, and links anything else.
import { Type, type Static } from '@sinclair/typebox'
import type { WikiPageView } from '../finders/wiki-pages-finder.js'
import type { WikiAttachment as WikiAttachmentView } from '../services/wikis/create-wiki-attachment.js'

export const WikiPage = Type.Object({
  format: Type.String(),
  slug: Type.String(),
  title: Type.String(),
  content: Type.String(),
})
export type WikiPageEntity = Static<typeof WikiPage>

/** A page of a list: `content` only when it was asked for. */
export const WikiPageListed = Type.Object({
  format: Type.String(),
  slug: Type.String(),
  title: Type.String(),
  content: Type.Optional(Type.String()),
})
export type WikiPageListedEntity = Static<typeof WikiPageListed>

export const WikiAttachment = Type.Object({
  file_name: Type.String(),
  file_path: Type.String(),
  branch: Type.String(),
  link: Type.Object({ url: Type.String(), markdown: Type.String() }),
})
export type WikiAttachmentEntity = Static<typeof WikiAttachment>

export function presentWikiPageListed(page: WikiPageView): WikiPageListedEntity {
  const basic = { format: page.format, slug: page.slug, title: page.title }
  return page.content === null ? basic : { ...basic, content: page.content }
}

export function presentWikiPage(page: WikiPageView): WikiPageEntity {
  return { format: page.format, slug: page.slug, title: page.title, content: page.content ?? '' }
}

const IMAGE_OR_VIDEO = new Set(['png', 'jpg', 'jpeg', 'gif', 'bmp', 'tiff', 'ico', 'mp4', 'm4v', 'mov', 'webm', 'ogv'])
/** Shown as an image, never linked, so that a click cannot open it as a page of the site. */
const DANGEROUS = new Set(['svg'])

/** `![name](path)` for images and videos, `[file.ext](path)` otherwise, as the original writes it. */
export function attachmentMarkdown(fileName: string, url: string): string {
  const dot = fileName.lastIndexOf('.')
  const extension = dot === -1 ? '' : fileName.slice(dot + 1).toLowerCase()
  const media = IMAGE_OR_VIDEO.has(extension)
  const name = media && dot > 0 ? fileName.slice(0, dot) : fileName
  const link = `[${name.replace(/\]/g, '\\]')}](${url})`
  return media || DANGEROUS.has(extension) ? `!${link}` : link
}

export function presentWikiAttachment(attachment: WikiAttachmentView): WikiAttachmentEntity {
  return {
    file_name: attachment.fileName,
    file_path: attachment.filePath,
    branch: attachment.branch,
    link: { url: attachment.filePath, markdown: attachmentMarkdown(attachment.fileName, attachment.filePath) },
  }
}
