// Creating, updating and deleting wiki pages (spec: Wikis), each one commit on the wiki's `master`
// by the acting user with the original's message (`<username> created page: <title>`), then the
// wiki_page activity for webhooks. A page's file is named from its title as gollum names it:
// whitespace becomes `-`, `/` makes directories, the extension comes from the format; a title
// that some file of the same directory already has (any extension, any case) is a duplicate.
import type { Actor } from '../../auth/actor.js'
import type { AppContext } from '../../context.js'
import type { ProjectSubject } from '../../policies/project-policy.js'
import type { WikiPageAction } from '../activity/activity.js'
import type { GitRepository } from '../../git/repository.js'
import type { TreeChange } from '../../git/write.js'
import { readTree } from '../../git/tree.js'
import {
  EXTENSION_OF_FORMAT, WIKI_BRANCH, findWikiPage, pageFileOf, readPageContent, slugPart, splitPagePath, stemOf, titleOf,
  type WikiFormat, type WikiPageFile, type WikiPageView,
} from '../../finders/wiki-pages-finder.js'
import { notFound, validationFailed, type FieldErrors } from '../../common/errors.js'
import { cleanFilePath } from '../commits/commit-changes.js'
import { commitToWiki } from './wiki-commits.js'

export interface CreateWikiPageInput {
  title: string
  content: string
  format: WikiFormat
  /** The commit's message, as the web form's; blank or absent: the original's `<username> created page: <title>`. */
  message?: string
}

export interface UpdateWikiPageInput {
  title?: string
  content?: string
  /** Absent: the page keeps its format. */
  format?: WikiFormat
  /** The commit's message, as the web form's; blank or absent: the original's `<username> updated page: <title>`. */
  message?: string
}

const CANT_BE_BLANK = ["can't be blank"]
const RENAME_TAKEN = 'There is already a page with the same title in that path.'

const isBlank = (value: string) => value.trim() === ''

/** 400 with the model's messages when a given title or content is blank. */
function refuseBlank(fields: { title?: string | undefined; content?: string | undefined }): void {
  const errors: FieldErrors = {}
  if (fields.title !== undefined && isBlank(fields.title)) errors.title = CANT_BE_BLANK
  if (fields.content !== undefined && isBlank(fields.content)) errors.content = CANT_BE_BLANK
  if (Object.keys(errors).length > 0) throw validationFailed(errors)
}

const baseError = (message: string) => validationFailed({ base: [message] })

/**
 * Where a page titled `title` is written: directories from `/` (spaces as dashes), the file name
 * from the last part (gollum's cname) and the format's extension.
 */
function pagePathOf(title: string, format: WikiFormat): PagePath {
  const segments = title.split('/').map((segment) => segment.replace(/ /g, '-'))
  while (segments[0] === '') segments.shift()
  const name = slugPart(segments.pop() ?? '')
  const dir = segments.join('/')
  const fileName = `${name}.${EXTENSION_OF_FORMAT[format]}`
  const cleaned = cleanFilePath(dir === '' ? fileName : `${dir}/${fileName}`)
  // A file name starting with `_` is one of gollum's special files (_Sidebar, _Footer), never a page.
  if (name === '' || name.startsWith('_') || 'error' in cleaned) throw validationFailed({ title: ['is invalid'] })
  return { dir, fileName, path: cleaned.path }
}

interface PagePath {
  dir: string
  fileName: string
  path: string
}

/**
 * Why a page cannot be written at `target` on `parent`: a file of its directory with the same name
 * in any case and with any extension (`duplicate`, gollum's rule), or a file where a directory of
 * its path would go. `replacing` is the page's own file on an update.
 */
async function refuseTakenPath(
  repo: GitRepository, parent: string | null, target: PagePath, replacing: string | null, duplicate: (existing: string) => string,
): Promise<void> {
  if (parent === null) return
  const parts = target.dir === '' ? [] : target.dir.split('/')
  for (let i = 1; i <= parts.length; i += 1) {
    const above = parts.slice(0, i).join('/')
    const info = await repo.info(`${parent}:${above}`)
    if (info !== null && info.type !== 'tree') {
      throw baseError(`Error performing the operation: A file with the name \`${above}\` already exists, so it cannot be a directory`)
    }
  }
  const wanted = stemOf(target.fileName).toLowerCase()
  for (const entry of await readTree(repo, parent, target.dir, false) ?? []) {
    const existing = entry.path.slice(entry.path.lastIndexOf('/') + 1)
    if (entry.path !== replacing && stemOf(existing).toLowerCase() === wanted) throw baseError(duplicate(existing))
  }
}

/** The page a slug names on `parent`; 404 when it is gone. */
async function pageOn(repo: GitRepository, parent: string | null, slug: string): Promise<WikiPageFile> {
  const page = parent === null ? null : await findWikiPage(repo, parent, slug)
  if (page === null) throw notFound('Wiki Page')
  return page
}

/** The page as it stands in `commitId` at `path`, with the content just written. */
async function writtenPage(repo: GitRepository, commitId: string, path: string, content: string): Promise<WikiPageView> {
  const blob = await repo.info(`${commitId}:${path}`)
  const page = blob === null ? null : pageFileOf(path, blob.oid)
  if (page === null) throw new Error(`the page written at ${path} cannot be read back`)
  return { ...page, content }
}

async function publish(
  ctx: AppContext, subject: ProjectSubject, actor: Actor, action: WikiPageAction, page: WikiPageFile, content: string, message: string,
): Promise<void> {
  await ctx.activity.publish({
    kind: 'wiki_page', action, projectId: subject.project.id, userId: actor.user.id,
    slug: page.slug, title: page.title, format: page.format, content, message,
  }, ctx)
}

/** A commit message the writer gave, or null for none (blank). */
function givenMessage(message: string | undefined): string | null {
  return message === undefined || isBlank(message) ? null : message
}

export async function createWikiPage(ctx: AppContext, subject: ProjectSubject, actor: Actor, input: CreateWikiPageInput): Promise<WikiPageView> {
  refuseBlank(input)
  // The original reads dashes in a title as spaces before naming the file and the commit.
  const title = titleOf(input.title)
  const target = pagePathOf(title, input.format)
  const message = givenMessage(input.message) ?? `${actor.user.username} created page: ${title}`
  const repo = ctx.repositories.openWiki(subject.project.id)
  const { commitId } = await commitToWiki(ctx, subject.project.id, actor, WIKI_BRANCH, async (parent) => {
    await refuseTakenPath(repo, parent, target, null, (existing) => {
      const dir = target.dir === '' ? '/' : target.dir
      return `Duplicate page: Cannot write ${dir}/${target.fileName}, found ${dir}/${existing}.`
    })
    return { message, changes: [{ path: target.path, content: Buffer.from(input.content, 'utf8') }] }
  })
  const page = await writtenPage(repo, commitId, target.path, input.content)
  await publish(ctx, subject, actor, 'create', page, input.content, message)
  return page
}

/**
 * A new title as the original reads it on update: each part's whitespace squished; a bare name
 * stays in the page's directory, a leading `/` moves the page to the root, other paths are from the root.
 */
function retitled(title: string, page: WikiPageFile): string {
  const squished = title.split('/').map((part) => part.trim().replace(/\s+/g, ' ')).join('/')
  if (!squished.includes('/')) {
    const { dir } = splitPagePath(page.path)
    return dir === '' ? squished : `${dir}/${squished}`
  }
  return squished.replace(/^\/+/, '')
}

export async function updateWikiPage(
  ctx: AppContext, subject: ProjectSubject, actor: Actor, slug: string, input: UpdateWikiPageInput,
): Promise<WikiPageView> {
  refuseBlank(input)
  const repo = ctx.repositories.openWiki(subject.project.id)
  const { commitId, draft } = await commitToWiki(ctx, subject.project.id, actor, WIKI_BRANCH, async (parent) => {
    const page = await pageOn(repo, parent, slug)
    const format = input.format ?? page.format
    const content = input.content ?? await readPageContent(repo, page)
    const newTitle = input.title === undefined ? null : titleOf(retitled(input.title, page))
    const { dir, name } = splitPagePath(page.path)
    let target: PagePath
    if (newTitle !== null && newTitle !== titleOf(page.slug)) {
      target = pagePathOf(newTitle, format)
    } else if (format === page.format) {
      // (A pushed `.mkd` page stays `.mkd`.)
      target = { dir, fileName: name, path: page.path }
    } else {
      const fileName = `${stemOf(name)}.${EXTENSION_OF_FORMAT[format]}`
      target = { dir, fileName, path: dir === '' ? fileName : `${dir}/${fileName}` }
    }
    if (target.path !== page.path) await refuseTakenPath(repo, parent, target, page.path, () => RENAME_TAKEN)
    const message = givenMessage(input.message) ?? `${actor.user.username} updated page: ${page.title}`
    const changes: TreeChange[] = target.path === page.path ? [] : [{ path: page.path, remove: true }]
    changes.push({ path: target.path, content: Buffer.from(content, 'utf8') })
    return { message, changes, path: target.path, content }
  })
  const page = await writtenPage(repo, commitId, draft.path, draft.content)
  await publish(ctx, subject, actor, 'update', page, draft.content, draft.message)
  return page
}

export async function deleteWikiPage(ctx: AppContext, subject: ProjectSubject, actor: Actor, slug: string): Promise<void> {
  const repo = ctx.repositories.openWiki(subject.project.id)
  const { draft } = await commitToWiki(ctx, subject.project.id, actor, WIKI_BRANCH, async (parent) => {
    const page = await pageOn(repo, parent, slug)
    const message = `${actor.user.username} deleted page: ${page.title}`
    return { message, changes: [{ path: page.path, remove: true }], page }
  })
  await publish(ctx, subject, actor, 'delete', draft.page, '', draft.message)
}
