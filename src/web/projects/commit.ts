// A commit and a comparison at the original's URLs: `/commit/:sha` (the message, author and
// committer, parents, and the changes against the first parent) and `/compare/:from...:to` (the
// commits of `to` since the merge base and the changes from it; `..` compares straight), with
// `/compare` a GET form choosing the two refs. Both need the right to read the code.
import { compareCommits } from '../../git/compare.js'
import { signatureTime, type Commit } from '../../git/repository.js'
import { canOnProject } from '../../policies/project-policy.js'
import { diffBetween, renderDiffs } from '../diff.js'
import { html, page, textBlock, type SafeHtml } from '../html.js'
import { redirect, sendNotFound, sendPage } from '../visit.js'
import { encodePath, pageUrl, projectChrome, projectUrl, type ProjectPage, type ProjectPageRequest } from './context.js'

export function commitUrl(request: Pick<ProjectPageRequest, 'loaded'>, id: string): string {
  return `${projectUrl(request.loaded)}/commit/${id}`
}

function person(signature: Commit['author']): SafeHtml {
  const time = signatureTime(signature)
  return html`${signature.name} <span class="muted">&lt;${signature.email}&gt;</span>, <time datetime="${time}">${time.slice(0, 16).replace('T', ' ')}</time>`
}

const commitPage: ProjectPage = async (request) => {
  const { req, reply, visit, loaded, rest } = request
  if (!canOnProject(req.actor, loaded, 'download_code') || rest.length === 0) return sendNotFound(reply, visit)
  const repo = req.ingot.repositories.open(loaded.project.id)
  const id = await repo.resolveCommit(rest.join('/')).catch(() => null)
  const commit = id === null ? null : await repo.readCommit(id)
  if (commit === null) return sendNotFound(reply, visit)
  const parent = commit.parents[0] ?? null
  const { diffs, overflow } = await diffBetween(repo, parent, commit.id)
  const changes = renderDiffs(diffs, { from: parent, to: commit.id }, (path) => pageUrl(loaded, 'blob', commit.id, path), overflow)
  const [title = '', ...body] = commit.message.split('\n')
  const sameCommitter = commit.committer.email === commit.author.email && commit.committer.time === commit.author.time
  return sendPage(reply, visit, 200, page({ title: `${title} · ${commit.id.slice(0, 8)} · ${loaded.project.name}`, user: visit.session?.user ?? null, wide: true }, projectChrome(req.actor, loaded, 'commits', html`
<h1>${title}</h1>
<p class="muted">Commit <span class="mono">${commit.id}</span></p>
${body.join('\n').trim() === '' ? '' : html`<div class="commit-body mono">${textBlock(body.join('\n'))}</div>`}
<dl class="commit-meta">
<dt>Author</dt><dd>${person(commit.author)}</dd>
${sameCommitter ? '' : html`<dt>Committer</dt><dd>${person(commit.committer)}</dd>`}
<dt>${commit.parents.length === 1 ? 'Parent' : 'Parents'}</dt><dd>${commit.parents.length === 0 ? html`<span class="muted">None</span>` : commit.parents.map((p, i) => html`${i > 0 ? ', ' : ''}<a class="mono" href="${commitUrl(request, p)}">${p.slice(0, 8)}</a>`)}</dd>
</dl>
<p><a href="${pageUrl(loaded, 'tree', commit.id)}">Browse files</a></p>
${changes.markup}`)))
}

/** `from...to` (merge base) or `from..to` (straight); null for anything else. */
function rangeOf(text: string): { from: string; to: string; straight: boolean } | null {
  const three = text.indexOf('...')
  if (three > 0 && three < text.length - 3) return { from: text.slice(0, three), to: text.slice(three + 3), straight: false }
  const two = text.indexOf('..')
  if (two > 0 && two < text.length - 2) return { from: text.slice(0, two), to: text.slice(two + 2), straight: true }
  return null
}

function compareForm(request: ProjectPageRequest, from: string, to: string): SafeHtml {
  return html`<form class="inline-form" method="get" action="${projectUrl(request.loaded)}/compare" role="search">
<div><label for="compare_from">Source (the changes of)</label><input type="text" id="compare_from" name="to" value="${to}" required></div>
<div><label for="compare_to">Target (since)</label><input type="text" id="compare_to" name="from" value="${from}" required></div>
<button type="submit">Compare</button>
</form>`
}

const comparePage: ProjectPage = async (request) => {
  const { req, reply, visit, loaded, rest } = request
  if (!canOnProject(req.actor, loaded, 'download_code')) return sendNotFound(reply, visit)
  const title = `Compare · ${loaded.project.name}`
  if (rest.length === 0) {
    const query = req.query as Record<string, unknown>
    const from = typeof query.from === 'string' ? query.from.trim() : ''
    const to = typeof query.to === 'string' ? query.to.trim() : ''
    if (from !== '' && to !== '') return redirect(reply, visit, `${projectUrl(loaded)}/compare/${encodePath(from)}...${encodePath(to)}`)
    return sendPage(reply, visit, 200, page({ title, user: visit.session?.user ?? null, wide: true }, projectChrome(req.actor, loaded, 'commits', html`
<h1>Compare</h1>
<p>Choose two branches, tags or commits to see the changes of the first since the second.</p>
${compareForm(request, loaded.project.default_branch ?? '', '')}`)))
  }
  const range = rangeOf(rest.join('/'))
  if (range === null) return sendNotFound(reply, visit)
  const repo = req.ingot.repositories.open(loaded.project.id)
  const [from, to] = await Promise.all([repo.resolveCommit(range.from).catch(() => null), repo.resolveCommit(range.to).catch(() => null)])
  if (from === null || to === null) return sendNotFound(reply, visit)
  const comparison = await compareCommits(repo, from, to, range.straight)
  const base = range.straight ? from : await repo.mergeBase(from, to)
  const changes = renderDiffs(comparison.diffs, { from: base, to }, (path) => pageUrl(loaded, 'blob', to, path), comparison.overflow)
  return sendPage(reply, visit, 200, page({ title, user: visit.session?.user ?? null, wide: true }, projectChrome(req.actor, loaded, 'commits', html`
<h1>Compare <span class="mono">${range.from}</span>${range.straight ? '..' : '...'}<span class="mono">${range.to}</span></h1>
${compareForm(request, range.from, range.to)}
${comparison.same ? html`<p>These are the same commit: nothing to compare.</p>` : html`
<section aria-labelledby="compare-commits"><h2 id="compare-commits">${comparison.commits.length} ${comparison.commits.length === 1 ? 'commit' : 'commits'}</h2>
${comparison.commits.length === 0 ? html`<p class="muted">No commits.</p>` : html`<ol class="commit-list">${[...comparison.commits].reverse().map((c) => html`<li><a class="mono" href="${commitUrl(request, c.id)}">${c.id.slice(0, 8)}</a> ${c.message.split('\n', 1)[0]} <span class="muted">· ${c.author.name}</span></li>`)}</ol>`}
</section>
<section aria-labelledby="compare-changes"><h2 id="compare-changes">Changes</h2>${changes.markup}</section>`}`)))
}

export { comparePage }
export default commitPage
