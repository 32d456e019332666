// Changes as the commit, compare and merge request pages show them: the repository engine's diff
// entries (git/diff.ts, bounded as the original bounds them) drawn file by file, each with its
// header (paths, new/deleted/renamed, added and removed line counts, a link to the file) and a
// table of its hunks with the old and new line numbers, each line anchored and highlighted on the
// server. Each side of a file is highlighted as one text (so a comment or string spanning lines
// stays one token), and a file's rows are kept by the commits it lies between: they never change.
// A page may put markup under lines (a merge request's discussions, a comment form): only the files
// it names are joined again around it, from their kept rows.
import { isFullObjectId } from '../git/command.js'
import { diffCommits, type DiffCollection, type DiffEntry } from '../git/diff.js'
import type { GitRepository } from '../git/repository.js'
import { SafeHtml, escapeHtml, html } from './html.js'
import type { PageParts } from './visit.js'
import { highlightCode, languageForPath, splitHighlightedLines } from './highlight.js'
import { WeightedLru } from '../common/weighted-lru.js'

export interface DiffSides {
  /** The commit the changes start from (null: the empty tree, for a root commit). */
  from: string | null
  /** The commit they lead to. */
  to: string
}

// Weighed in characters of the diffs' text; the diff between two commit ids never changes.
const collections = new WeightedLru<DiffCollection>(32 * 1024 * 1024, (collection) => collection.diffs.reduce((sum, entry) => sum + entry.diff.length + 256, 0))

/**
 * The diff between two commits as git/diff.ts reads it, kept while the commits are named by their
 * ids: a commit's or a merge request's changes are shown again and again, and reading them is two
 * git processes each time.
 */
export async function diffBetween(repo: GitRepository, from: string | null, to: string): Promise<DiffCollection> {
  if (!isFullObjectId(to) || (from !== null && !isFullObjectId(from))) return diffCommits(repo, from, to)
  const key = `${repo.gitDir}\0${from ?? ''}\0${to}`
  const cached = collections.get(key)
  if (cached !== undefined) return cached
  const collection = await diffCommits(repo, from, to)
  collections.set(key, collection)
  return collection
}

export interface RenderedDiffs {
  /** The list of files (a table of contents) and each file's section. */
  markup: SafeHtml
  additions: number
  deletions: number
}

type LineKind = 'context' | 'add' | 'remove' | 'note'

interface DiffLine {
  kind: LineKind
  oldNumber: number | null
  newNumber: number | null
  /** Index of the line's text among its side's lines (the old side for removed lines, the new side otherwise). */
  sideIndex: number
}

interface ParsedFile {
  hunks: { header: string; lines: DiffLine[] }[]
  oldLines: string[]
  newLines: string[]
  additions: number
  deletions: number
  binary: boolean
}

const HUNK_HEADER = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@(.*)$/

/** A file's unified diff (from its `---` line) read into hunks, with each side's lines apart for highlighting. */
function parseFileDiff(diff: string): ParsedFile {
  const parsed: ParsedFile = { hunks: [], oldLines: [], newLines: [], additions: 0, deletions: 0, binary: diff.startsWith('Binary files ') }
  if (parsed.binary) return parsed
  let oldNumber = 0
  let newNumber = 0
  let hunk: ParsedFile['hunks'][number] | null = null
  for (const line of diff.split('\n')) {
    const header = HUNK_HEADER.exec(line)
    if (header !== null) {
      oldNumber = Number(header[1])
      newNumber = Number(header[2])
      hunk = { header: line, lines: [] }
      parsed.hunks.push(hunk)
      continue
    }
    if (hunk === null) continue
    const marker = line[0]
    const text = line.slice(1)
    if (marker === '+') {
      hunk.lines.push({ kind: 'add', oldNumber: null, newNumber: newNumber++, sideIndex: parsed.newLines.push(text) - 1 })
      parsed.additions += 1
    } else if (marker === '-') {
      hunk.lines.push({ kind: 'remove', oldNumber: oldNumber++, newNumber: null, sideIndex: parsed.oldLines.push(text) - 1 })
      parsed.deletions += 1
    } else if (marker === ' ') {
      parsed.oldLines.push(text)
      hunk.lines.push({ kind: 'context', oldNumber: oldNumber++, newNumber: newNumber++, sideIndex: parsed.newLines.push(text) - 1 })
    } else if (marker === '\\') {
      hunk.lines.push({ kind: 'note', oldNumber: null, newNumber: null, sideIndex: -1 })
    }
  }
  return parsed
}

/** A side's lines as markup, highlighted as the file's language when it has one. */
function sideMarkup(lines: readonly string[], path: string): string[] {
  const language = languageForPath(path)
  const highlighted = language === undefined || lines.length === 0 ? null : highlightCode(lines.join('\n'), language)
  if (highlighted === null) return lines.map(escapeHtml)
  const split = splitHighlightedLines(highlighted.markup)
  return split.length === lines.length ? split : lines.map(escapeHtml)
}

const ROW_CLASS: Readonly<Record<LineKind, string>> = { context: '', add: ' class="add"', remove: ' class="remove"', note: ' class="note"' }

/** A table row's line numbers (null for a hunk header or a "no newline" note). */
type RowLines = readonly [number | null, number | null] | null

interface FileRows {
  rows: string[]
  lines: RowLines[]
}

function tableOf(rows: readonly string[]): string {
  return `<div class="blob-wrap"><table class="code diff"><tbody>${rows.join('')}</tbody></table></div>`
}

/**
 * A file's hunks as table rows, each line anchored `#<file anchor>_<old>_<new>` as the original's
 * line codes are; with `commentLinks` its numbers link to `?line_code=<that id>`, where a page can
 * open a comment form under the line. The + and - of added and removed lines are drawn by the stylesheet from the rows'
 * classes, so they are neither sent with every line nor copied with the code. ASCII only: one
 * character outside Latin-1 anywhere in a page makes V8 hold all of it as two-byte text, which
 * doubles what a large diff costs to send.
 */
function fileRows(entry: DiffEntry, parsed: ParsedFile, anchor: string, commentLinks: boolean): FileRows {
  const oldMarkup = sideMarkup(parsed.oldLines, entry.old_path)
  const newMarkup = sideMarkup(parsed.newLines, entry.new_path)
  const rows: string[] = []
  const lines: RowLines[] = []
  for (const hunk of parsed.hunks) {
    rows.push(`<tr class="hunk"><td class="line-number"><td class="line-number"><td>${escapeHtml(hunk.header)}`)
    lines.push(null)
    for (const line of hunk.lines) {
      if (line.kind === 'note') {
        rows.push('<tr class="note"><td class="line-number"><td class="line-number"><td>\\ No newline at end of file')
        lines.push(null)
        continue
      }
      const id = `${anchor}_${line.oldNumber ?? ''}_${line.newNumber ?? ''}`
      const href = commentLinks ? `?line_code=${id}#${id}` : `#${id}`
      const code = line.kind === 'remove' ? oldMarkup[line.sideIndex] : newMarkup[line.sideIndex]
      rows.push(`<tr id="${id}"${ROW_CLASS[line.kind]}><td class="line-number">${line.oldNumber === null ? '' : `<a href="${href}">${line.oldNumber}</a>`}<td class="line-number">${line.newNumber === null ? '' : `<a href="${href}">${line.newNumber}</a>`}<td>${code ?? ''}`)
      lines.push([line.oldNumber, line.newNumber])
    }
  }
  return { rows, lines }
}

interface RenderedFile {
  body: string
  /** The body as UTF-8, made once when a page sends it as bytes (renderDiffParts). */
  bytes?: Buffer
  /** The table's rows and their line numbers, for a page that puts markup under some lines; null when the file has no table. */
  table: FileRows | null
  additions: number
  deletions: number
}

/** Markup a page puts under lines of the files it names (a merge request's discussions, a comment form). */
export interface LineAnnotations {
  /** Line numbers link to `?line_code=<line's id>#<line's id>` (the merge request's Changes tab). */
  commentLinks: boolean
  /** Whether the file (at its index among the diffs) has markup under any line; only those files are joined again. */
  touches(entry: DiffEntry, index: number): boolean
  /** The markup under a line of a file it touches, or null; `id` is the line's anchor. */
  below(entry: DiffEntry, line: { id: string; oldNumber: number | null; newNumber: number | null }): SafeHtml | null
}

/** The file's table with the annotations' markup as a full-width row under the lines they name. */
function annotatedTable(entry: DiffEntry, table: FileRows, anchor: string, annotations: LineAnnotations): string {
  const rows: string[] = []
  table.rows.forEach((row, i) => {
    rows.push(row)
    const numbers = table.lines[i]
    if (numbers === null || numbers === undefined) return
    const [oldNumber, newNumber] = numbers
    const extra = annotations.below(entry, { id: `${anchor}_${oldNumber ?? ''}_${newNumber ?? ''}`, oldNumber, newNumber })
    if (extra !== null) rows.push(`<tr class="line-discussion"><td colspan="3">${extra.markup}`)
  })
  return tableOf(rows)
}

// Weighed in characters of markup; a file between two commits renders the same forever.
// The rows and the bytes are counted too: they are kept besides the joined body.
const renderedFiles = new WeightedLru<RenderedFile>(16 * 1024 * 1024, (file) => file.body.length * 3 + 64)

function renderFile(entry: DiffEntry, sides: DiffSides, anchor: string, blobUrl: (path: string) => string, commentLinks: boolean): RenderedFile {
  const key = `${sides.from ?? ''}..${sides.to}\0${entry.old_path}\0${entry.new_path}\0${anchor}\0${entry.too_large}\0${entry.collapsed}\0${commentLinks}`
  const cached = renderedFiles.get(key)
  if (cached !== undefined) return cached
  const parsed = parseFileDiff(entry.diff)
  const link = entry.deleted_file ? '' : html` <a href="${blobUrl(entry.new_path)}">View the file</a>`.markup
  let body: string
  let table: FileRows | null = null
  if (entry.too_large || entry.collapsed) body = `<p class="content muted">This diff is too large to show here.${link}</p>`
  else if (parsed.binary) body = `<p class="content muted">Binary file changed.${link}</p>`
  else if (parsed.hunks.length === 0) body = `<p class="content muted">${entry.renamed_file ? 'File moved without changes.' : entry.a_mode !== entry.b_mode ? 'File mode changed.' : 'No changes to show.'}</p>`
  else {
    table = fileRows(entry, parsed, anchor, commentLinks)
    body = tableOf(table.rows)
  }
  const file = { body, table, additions: parsed.additions, deletions: parsed.deletions }
  renderedFiles.set(key, file)
  return file
}

function fileState(entry: DiffEntry): SafeHtml {
  if (entry.new_file) return html`<span class="badge">new file</span>`
  if (entry.deleted_file) return html`<span class="badge">deleted</span>`
  if (entry.renamed_file) return html`<span class="badge">renamed</span>`
  return html``
}

interface DiffPieces {
  /** The counts, the notice of left-out files and the list of files. */
  summary: SafeHtml
  /** Each file's section in order: its opening and header, its body (the kept bytes with `asBytes`), its end. */
  sections: (string | Buffer)[]
  additions: number
  deletions: number
}

function diffPieces(
  diffs: readonly DiffEntry[], sides: DiffSides, blobUrl: (path: string) => string, overflow: boolean, annotations: LineAnnotations | undefined, asBytes: boolean,
): DiffPieces {
  let additions = 0
  let deletions = 0
  const sections: (string | Buffer)[] = []
  const index: SafeHtml[] = []
  diffs.forEach((entry, i) => {
    const anchor = `diff-${i}`
    const file = renderFile(entry, sides, anchor, blobUrl, annotations?.commentLinks ?? false)
    const annotated = file.table !== null && annotations?.touches(entry, i) === true ? annotatedTable(entry, file.table, anchor, annotations) : null
    const body = annotated ?? (asBytes ? (file.bytes ??= Buffer.from(file.body)) : file.body)
    additions += file.additions
    deletions += file.deletions
    const name = entry.renamed_file ? `${entry.old_path} → ${entry.new_path}` : entry.new_path
    index.push(html`<li><a href="#${anchor}">${name}</a> <span class="additions">+${file.additions}</span> <span class="deletions">-${file.deletions}</span></li>`)
    sections.push(html`<section class="box diff-file" id="${anchor}" aria-label="${name}">
<header><h3 class="mono">${name}</h3><span>${fileState(entry)} <span class="additions">+${file.additions}</span> <span class="deletions">-${file.deletions}</span>${entry.deleted_file ? '' : html` <a href="${blobUrl(entry.new_path)}">View file</a>`}</span></header>
`.markup, body, '</section>')
  })
  const summary = html`<p>${diffs.length} ${diffs.length === 1 ? 'file' : 'files'} changed, <span class="additions">${additions} additions</span>, <span class="deletions">${deletions} deletions</span></p>
${overflow ? html`<p class="notice">Too many changes to show them all: some files are left out.</p>` : ''}
${diffs.length === 0 ? '' : html`<details class="diff-index"><summary>Files</summary><ol>${index}</ol></details>`}
`
  return { summary, sections, additions, deletions }
}

/**
 * The changes between two commits as a list of files and a section per file. `blobUrl` names a
 * file's page at the new side; `overflow` says the collection stopped at its limits, which the
 * page tells rather than hiding; `annotations` put a page's markup under lines.
 */
export function renderDiffs(diffs: readonly DiffEntry[], sides: DiffSides, blobUrl: (path: string) => string, overflow: boolean, annotations?: LineAnnotations): RenderedDiffs {
  const { summary, sections, additions, deletions } = diffPieces(diffs, sides, blobUrl, overflow, annotations, false)
  return { markup: html`${summary}${new SafeHtml(sections.join(''))}`, additions, deletions }
}

/**
 * The same changes for a page sent in parts (sendPage with PageParts): the summary as markup, and
 * the files' sections as pieces whose kept bodies are sent as their bytes, never joined into the page.
 */
export function renderDiffParts(
  diffs: readonly DiffEntry[], sides: DiffSides, blobUrl: (path: string) => string, overflow: boolean, annotations?: LineAnnotations,
): { summary: SafeHtml; sections: PageParts } {
  const { summary, sections } = diffPieces(diffs, sides, blobUrl, overflow, annotations, true)
  return { summary, sections }
}
