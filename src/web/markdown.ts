// GitLab-flavoured Markdown as release 11.5 renders it, as far as markdown-it and its plugins go:
// CommonMark with inline HTML, tables, strikethrough, task lists, fenced code highlighted on the
// server, autolinks, emoji shortcodes, heading anchors, and references (`#12`, `!3`, `@user`,
// `~label`, `%milestone`, commit SHAs, `group/project#12`) linked by their shape alone: nothing is
// looked up, so a reference reveals nothing of what it names, and one to something that does not
// exist or cannot be seen leads to the same 404 as any other URL. Relative links in a repository's
// files and wiki pages point at the project's blob, raw and wiki URLs. The HTML then goes through a
// sanitizer that keeps only what Markdown makes plus GFM's harmless inline HTML, with no URL scheme
// that runs code and nothing a strict Content-Security-Policy would have to block (no style
// attributes, no event handlers).

import { createRequire } from 'node:module'
import type MarkdownIt from 'markdown-it'
import type { StateCore, Token } from 'markdown-it'
import type sanitizeHtml from 'sanitize-html'
import { highlightCode } from './highlight.js'
import { escapeHtml, SafeHtml } from './html.js'
import { WeightedLru } from '../common/weighted-lru.js'

export interface MarkdownContext {
  /** What every link the renderer makes starts with: the external URL, or '' for paths only. */
  baseUrl: string
  /** The project whose `#12`, `!3`, `~label`, `%milestone` and SHAs the text means; none outside a project. */
  projectFullPath?: string
  /** A file of the project's repository (README, a `.md` file): relative links resolve against its folder at this ref. */
  file?: { ref: string; path: string }
  /** A page of the project's wiki: relative links name other pages of it. */
  wiki?: boolean
}

const MARKDOWN_EXTENSIONS = /\.(?:md|markdown|mdown|mkd|mkdn)$/i

/** Whether a repository file is Markdown, which pages render rather than show as code. */
export function isMarkdownFile(path: string): boolean {
  return MARKDOWN_EXTENSIONS.test(path)
}

// Weighed in characters of both the key (which holds the text) and the HTML.
const rendered = new WeightedLru<SafeHtml>(16 * 1024 * 1024, (html, key) => html.markup.length + key.length)

/** A text's HTML; the same text in the same context renders from a cache (a 200-comment issue shown again costs lookups only). */
export function renderMarkdown(text: string, context: MarkdownContext): SafeHtml {
  const key = `${context.baseUrl}\0${context.projectFullPath ?? ''}\0${context.file?.ref ?? ''}\0${context.file?.path ?? ''}\0${context.wiki === true}\0${text}`
  const cached = rendered.get(key)
  if (cached !== undefined) return cached
  const { markdown, sanitizeHtml } = loadedEngine()
  const html = markdown.render(text, { context, headingIds: new Map(), linkedReferences: 0 } satisfies RenderEnv)
  const safe = new SafeHtml(sanitizeHtml(html, sanitizeOptions(context)))
  rendered.set(key, safe)
  return safe
}

interface RenderEnv {
  context: MarkdownContext
  /** How many headings of the document took each id so far, to number the repeats. */
  headingIds: Map<string, number>
  /** How many references were linked so far (not `references`: markdown-it keeps link definitions there). */
  linkedReferences: number
}

// markdown-it, its emoji plugin and the sanitizer (with postcss and htmlparser2) are loaded at the
// first render, from their CommonJS builds, not at start: an API server never holds them (their
// modules, the emoji and autolink patterns: a few MB of heap). They load synchronously, so
// rendering stays a plain function.
const requireCommonJs = createRequire(import.meta.url)

interface Engine {
  markdown: MarkdownIt
  sanitizeHtml: typeof sanitizeHtml
}

let engine: Engine | null = null

// One instance for every render: configuring markdown-it (and the emoji plugin's pattern of every
// emoji name) costs far more than rendering a comment.
function loadedEngine(): Engine {
  if (engine !== null) return engine
  const MarkdownIt = requireCommonJs('markdown-it') as typeof import('markdown-it').default
  const { full: emoji } = requireCommonJs('markdown-it-emoji') as typeof import('markdown-it-emoji')
  const markdown = new MarkdownIt('default', {
    html: true,
    linkify: true,
    highlight: (code, language) => {
      const highlighted = language === '' ? null : highlightCode(code, language)
      return highlighted === null ? '' : `<pre class="code highlight"><code class="language-${escapeHtml(language)}">${highlighted.markup}</code></pre>`
    },
  })
  // Only URLs with a scheme and e-mail addresses are autolinked, as the original does: fuzzy links
  // would turn file names such as `main.rs` or `README.md` into links to web sites.
  markdown.linkify.set({ fuzzyLink: false, fuzzyEmail: true })
  // Shortcodes only: the original does not turn `:)` or `8-)` into emoji.
  markdown.use(emoji, { shortcuts: {} })
  markdown.core.ruler.after('inline', 'task_lists', markTaskLists)
  // Before text_join, so an escaped `\#12` (a separate token until then) stays text.
  markdown.core.ruler.before('text_join', 'references', linkReferences)
  markdown.core.ruler.push('heading_anchors', anchorHeadings)
  markdown.core.ruler.push('table_alignment', alignTableCellsByClass)
  markdown.renderer.rules['task_checkbox'] = (tokens, index) =>
    `<input type="checkbox" class="task-list-item-checkbox" disabled${tokens[index]!.meta?.['checked'] === true ? ' checked' : ''} aria-label="Task">`
  markdown.renderer.rules['heading_anchor'] = (tokens, index) => {
    const id = escapeHtml(tokens[index]!.content)
    // The original's anchor: the id is prefixed so user content cannot take the page's own ids, and
    // the visible link drops the prefix. It is kept out of the tab order and from screen readers,
    // which read the heading itself.
    return `<a id="user-content-${id}" class="anchor" href="#${id}" aria-hidden="true" tabindex="-1"></a>`
  }
  engine = { markdown, sanitizeHtml: requireCommonJs('sanitize-html') as typeof sanitizeHtml }
  return engine
}

// ---- task lists: `- [ ] todo` and `- [x] done` items get a disabled checkbox

const TASK_MARKER = /^\[([ xX])\](?=\s|$)\s?/

function markTaskLists(state: StateCore): void {
  const tokens = state.tokens
  for (let i = 2; i < tokens.length; i++) {
    const inline = tokens[i]!
    if (inline.type !== 'inline' || tokens[i - 1]!.type !== 'paragraph_open' || tokens[i - 2]!.type !== 'list_item_open') continue
    const first = inline.children?.[0]
    const marker = first?.type === 'text' ? TASK_MARKER.exec(first.content) : null
    if (first === undefined || marker === null) continue
    first.content = first.content.slice(marker[0].length)
    const checkbox = new state.Token('task_checkbox', 'input', 0)
    checkbox.meta = { checked: marker[1] !== ' ' }
    inline.children!.unshift(checkbox)
    tokens[i - 2]!.attrJoin('class', 'task-list-item')
    const list = enclosingListOpen(tokens, i - 2)
    if (list !== undefined && list.attrGet('class') === null) list.attrSet('class', 'task-list')
  }
}

function enclosingListOpen(tokens: Token[], itemIndex: number): Token | undefined {
  const level = tokens[itemIndex]!.level - 1
  for (let i = itemIndex - 1; i >= 0; i--) {
    const token = tokens[i]!
    if (token.level === level && (token.type === 'bullet_list_open' || token.type === 'ordered_list_open')) return token
  }
  return undefined
}

// ---- references, linked by shape

// A namespace or project path segment as the original allows them (it may not end with a dot).
const SEGMENT = String.raw`(?:[a-zA-Z0-9_.][a-zA-Z0-9_.-]{0,253}[a-zA-Z0-9_-]|[a-zA-Z0-9_])`
// A path of a namespace (groups nest at most 20 deep) and a project, for cross-project references.
const PROJECT = String.raw`${SEGMENT}(?:/${SEGMENT}){1,20}`
const SHA = '[0-9a-f]{7,40}'
// What may not come right before a reference: part of a word, a path, a URL or another reference.
const NOT_AFTER = String.raw`(?<![\w.\-/@~%#!&])`
const REFERENCE = new RegExp(NOT_AFTER + '(?:' + [
  String.raw`(?:(?<issuableProject>${PROJECT}))?(?<sigil>[#!])(?<iid>\d+)(?!\w)`,
  String.raw`(?:(?<commitProject>${PROJECT})@)?(?<sha>${SHA})(?:(?<dots>\.\.\.?)(?<toSha>${SHA}))?(?![\w]|[.\-/]\w)`,
  String.raw`@(?<user>${SEGMENT}(?:/${SEGMENT}){0,20})`,
  String.raw`(?:(?<labelProject>${PROJECT}))?~(?:"(?<quotedLabel>[^"\r\n]{1,255})"|(?<label>[A-Za-z0-9_\-?.&]{0,254}[A-Za-z0-9_\-?&]))`,
  String.raw`(?:(?<milestoneProject>${PROJECT}))?%(?:"(?<quotedMilestone>[^"\r\n]{1,255})"|(?<milestoneIid>\d+)(?!\w)|(?<milestone>[^"\s%<>]{0,254}\w))`,
].join('|') + ')', 'g')
// A quick test that spares the full pattern most text tokens.
const MAY_HOLD_REFERENCE = /[#!@~%]|[0-9a-f]{7}/

interface Reference {
  href: string
  className: string
  text: string
}

// Beyond this many, references stay text: a document made of nothing but references (300,000 of
// them in a megabyte) must not take seconds to render and sanitize.
const MAX_REFERENCES = 2000

function linkReferences(state: StateCore): void {
  const env = state.env as RenderEnv
  for (const block of state.tokens) {
    if (env.linkedReferences >= MAX_REFERENCES) return
    if (block.type !== 'inline' || block.children === null) continue
    let linkDepth = 0
    let htmlLinkDepth = 0
    let htmlCodeDepth = 0
    const children: Token[] = []
    for (const token of block.children) {
      if (token.type === 'link_open') linkDepth++
      else if (token.type === 'link_close') linkDepth--
      else if (token.type === 'html_inline') {
        // Inline HTML is a token per tag: text between <a …> and </a>, or <code> and </code>, is theirs.
        if (/^<a[\s>]/i.test(token.content)) htmlLinkDepth++
        else if (/^<\/a\s*>/i.test(token.content)) htmlLinkDepth = Math.max(0, htmlLinkDepth - 1)
        else if (/^<(?:code|pre|kbd|samp)[\s>]/i.test(token.content)) htmlCodeDepth++
        else if (/^<\/(?:code|pre|kbd|samp)\s*>/i.test(token.content)) htmlCodeDepth = Math.max(0, htmlCodeDepth - 1)
      } else if (token.type === 'text' && linkDepth === 0 && htmlLinkDepth === 0 && htmlCodeDepth === 0 && MAY_HOLD_REFERENCE.test(token.content)) {
        for (const piece of splitReferences(token.content, env, state)) children.push(piece)
        continue
      }
      children.push(token)
    }
    block.children = children
  }
}

/** A text token's text as text and link tokens, one link per reference in it. */
function splitReferences(text: string, env: RenderEnv, state: StateCore): Token[] {
  const tokens: Token[] = []
  let from = 0
  const textToken = (content: string) => {
    const token = new state.Token('text', '', 0)
    token.content = content
    return token
  }
  for (const match of text.matchAll(REFERENCE)) {
    if (env.linkedReferences >= MAX_REFERENCES) break
    const reference = referenceOf(match.groups!, match[0], env.context)
    if (reference === null) continue
    if (match.index > from) tokens.push(textToken(text.slice(from, match.index)))
    const open = new state.Token('link_open', 'a', 1)
    open.attrs = [['href', reference.href], ['class', reference.className]]
    tokens.push(open, textToken(reference.text), new state.Token('link_close', 'a', -1))
    from = match.index + match[0].length
    env.linkedReferences++
  }
  if (from === 0) return [textToken(text)]
  if (from < text.length) tokens.push(textToken(text.slice(from)))
  return tokens
}

function referenceOf(groups: Record<string, string | undefined>, written: string, context: MarkdownContext): Reference | null {
  const base = context.baseUrl
  const user = groups['user']
  if (user === 'all') {
    // Everyone in the project, as the original: its members page (no user may be called `all`).
    return context.projectFullPath === undefined ? null : { href: `${base}/${context.projectFullPath}/project_members`, className: 'gfm gfm-project_member', text: written }
  }
  if (user !== undefined) return { href: `${base}/${user}`, className: 'gfm gfm-project_member', text: written }
  const projectPath = groups['issuableProject'] ?? groups['commitProject'] ?? groups['labelProject'] ?? groups['milestoneProject'] ?? context.projectFullPath
  if (projectPath === undefined) return null
  const project = `${base}/${projectPath}`
  if (groups['iid'] !== undefined) {
    return groups['sigil'] === '#'
      ? { href: `${project}/issues/${groups['iid']}`, className: 'gfm gfm-issue', text: written }
      : { href: `${project}/merge_requests/${groups['iid']}`, className: 'gfm gfm-merge_request', text: written }
  }
  const sha = groups['sha']
  if (sha !== undefined) {
    const toSha = groups['toSha']
    if (!looksLikeSha(sha) || (toSha !== undefined && !looksLikeSha(toSha))) return null
    if (toSha !== undefined) {
      // `a..b` leaves a out as git does, which the compare page spells `a^...b`.
      const from = groups['dots'] === '..' ? `${sha}^` : sha
      return { href: `${project}/compare/${from}...${toSha}`, className: 'gfm gfm-commit_range', text: written }
    }
    // The original shows a commit by its short id, eight characters.
    const prefix = groups['commitProject'] === undefined ? '' : `${groups['commitProject']}@`
    return { href: `${project}/commit/${sha}`, className: 'gfm gfm-commit', text: prefix + sha.slice(0, 8) }
  }
  const label = groups['quotedLabel'] ?? groups['label']
  if (label !== undefined) {
    // `~12` names a label by its id, which only a lookup could turn into the name the list filters by.
    if (groups['label'] !== undefined && /^\d+$/.test(label)) return null
    return { href: `${project}/issues?label_name=${encodeURIComponent(label)}`, className: 'gfm gfm-label', text: written }
  }
  if (groups['milestoneIid'] !== undefined) return { href: `${project}/milestones/${groups['milestoneIid']}`, className: 'gfm gfm-milestone', text: written }
  const milestone = groups['quotedMilestone'] ?? groups['milestone']
  if (milestone !== undefined) return { href: `${project}/milestones?title=${encodeURIComponent(milestone)}`, className: 'gfm gfm-milestone', text: written }
  return null
}

/**
 * Hex that stands alone is taken for a commit only with both a digit and a letter in it: numbers
 * (dates, phone numbers) and words (`deadbeef`, `facade`) are left alone, and a real abbreviated
 * SHA lacks either only rarely.
 */
function looksLikeSha(hex: string): boolean {
  return /\d/.test(hex) && /[a-f]/.test(hex)
}

// ---- heading anchors, with the original's ids

// What the original strips from a heading's text to make its id: all but letters, marks, digits,
// connector punctuation, hyphens and spaces.
const NOT_IN_HEADING_ID = /[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu

function anchorHeadings(state: StateCore): void {
  const env = state.env as RenderEnv
  const tokens = state.tokens
  for (let i = 0; i < tokens.length - 1; i++) {
    if (tokens[i]!.type !== 'heading_open') continue
    const inline = tokens[i + 1]!
    if (inline.children === null || inline.children.length === 0) continue
    const id = headingId(inline.children)
    const repeats = env.headingIds.get(id) ?? 0
    env.headingIds.set(id, repeats + 1)
    const anchor = new state.Token('heading_anchor', 'a', 0)
    anchor.content = repeats > 0 ? `${id}-${repeats}` : id
    inline.children.unshift(anchor)
  }
}

function headingId(children: Token[]): string {
  const text = children.map((token) => (token.type === 'text' || token.type === 'code_inline' || token.type === 'emoji' ? token.content : '')).join('')
  const id = text.trim().toLowerCase().replace(NOT_IN_HEADING_ID, '').replace(/ /g, '-').replace(/-{2,}/g, '-')
  // Digits alone would read as an issue reference in a URL's fragment.
  return /^\d+$/.test(id) ? `anchor-${id}` : id
}

// ---- table cell alignment as classes, since a strict CSP blocks style attributes

function alignTableCellsByClass(state: StateCore): void {
  for (const token of state.tokens) {
    if (token.type !== 'th_open' && token.type !== 'td_open') continue
    const alignment = /^text-align:(left|center|right)$/.exec(token.attrGet('style') ?? '')
    if (alignment === null) continue
    token.attrs = (token.attrs ?? []).filter(([name]) => name !== 'style')
    token.attrSet('class', `text-${alignment[1]}`)
  }
}

// ---- links: relative ones resolved, external ones marked

const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:/i

/** Where a link or image of the text points, with the context's rules for relative URLs. */
export function resolveUrl(url: string, context: MarkdownContext, kind: 'link' | 'image'): string {
  if (url === '' || url.startsWith('#') || url.startsWith('//') || HAS_SCHEME.test(url)) return url
  const project = context.projectFullPath
  if (project === undefined) return url
  if (url.startsWith('/uploads/')) return `${context.baseUrl}/${project}${url}`
  if (context.wiki === true) return url.startsWith('/') ? url : `${context.baseUrl}/${project}/wikis/${url}`
  const file = context.file
  if (file === undefined) return url
  const split = /^([^?#]*)(.*)$/s.exec(url)!
  const path = split[1]!
  const suffix = split[2]!
  const folder = file.path.includes('/') ? file.path.slice(0, file.path.lastIndexOf('/')) : ''
  const resolved = normalizePath(path.startsWith('/') ? path : `${folder}/${path}`)
  const view = kind === 'image' ? 'raw' : path.endsWith('/') ? 'tree' : 'blob'
  const ref = file.ref.split('/').map(encodeURIComponent).join('/')
  return `${context.baseUrl}/${project}/${view}/${ref}/${resolved}${suffix}`
}

/** A repository path with `.` and `..` worked out (never above the root) and no empty segments. */
function normalizePath(path: string): string {
  const segments: string[] = []
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue
    if (segment === '..') segments.pop()
    else segments.push(segment)
  }
  return segments.join('/') + (path.endsWith('/') && segments.length > 0 ? '/' : '')
}

function isExternal(href: string, baseUrl: string): boolean {
  if (!href.startsWith('//') && !/^https?:/i.test(href)) return false
  if (baseUrl !== '' && href.startsWith(`${baseUrl}/`)) return false
  try {
    const base = baseUrl === '' ? null : new URL(baseUrl)
    const target = new URL(href, base ?? 'http://relative.invalid')
    return base === null || target.host !== base.host
  } catch {
    return true
  }
}

// ---- the sanitizer's allowlist

const EXTERNAL_LINK_REL = 'nofollow noreferrer noopener'

const ALLOWED_TAGS = [
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'br', 'hr', 'blockquote', 'pre', 'code', 'kbd', 'samp', 'var', 'tt',
  'b', 'i', 'strong', 'em', 's', 'strike', 'del', 'ins', 'sub', 'sup', 'mark', 'small', 'abbr', 'cite', 'dfn', 'q',
  'span', 'div', 'a', 'img', 'ul', 'ol', 'li', 'dl', 'dt', 'dd', 'table', 'thead', 'tbody', 'tfoot', 'tr', 'th', 'td',
  'caption', 'details', 'summary', 'figure', 'figcaption', 'ruby', 'rt', 'rp', 'wbr', 'time', 'bdo', 'input',
]

const BASE_SANITIZE_OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: ALLOWED_TAGS,
  allowedAttributes: {
    '*': ['id', 'title', 'lang', 'dir'],
    a: ['href', 'class', 'rel', { name: 'aria-hidden', multiple: false, values: ['true'] }, { name: 'tabindex', multiple: false, values: ['-1'] }],
    img: ['src', 'alt', 'width', 'height'],
    pre: ['class'],
    code: ['class'],
    span: ['class'],
    ul: ['class'],
    ol: ['class', 'start'],
    li: ['class'],
    th: ['class', 'colspan', 'rowspan'],
    td: ['class', 'colspan', 'rowspan'],
    details: ['open'],
    time: ['datetime'],
    input: ['type', 'class', 'checked', 'disabled', 'aria-label'],
  },
  allowedClasses: {
    a: ['gfm', 'gfm-*', 'anchor'],
    pre: ['code', 'highlight'],
    code: ['language-*'],
    // highlight.js's token classes, and its sub-scope classes such as `class_` and `function_`.
    span: ['hljs-*', '*_'],
    ul: ['task-list'],
    ol: ['task-list'],
    li: ['task-list-item'],
    th: ['text-left', 'text-center', 'text-right'],
    td: ['text-left', 'text-center', 'text-right'],
    input: ['task-list-item-checkbox'],
  },
  // No data: URLs at all, as the original: they need a CSP that allows them and hide what they hold.
  allowedSchemes: ['http', 'https', 'mailto', 'ftp', 'irc', 'ircs', 'tel'],
  allowedSchemesByTag: { img: ['http', 'https'] },
  allowProtocolRelative: true,
  // Their content is not text to show either.
  nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'title', 'template', 'xmp', 'noembed', 'noframes', 'iframe', 'object', 'svg', 'math'],
  exclusiveFilter: (frame) => frame.tag === 'input' && frame.attribs['type'] !== 'checkbox',
}

function sanitizeOptions(context: MarkdownContext): sanitizeHtml.IOptions {
  return {
    ...BASE_SANITIZE_OPTIONS,
    transformTags: {
      // Ids in user content are prefixed, as the original does, so they cannot take the page's own.
      '*': (tagName, attribs) => {
        const id = attribs['id']
        if (id !== undefined && !id.startsWith('user-content-')) attribs['id'] = `user-content-${id}`
        return { tagName, attribs }
      },
      a: (tagName, attribs) => {
        const { rel: _ignored, ...rest } = attribs
        // A reference's link is already the page's URL (root-relative when baseUrl is ''), not a
        // path in the repository to resolve.
        const isReference = /(?:^|\s)gfm(?:\s|$)/.test(rest['class'] ?? '')
        const href = rest['href'] === undefined || isReference ? rest['href'] : resolveUrl(rest['href'], context, 'link')
        if (href === undefined) return { tagName, attribs: rest }
        return { tagName, attribs: isExternal(href, context.baseUrl) ? { ...rest, href, rel: EXTERNAL_LINK_REL } : { ...rest, href } }
      },
      img: (tagName, attribs) => (attribs['src'] === undefined ? { tagName, attribs } : { tagName, attribs: { ...attribs, src: resolveUrl(attribs['src'], context, 'image') } }),
      // A task list's checkbox shows a state; none can be ticked on the page.
      input: (tagName, attribs) => ({ tagName, attribs: { ...attribs, disabled: '' } }),
    },
  }
}
