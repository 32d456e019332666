// A job's log as a page shows it: the text escaped, its ANSI colours and bold turned into classes
// (the stylesheet gives them colours readable in both schemes; no inline style under the CSP), the
// runner's section markers left out, and a line rewritten with carriage returns (a progress bar)
// shown as it ended. Anything else a terminal would interpret is dropped.
import { escapeHtml } from './html.js'

const COLOURS = ['black', 'red', 'green', 'yellow', 'blue', 'magenta', 'cyan', 'white']

interface Style {
  fg: string | null
  bg: string | null
  bold: boolean
}

const PLAIN: Style = { fg: null, bg: null, bold: false }

/** The style after an SGR sequence's parameters (`1;31`). */
function applySgr(style: Style, parameters: string): Style {
  let next = { ...style }
  const codes = parameters === '' ? [0] : parameters.split(';').map(Number)
  for (const code of codes) {
    if (code === 0) next = { ...PLAIN }
    else if (code === 1) next.bold = true
    else if (code === 22) next.bold = false
    else if (code >= 30 && code <= 37) next.fg = COLOURS[code - 30]!
    else if (code >= 90 && code <= 97) next.fg = `l-${COLOURS[code - 90]!}`
    else if (code === 39) next.fg = null
    else if (code >= 40 && code <= 47) next.bg = COLOURS[code - 40]!
    else if (code >= 100 && code <= 107) next.bg = `l-${COLOURS[code - 100]!}`
    else if (code === 49) next.bg = null
  }
  return next
}

function classesOf(style: Style): string {
  const classes: string[] = []
  if (style.fg !== null) classes.push(`term-fg-${style.fg}`)
  if (style.bg !== null) classes.push(`term-bg-${style.bg}`)
  if (style.bold) classes.push('term-bold')
  return classes.join(' ')
}

// An escape sequence (CSI … final byte, or a lone ESC and one character), and the runner's
// `section_start:<time>:<name>` / `section_end:…` markers, which end with `\r` and an erase.
const ESCAPE = /\x1b\[([0-9;?]*)([A-Za-z])|\x1b[^[]|section_(?:start|end):\d+:[A-Za-z0-9_.-]+\r?/g

/** What a line shows once its carriage returns are done: the text after the last one (but a final one). */
function overwritten(line: string): string {
  const trimmed = line.endsWith('\r') ? line.slice(0, -1) : line
  const last = trimmed.lastIndexOf('\r')
  return last === -1 ? trimmed : trimmed.slice(last + 1)
}

/** A log's text as markup: one escaped line per line, styled runs in spans. */
export function renderTerminal(text: string): string {
  const out: string[] = []
  let style = PLAIN
  for (const rawLine of text.split('\n')) {
    const line = overwritten(rawLine)
    let at = 0
    let open = classesOf(style)
    let markup = open === '' ? '' : `<span class="${open}">`
    for (const match of line.matchAll(ESCAPE)) {
      markup += escapeHtml(line.slice(at, match.index))
      at = match.index + match[0].length
      if (match[2] !== 'm') continue
      style = applySgr(style, match[1] ?? '')
      const classes = classesOf(style)
      if (classes === open) continue
      if (open !== '') markup += '</span>'
      if (classes !== '') markup += `<span class="${classes}">`
      open = classes
    }
    markup += escapeHtml(line.slice(at))
    if (open !== '') markup += '</span>'
    out.push(markup)
  }
  return out.join('\n')
}
