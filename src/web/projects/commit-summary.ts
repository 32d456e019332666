// One commit in a line, as the tree, blob, commits and overview pages show it: its short id and
// title (linking to the commit's page), author and date.
import type { LoadedProject } from '../../api/load.js'
import { signatureTime, type Commit } from '../../git/repository.js'
import { html, type SafeHtml } from '../html.js'
import { projectUrl } from './context.js'

export function commitSummary(loaded: LoadedProject, commit: Commit): SafeHtml {
  const title = commit.message.split('\n', 1)[0] ?? ''
  const time = signatureTime(commit.author)
  const url = `${projectUrl(loaded)}/commit/${commit.id}`
  return html`<p class="last-commit"><a class="mono" href="${url}" title="${commit.id}">${commit.id.slice(0, 8)}</a>
<a href="${url}">${title}</a> · <span class="muted">${commit.author.name}, <time datetime="${time}">${time.slice(0, 10)}</time></span></p>`
}
