// Wiki pages (spec: Wikis) as the original's gollum reads them from the wiki repository's `master`:
// every file whose extension names a page format is a page (files git pushes may be anything, and
// only those are pages), its slug is its path without the extension, its title the file's name
// with dashes read as spaces. A page is found by its slug case-insensitively, spaces and dashes
// alike. Listing reads one tree walk and one pipelined cat-file batch, whatever the number of pages.
import type { GitRepository, TreeEntry } from '../git/repository.js'
import type { RepositoryStorage } from '../git/storage.js'
import { cleanTreePath, readTree } from '../git/tree.js'
import { findBranchTip } from '../git/branches.js'

/** The branch the original's wiki reads and writes pages on. */
export const WIKI_BRANCH = 'master'

export const WIKI_FORMATS = ['markdown', 'rdoc', 'asciidoc'] as const
export type WikiFormat = (typeof WIKI_FORMATS)[number]

/** The extension a page of each format is written with. */
export const EXTENSION_OF_FORMAT: Readonly<Record<WikiFormat, string>> = { markdown: 'md', rdoc: 'rdoc', asciidoc: 'asciidoc' }

/** Every extension gollum reads as one of the three formats (lower case). */
const FORMAT_OF_EXTENSION: ReadonlyMap<string, WikiFormat> = new Map([
  ['md', 'markdown'], ['markdown', 'markdown'], ['mkd', 'markdown'], ['mkdn', 'markdown'], ['mdown', 'markdown'],
  ['rdoc', 'rdoc'], ['asciidoc', 'asciidoc'],
])

export interface WikiPageFile {
  /** The file's path in the wiki repository. */
  path: string
  blobId: string
  slug: string
  title: string
  format: WikiFormat
}

export interface WikiPageView extends WikiPageFile {
  /** The page's text; null when it was not read (a list without content). */
  content: string | null
}

/** A page name as a file or slug spells it: whitespace and `<>+` become dashes (gollum's cname). */
export function slugPart(name: string): string {
  return name.replace(/\s/g, '-').replace(/[<>+]/g, '-')
}

/** A title as the original shows it: dashes read as spaces. */
export function titleOf(name: string): string {
  return name.replace(/-+/g, ' ')
}

/** The name of a file without its extension (`a.b.md` → `a.b`). */
export function stemOf(fileName: string): string {
  const dot = fileName.lastIndexOf('.')
  return dot <= 0 ? fileName : fileName.slice(0, dot)
}

/** The page a file of the wiki is; null for a file that is no page (unknown extension, `_Sidebar`-like names). */
export function pageFileOf(path: string, blobId: string): WikiPageFile | null {
  const slash = path.lastIndexOf('/')
  const fileName = path.slice(slash + 1)
  const dot = fileName.lastIndexOf('.')
  if (dot <= 0 || fileName.startsWith('_')) return null
  const format = FORMAT_OF_EXTENSION.get(fileName.slice(dot + 1).toLowerCase())
  if (format === undefined) return null
  const stem = fileName.slice(0, dot)
  const dir = slash === -1 ? '' : path.slice(0, slash + 1)
  return { path, blobId, slug: `${dir}${slugPart(stem)}`, title: titleOf(stem), format }
}

/** The commit the wiki's pages are read from; null when the wiki has none yet (or no repository). */
export async function wikiTip(repositories: RepositoryStorage, projectId: number): Promise<string | null> {
  if (!await repositories.wikiExists(projectId)) return null
  return (await findBranchTip(repositories.openWiki(projectId), WIKI_BRANCH))?.commitId ?? null
}

const isBlob = (entry: TreeEntry) => entry.type === 'blob' && entry.mode !== '120000'

/** Every page at `tip`, in git's path order. */
export async function listWikiPages(repo: GitRepository, tip: string): Promise<WikiPageFile[]> {
  return (await repo.listTree(tip, '', true))
    .filter(isBlob)
    .map((entry) => pageFileOf(entry.path, entry.id))
    .filter((page): page is WikiPageFile => page !== null)
}

/** The pages with their content when asked: read for these pages alone (a page of the list). */
export async function withPageContents(repo: GitRepository, pages: readonly WikiPageFile[], withContent: boolean): Promise<WikiPageView[]> {
  if (!withContent) return pages.map((page) => ({ ...page, content: null }))
  const contents = await Promise.all(pages.map((page) => readPageContent(repo, page)))
  return pages.map((page, index) => ({ ...page, content: contents[index] ?? '' }))
}

export async function readPageContent(repo: GitRepository, page: WikiPageFile): Promise<string> {
  return (await repo.read(page.blobId))?.data.toString('utf8') ?? ''
}

/** The directory part and the page name of a slug or title path (`a/b/c` → `a/b`, `c`). */
export function splitPagePath(value: string): { dir: string; name: string } {
  const slash = value.lastIndexOf('/')
  return slash === -1 ? { dir: '', name: value } : { dir: value.slice(0, slash), name: value.slice(slash + 1) }
}

/** The page a slug names at `tip`; null when none does. */
export async function findWikiPage(repo: GitRepository, tip: string, slug: string): Promise<WikiPageFile | null> {
  const { dir, name } = splitPagePath(slug)
  const cleanDir = cleanTreePath(dir)
  if (cleanDir === null || name === '') return null
  const entries = await readTree(repo, tip, cleanDir, false)
  const wanted = slugPart(name).toLowerCase()
  for (const entry of entries ?? []) {
    if (!isBlob(entry)) continue
    const page = pageFileOf(entry.path, entry.id)
    if (page !== null && splitPagePath(page.slug).name.toLowerCase() === wanted) return page
  }
  return null
}
