// The two places where project pages render content rather than escape it: Markdown (READMEs,
// `.md` files) and the lines of code of the blob page. Until the Markdown and highlighting modules
// are wired in here, both show the text as it is, escaped.
import { html, type SafeHtml } from '../html.js'

export interface MarkdownContext {
  baseUrl: string
  projectFullPath?: string
}

/** A Markdown document (a README, a `.md` file) as markup. */
export function markdownMarkup(text: string, _context: MarkdownContext): SafeHtml {
  return html`<pre class="markdown-source">${text}</pre>`
}

/** A file's lines as markup, one per line, for the code table of the blob page. */
export function codeLinesMarkup(_blobId: string, _path: string, content: string): SafeHtml[] {
  const lines = content.split('\n')
  if (lines.length > 1 && lines.at(-1) === '') lines.pop()
  return lines.map((line) => html`${line}`)
}

const MARKDOWN_EXTENSIONS = /\.(?:md|markdown|mdown|mkd|mkdn)$/i

/** Whether a file is Markdown, which pages render rather than list as code. */
export function isMarkdownFile(path: string): boolean {
  return MARKDOWN_EXTENSIONS.test(path)
}
