// What the issue and merge request pages share: people, labels and dates as links and chips, the
// state tabs and pages of a list, the discussion (notes in order, system notes as small lines),
// and the comment form with its preview, which works without JavaScript: its Preview button sends
// the form back to the page, which shows the text rendered above the kept text.
import type { LoadedProject } from '../../api/load.js'
import type { LabelRow, UserRow } from '../../db/schema.js'
import type { Db } from '../../db/index.js'
import type { NoteView } from '../../entities/note.js'
import { availableLabelsTitled } from '../../services/labels/issuable-labels.js'
import { csrfField, html, type SafeHtml } from '../html.js'
import { renderMarkdown } from '../markdown.js'
import { encodePath, projectUrl, type ProjectPageRequest } from './context.js'
import { findUserByUsername } from '../../finders/users-finder.js'

/** A merge request's state as the pages name it. */
export const MERGE_REQUEST_STATES: Readonly<Record<string, string>> = { opened: 'Open', merged: 'Merged', closed: 'Closed', locked: 'Merging' }

/** A query parameter's single value ('' when absent). */
export function queryValue(request: ProjectPageRequest, name: string): string {
  const value = (request.req.query as Record<string, unknown>)[name]
  return typeof value === 'string' ? value : ''
}

/** A query parameter's values (`label_name[]=a&label_name[]=b`), empty ones left out. */
export function queryList(request: ProjectPageRequest, name: string): string[] {
  const value = (request.req.query as Record<string, unknown>)[name]
  return (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string' && v !== '')
}

/** The user a username filter names; an unknown name filters everything out (id 0 matches nobody). */
export async function userIdFilter(request: ProjectPageRequest, username: string): Promise<number | undefined> {
  if (username === '') return undefined
  return (await findUserByUsername(request.req.ingot.db, username))?.id ?? 0
}

/** A moment as a page shows it: the date, with the exact time for machines and on hover. */
export function timeOf(epochMs: number): SafeHtml {
  const iso = new Date(epochMs).toISOString()
  return html`<time datetime="${iso}" title="${iso.slice(0, 16).replace('T', ' ')} UTC">${iso.slice(0, 10)}</time>`
}

export function userLink(user: Pick<UserRow, 'username' | 'name'>): SafeHtml {
  return html`<a href="/${encodePath(user.username)}">${user.name}</a>`
}

/** A text of the project (a description, a note) rendered as its Markdown, references linked. */
export function projectMarkdown(loaded: LoadedProject, text: string): SafeHtml {
  return renderMarkdown(text, { baseUrl: '', projectFullPath: `${loaded.namespace.full_path}/${loaded.project.path}` })
}

/** The project's (and its groups') labels with these titles, by title: their colours for the chips. */
export async function labelsByTitle(db: Db, projectId: number, titles: Iterable<string>): Promise<Map<string, LabelRow>> {
  const rows = await availableLabelsTitled(db, projectId, [...new Set(titles)])
  // Project labels come first: they win over a group's label of the same title.
  const byTitle = new Map<string, LabelRow>()
  for (const row of rows) if (!byTitle.has(row.title)) byTitle.set(row.title, row)
  return byTitle
}

/**
 * Label chips linking to the list of what carries the label. The CSP allows no inline style, so a
 * chip's colour is a class of the few the stylesheet knows only when it is one of them; otherwise
 * the chip is drawn plain with a colour swatch as an SVG data image, which the CSP allows.
 */
export function labelChips(loaded: LoadedProject, listPage: 'issues' | 'merge_requests', titles: readonly string[], labels: ReadonlyMap<string, LabelRow>): SafeHtml {
  if (titles.length === 0) return html``
  return html`<ul class="labels">${titles.map((title) => {
    const colour = labels.get(title)?.color ?? '#428bca'
    const swatch = `data:image/svg+xml,${encodeURIComponent(`<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10" rx="2" fill="${/^#[0-9a-f]{3,6}$/i.test(colour) ? colour : '#428bca'}"/></svg>`)}`
    return html`<li><a class="label" href="${projectUrl(loaded)}/${listPage}?${new URLSearchParams({ 'label_name[]': title }).toString()}"><img src="${swatch}" alt="" width="10" height="10"> ${title}</a></li>`
  })}</ul>`
}

export interface StateTab {
  state: string
  label: string
  count: number
}

/** The tabs of a list by state (Open, Closed, All…), each with its count, keeping the other filters. */
export function stateTabs(baseUrl: string, query: URLSearchParams, tabs: readonly StateTab[], current: string): SafeHtml {
  return html`<nav aria-label="State"><ul class="actions state-tabs">${tabs.map((tab) => {
    const params = new URLSearchParams(query)
    params.set('state', tab.state)
    params.delete('page')
    return html`<li><a href="${baseUrl}?${params.toString()}"${tab.state === current ? html` aria-current="page"` : ''}>${tab.label} <span class="count">${tab.count}</span></a></li>`
  })}</ul></nav>`
}

/** Links to the previous and next pages of a list, keeping its filters. */
export function pageLinks(baseUrl: string, query: URLSearchParams, page: number, perPage: number, total: number): SafeHtml {
  const to = (number: number) => {
    const params = new URLSearchParams(query)
    params.set('page', String(number))
    return `${baseUrl}?${params.toString()}`
  }
  const last = Math.max(1, Math.ceil(total / perPage))
  if (last === 1) return html``
  return html`<nav class="actions" aria-label="Pages">${page > 1 ? html`<a href="${to(page - 1)}" rel="prev">Previous</a>` : ''}<span class="muted">Page ${page} of ${last}</span>${page < last ? html`<a href="${to(page + 1)}" rel="next">Next</a>` : ''}</nav>`
}

/** The discussion of an issue or merge request: its notes oldest first, each anchored `#note_<id>`. */
export function notesList(loaded: LoadedProject, notes: readonly NoteView[]): SafeHtml {
  if (notes.length === 0) return html`<p class="muted">No comments yet.</p>`
  return html`<ol class="notes">${notes.map(({ note, author }) => note.system === 1
    ? html`<li class="system-note" id="note_${note.id}">${userLink(author)} <span class="muted">${note.body} · ${timeOf(note.created_at)}</span></li>`
    : html`<li class="note" id="note_${note.id}"><article aria-label="Comment by ${author.name}">
<header>${userLink(author)} <span class="muted">@${author.username} · <a href="#note_${note.id}">${timeOf(note.created_at)}</a></span></header>
<div class="markdown">${projectMarkdown(loaded, note.body)}</div></article></li>`)}</ol>`
}

export interface CommentFormInput {
  /** Where the form posts: `…/issues/:iid/notes`. */
  action: string
  csrfToken: string
  /** The text kept after a Preview or a refused comment. */
  text?: string
  /** Set after Preview: the text rendered. */
  preview?: SafeHtml | null
}

/** The comment form: a Markdown text with a Comment button and a Preview button (no script needed). */
export function commentForm(input: CommentFormInput): SafeHtml {
  return html`<form class="comment-form" method="post" action="${input.action}">
${csrfField(input.csrfToken)}
${input.preview === undefined || input.preview === null ? '' : html`<section class="preview" aria-labelledby="preview-title"><h3 id="preview-title">Preview</h3><div class="markdown">${input.preview}</div></section>`}
<label for="note_note">Comment</label>
<textarea id="note_note" name="note[note]" rows="5" placeholder="Write a comment in Markdown">${input.text ?? ''}</textarea>
<div class="actions"><button type="submit">Comment</button><button type="submit" name="preview" value="1">Preview</button></div>
</form>`
}
