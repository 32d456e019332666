// The blob page, `/blob/<ref…>/<path…>`: a file with its line numbers (each line an `#L<n>`
// anchor), or its image, or rendered when it is Markdown; binary and very large files are linked
// for download rather than shown. Links to the raw file and to the permalink (the same file at the
// commit's id).
import { looksBinary } from '../../git/blob.js'
import { canOnProject } from '../../policies/project-policy.js'
import { findFileAtRef, type RepositoryFileView } from '../../services/files/file-at-ref.js'
import { SafeHtml, html, page } from '../html.js'
import { pageAround, redirect, sendNotFound, sendPage } from '../visit.js'
import type { LoadedProject } from '../../api/load.js'
import { breadcrumbs, encodePath, pageUrl, projectChrome, projectUrl, refAndPath, refSwitcher, type ProjectPage, type ProjectPageRequest } from './context.js'
import { BRANCH_PREFIX } from '../../git/ref-names.js'
import { commitSummary } from './commit-summary.js'
import { imageTypeOf } from './raw.js'
import { highlightLines } from '../highlight.js'
import { isMarkdownFile, renderMarkdown } from '../markdown.js'

/** A size as people read it: 512 B, 3.4 KB, 1.2 MB. */
export function humanSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  const units = ['KB', 'MB', 'GB', 'TB']
  let value = bytes / 1024
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit += 1
  }
  return `${value.toFixed(1)} ${units[unit]}`
}

/**
 * The numbered lines of a file. Built as one string rather than through `html` per line: a
 * 5,000-line file would cost 5,000 templates and 15,000 escapes of numbers; the lines are already
 * markup. Cells and rows end where the next begins, as HTML allows, which keeps the page small;
 * no newline between rows, as it would belong to the open cell (shown: the cells keep whitespace).
 * Kept beside the highlighter's cached lines (the same array for the same blob) as its UTF-8 bytes,
 * which the page sends in place of FILE_CONTENT (sendPage with parts): a second view neither
 * assembles 5,000 rows nor joins and encodes a page of megabytes again.
 */
function codeTable(lines: readonly SafeHtml[]): Buffer {
  const cached = codeTables.get(lines)
  if (cached !== undefined) return cached
  const rows = new Array<string>(lines.length)
  for (let i = 0; i < lines.length; i++) rows[i] = `<tr id="L${i + 1}"><td class="line-number"><a href="#L${i + 1}">${i + 1}</a><td>${lines[i]!.markup}`
  const table = Buffer.from(`<div class="blob-wrap"><table class="code highlight"><tbody>\n${rows.join('')}</tbody></table></div>`)
  codeTables.set(lines, table)
  return table
}

/** Tables by the highlighter's lines: an entry lives as long as the highlighter caches those lines. */
const codeTables = new WeakMap<readonly SafeHtml[], Buffer>()

/** Where a file's kept code table goes in its page; escaped text can hold no `<`, so nothing else can look like it. */
const FILE_CONTENT = '<!--file-content-->'

function fileContent(loaded: LoadedProject, ref: string, file: RepositoryFileView, rawUrl: string): SafeHtml | Buffer {
  const name = file.path.slice(file.path.lastIndexOf('/') + 1)
  if (imageTypeOf(file.path) !== null) return html`<img class="blob-image" src="${rawUrl}" alt="${name}">`
  if (file.data === null) return html`<p class="content">The file is too large to show here (${humanSize(file.size)}). <a href="${rawUrl}">View the raw file</a>.</p>`
  if (looksBinary(file.data)) return html`<p class="content">This is a binary file (${humanSize(file.size)}). <a href="${rawUrl}">Download it</a>.</p>`
  const text = file.data.toString('utf8')
  if (isMarkdownFile(file.path)) {
    const projectFullPath = `${loaded.namespace.full_path}/${loaded.project.path}`
    return html`<div class="content markdown">${renderMarkdown(text, { baseUrl: '', projectFullPath, file: { ref, path: file.path } })}</div>`
  }
  return codeTable(highlightLines(file.blobId, file.path, text))
}

const blobPage: ProjectPage = async ({ req, reply, visit, loaded, rest }: ProjectPageRequest) => {
  if (!canOnProject(req.actor, loaded, 'download_code')) return sendNotFound(reply, visit)
  const repo = req.ingot.repositories.open(loaded.project.id)
  const target = await refAndPath(repo, rest)
  if (target === null || target.path === '') return sendNotFound(reply, visit)
  const { ref, commit, path } = target
  const lookup = await findFileAtRef(repo, commit, path)
  if ('missing' in lookup) {
    // A directory's blob URL shows the directory, as the original's does.
    const info = await repo.info(`${commit}:${path}`)
    return info?.type === 'tree' ? redirect(reply, visit, pageUrl(loaded, 'tree', ref, path)) : sendNotFound(reply, visit)
  }
  const file = lookup.found
  const [last, onBranch] = await Promise.all([repo.readCommit(file.lastCommitId), repo.resolveCommit(`${BRANCH_PREFIX}${ref}`)])
  // Files are edited on a branch, by those who may push to the project.
  const canEdit = onBranch !== null && canOnProject(req.actor, loaded, 'push_code') && file.data !== null && !looksBinary(file.data)
  const rawUrl = pageUrl(loaded, 'raw', ref, path)
  const name = path.slice(path.lastIndexOf('/') + 1)
  const content = fileContent(loaded, ref, file, rawUrl)
  const markup = page({ title: `${path} · ${loaded.project.name}`, user: visit.session?.user ?? null, wide: true }, projectChrome(req.actor, loaded, 'files', html`
<h1>${name}</h1>
${refSwitcher(loaded, 'blob', ref, path)}
${breadcrumbs(loaded, ref, path)}
${last === null ? '' : commitSummary(loaded, last)}
<div class="box">
<header><span class="muted">${humanSize(file.size)}</span>
<ul class="actions">${canEdit ? html`<li><a href="${projectUrl(loaded)}/edit/${encodePath(ref)}/${encodePath(path)}">Edit</a></li>` : ''}<li><a href="${rawUrl}">Raw</a></li><li><a href="${pageUrl(loaded, 'blame', ref, path)}">Blame</a></li><li><a href="${pageUrl(loaded, 'commits', ref, path)}">History</a></li><li><a href="${pageUrl(loaded, 'blob', commit, path)}">Permalink</a></li></ul></header>
${Buffer.isBuffer(content) ? new SafeHtml(FILE_CONTENT) : content}
</div>`))
  return sendPage(reply, visit, 200, Buffer.isBuffer(content) ? pageAround(markup, FILE_CONTENT, [content]) : markup)
}

export default blobPage
