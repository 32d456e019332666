// The commits page, `/commits/<ref…>/<path…>`: the history of a ref, or of a path at it, newest
// first, 40 a page (`?page=2`), with links to the next and previous pages.
import { commitIdsPage, historyFrom } from '../../git/log.js'
import { canOnProject } from '../../policies/project-policy.js'
import { html, page } from '../html.js'
import { sendNotFound, sendPage } from '../visit.js'
import { commitSummary } from './commit-summary.js'
import { breadcrumbs, pageUrl, projectChrome, refAndPath, type ProjectPage, type ProjectPageRequest } from './context.js'

const PER_PAGE = 40
/** Deeper pages make git skip more commits than a person pages through. */
const MAX_PAGE = 1000

const commitsPage: ProjectPage = async ({ req, reply, visit, loaded, rest }: ProjectPageRequest) => {
  if (!canOnProject(req.actor, loaded, 'download_code')) return sendNotFound(reply, visit)
  const repo = req.ingot.repositories.open(loaded.project.id)
  const target = await refAndPath(repo, rest)
  const asked = String((req.query as Record<string, unknown>).page ?? '1')
  const number = /^\d{1,4}$/.test(asked) ? Number(asked) : 0
  if (target === null || number < 1 || number > MAX_PAGE) return sendNotFound(reply, visit)
  const { ref, commit, path } = target
  // One more than a page tells whether a next page exists without counting the history.
  const ids = await commitIdsPage(repo, { ...historyFrom(commit), path: path === '' ? null : path }, (number - 1) * PER_PAGE, PER_PAGE + 1)
  const commits = await repo.readCommits(ids.slice(0, PER_PAGE))
  const here = pageUrl(loaded, 'commits', ref, path)
  const title = path === '' ? `Commits · ${loaded.project.name}` : `Commits of ${path} · ${loaded.project.name}`
  return sendPage(reply, visit, 200, page({ title, user: visit.session?.user ?? null, wide: true }, projectChrome(req.actor, loaded, 'commits', html`
<h1>Commits${path === '' ? '' : html` of ${path}`} <small class="muted">${ref}</small></h1>
${path === '' ? '' : breadcrumbs(loaded, ref, path)}
${commits.length === 0 ? html`<p>No commits.</p>` : html`<ol class="commit-list">${commits.map((c) => html`<li>${commitSummary(loaded, c)}</li>`)}</ol>`}
<nav class="actions" aria-label="Pages">${number > 1 ? html`<a href="${here}?page=${number - 1}" rel="prev">Newer</a>` : ''}${ids.length > PER_PAGE && number < MAX_PAGE ? html`<a href="${here}?page=${number + 1}" rel="next">Older</a>` : ''}</nav>`)))
}

export default commitsPage
