// Syntax highlighting on the server with highlight.js: the core plus the languages registered
// below, chosen by file name, extension or shebang line (never by auto-detection, which runs every
// grammar over the file). A file's lines come back as one SafeHtml each, with the spans of a token
// that crosses a line break (a block comment, a multi-line string) closed at the end of the line and
// reopened at the start of the next, so every line is well-formed markup on its own and pages can
// number, anchor and slice them. Highlighted files are cached by blob id (a blob never changes) in a
// cache bounded by size; files above a size limit are shown escaped, unhighlighted.

import { createRequire } from 'node:module'
import { escapeHtml, SafeHtml } from './html.js'
import { WeightedLru } from '../common/weighted-lru.js'

// highlight.js is loaded through require, not imported: its type declarations pull the DOM library
// into the whole program, where its fetch and FormData types clash with Node's. These few types are
// all that is used of it.
interface Language {
  aliases?: string[]
}
interface HighlightCore {
  registerLanguage(name: string, language: (hljs: HighlightCore) => object): void
  getLanguage(name: string): Language | undefined
  highlight(code: string, options: { language: string; ignoreIllegals: boolean }): { value: string }
}
const requireCommonJs = createRequire(import.meta.url)

const LANGUAGES = [
  'bash', 'c', 'clojure', 'cmake', 'cpp', 'csharp', 'css', 'dart', 'diff', 'dockerfile', 'elixir', 'erlang',
  'go', 'graphql', 'groovy', 'haskell', 'ini', 'java', 'javascript', 'json', 'kotlin', 'less', 'lua',
  'makefile', 'markdown', 'nginx', 'objectivec', 'ocaml', 'perl', 'php', 'php-template', 'plaintext',
  'powershell', 'properties', 'protobuf', 'python', 'r', 'ruby', 'rust', 'scala', 'scss', 'shell', 'sql',
  'swift', 'typescript', 'xml', 'yaml',
]

interface Highlighter {
  hljs: HighlightCore
  /** Every registered language's name and aliases, lower case, to the name it is registered under. */
  languageNames: Map<string, string>
}

let highlighter: Highlighter | null = null

/**
 * highlight.js with the languages registered, loaded at the first page that needs it, not at start:
 * an API server never holds its grammars (a few MB of heap).
 */
function loaded(): Highlighter {
  if (highlighter !== null) return highlighter
  const hljs = requireCommonJs('highlight.js/lib/core') as HighlightCore
  for (const name of LANGUAGES) hljs.registerLanguage(name, requireCommonJs(`highlight.js/lib/languages/${name}`) as (hljs: HighlightCore) => object)
  const languageNames = new Map<string, string>()
  for (const name of LANGUAGES) {
    for (const alias of [name, ...(hljs.getLanguage(name)?.aliases ?? [])]) languageNames.set(alias.toLowerCase(), name)
  }
  highlighter = { hljs, languageNames }
  return highlighter
}

/** Whole file names (lower case) whose language their extension does not tell. */
const FILE_NAMES: Readonly<Record<string, string>> = {
  'dockerfile': 'dockerfile', 'containerfile': 'dockerfile',
  'makefile': 'makefile', 'gnumakefile': 'makefile',
  'cmakelists.txt': 'cmake',
  'gemfile': 'ruby', 'rakefile': 'ruby', 'vagrantfile': 'ruby', 'guardfile': 'ruby', 'podfile': 'ruby',
  'brewfile': 'ruby', 'fastfile': 'ruby', 'gemfile.lock': 'plaintext',
  'jenkinsfile': 'groovy',
  '.bashrc': 'bash', '.bash_profile': 'bash', '.profile': 'bash', '.zshrc': 'bash',
  '.gitconfig': 'ini', '.gitmodules': 'ini', '.editorconfig': 'ini', 'cargo.lock': 'ini', 'pipfile': 'ini',
  'nginx.conf': 'nginx',
}

/** Extensions (lower case) that are none of the registered languages' names or aliases. */
const EXTENSIONS: Readonly<Record<string, string>> = {
  htm: 'xml', vue: 'xml', svelte: 'xml', csproj: 'xml', xaml: 'xml', wsdl: 'xml',
  rake: 'ruby', ru: 'ruby', gradle: 'groovy', jenkinsfile: 'groovy',
  pyi: 'python', pyw: 'python', bats: 'bash', fish: 'bash', ksh: 'bash',
  cfg: 'ini', conf: 'ini', jsonl: 'json', geojson: 'json', ipynb: 'json', webmanifest: 'json',
  mdx: 'markdown', markdown: 'markdown',
}

/** Interpreters named on a `#!` line, for scripts without an extension. */
const INTERPRETERS: Readonly<Record<string, string>> = {
  sh: 'bash', bash: 'bash', dash: 'bash', zsh: 'bash', ksh: 'bash', ash: 'bash',
  python: 'python', ruby: 'ruby', perl: 'perl', php: 'php', lua: 'lua', node: 'javascript',
  deno: 'typescript', pwsh: 'powershell', make: 'makefile', elixir: 'elixir', escript: 'erlang',
}

/** The registered language a file's name, extension or shebang line tells, if any. */
export function languageForPath(path: string, content = ''): string | undefined {
  const name = (path.slice(path.lastIndexOf('/') + 1)).toLowerCase()
  const byName = FILE_NAMES[name]
  if (byName !== undefined) return byName
  const dot = name.lastIndexOf('.')
  if (dot > 0 && dot < name.length - 1) {
    const extension = name.slice(dot + 1)
    const language = EXTENSIONS[extension] ?? registeredLanguage(extension)
    if (language !== undefined) return language
  }
  const shebang = /^#!\s*\S*\/(?:env\s+(?:-\S+\s+)*)?([a-z]+)/.exec(content)
  return shebang === null ? undefined : INTERPRETERS[shebang[1]!]
}

/** The registered language a name or alias stands for (`js`, `rb`, `yml`, `c++`), if any. */
export function registeredLanguage(nameOrAlias: string): string | undefined {
  return loaded().languageNames.get(nameOrAlias.toLowerCase())
}

/**
 * A piece of code highlighted as the named language (a name or an alias, as Markdown fences give
 * it), as markup whose lines may share spans; null for a language that is not registered.
 */
export function highlightCode(code: string, languageName: string): SafeHtml | null {
  const language = registeredLanguage(languageName)
  if (language === undefined) return null
  if (code.length > MAX_HIGHLIGHTED_CHARS) return new SafeHtml(escapeHtml(code))
  return new SafeHtml(loaded().hljs.highlight(code, { language, ignoreIllegals: true }).value)
}

// highlight.js's own markup holds nothing but escaped text, line breaks and these two tags.
const MARKUP_TOKEN = /<span class="[^"]*">|<\/span>|\n/g

/**
 * Highlighted markup cut into lines, each closing the spans still open at its end and reopening them
 * on the next. Each line is joined from its parts into one flat string: lines grown with `+=` stay
 * V8 ropes, and every page showing them would flatten 5,000 ropes again to send them (13 ms for a
 * 5,000-line file).
 */
export function splitHighlightedLines(markup: string): string[] {
  const lines: string[] = []
  const open: string[] = []
  let parts: string[] = []
  let from = 0
  for (const match of markup.matchAll(MARKUP_TOKEN)) {
    const token = match[0]
    parts.push(markup.slice(from, match.index))
    from = match.index + token.length
    if (token === '\n') {
      for (let i = 0; i < open.length; i++) parts.push('</span>')
      lines.push(parts.join(''))
      parts = [...open]
    } else {
      if (token === '</span>') open.pop()
      else open.push(token)
      parts.push(token)
    }
  }
  parts.push(markup.slice(from))
  lines.push(parts.join(''))
  return lines
}

/** Files above this size are shown escaped, without highlighting (highlight.js takes ~1 s per 5 MB). */
export const MAX_HIGHLIGHTED_CHARS = 1024 * 1024
const DEFAULT_CACHE_CHARS = 32 * 1024 * 1024
/** What a line costs in the cache beside its markup: the SafeHtml, its string header, the array slot. */
const LINE_OVERHEAD_CHARS = 48

export interface LineHighlighterOptions {
  /** The bound of the cache: the highlighted markup it keeps, in characters. */
  maxCacheChars?: number
  /** Files longer than this, in characters, are shown escaped and unhighlighted. */
  maxHighlightedChars?: number
}

export class LineHighlighter {
  private readonly cache: WeightedLru<readonly SafeHtml[]>
  private readonly maxHighlightedChars: number

  constructor(options: LineHighlighterOptions = {}) {
    this.cache = new WeightedLru(options.maxCacheChars ?? DEFAULT_CACHE_CHARS, (lines) =>
      lines.reduce((sum, line) => sum + line.markup.length + LINE_OVERHEAD_CHARS, 0))
    this.maxHighlightedChars = options.maxHighlightedChars ?? MAX_HIGHLIGHTED_CHARS
  }

  /** The cache's size now, in the characters it counts. */
  get cachedChars(): number {
    return this.cache.weight
  }

  /**
   * A blob's lines as markup, one per line (a final line break ends the last line, it does not start
   * another). The array is shared by every caller that asks for the same blob, so it is frozen.
   */
  highlightLines(blobId: string, path: string, content: string): readonly SafeHtml[] {
    const language = content.length > this.maxHighlightedChars ? undefined : languageForPath(path, content)
    if (language === undefined || language === 'plaintext') return Object.freeze(toLines(content).map((line) => new SafeHtml(escapeHtml(line))))
    const key = `${blobId}\0${language}`
    const cached = this.cache.get(key)
    if (cached !== undefined) return cached
    const sourceLines = toLines(content)
    if (sourceLines.length === 0) return Object.freeze([])
    const markup = loaded().hljs.highlight(sourceLines.join('\n'), { language, ignoreIllegals: true }).value
    const lines = Object.freeze(splitHighlightedLines(markup).map((line) => new SafeHtml(line)))
    this.cache.set(key, lines)
    return lines
  }
}

/** A file's lines without their line endings; none for an empty file. */
function toLines(content: string): string[] {
  if (content === '') return []
  const lines = content.split(/\r?\n/)
  if (lines[lines.length - 1] === '') lines.pop()
  return lines
}

const sharedHighlighter = new LineHighlighter()

/** A blob's lines highlighted for its path, through the process's one cache. */
export function highlightLines(blobId: string, path: string, content: string): readonly SafeHtml[] {
  return sharedHighlighter.highlightLines(blobId, path, content)
}
