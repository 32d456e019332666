// One commit in a line, as the tree, blob and overview pages show the last one: its short id
// (browsing the files at that commit), title, author and date.
import type { LoadedProject } from '../../api/load.js'
import { signatureTime, type Commit } from '../../git/repository.js'
import { html, type SafeHtml } from '../html.js'
import { pageUrl } from './context.js'

export function commitSummary(loaded: LoadedProject, commit: Commit): SafeHtml {
  const title = commit.message.split('\n', 1)[0] ?? ''
  const time = signatureTime(commit.author)
  return html`<p class="last-commit"><a class="mono" href="${pageUrl(loaded, 'tree', commit.id)}" title="${commit.id}">${commit.id.slice(0, 8)}</a>
${title} · <span class="muted">${commit.author.name}, <time datetime="${time}">${time.slice(0, 10)}</time></span></p>`
}
