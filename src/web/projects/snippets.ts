// A project's snippets at the original's URLs: `/snippets` (those the visitor may see, newest
// first), `/snippets/:id` (its file highlighted, or rendered when it is Markdown, with its
// description) and `/snippets/:id/raw` (its exact text, as the raw page sends files). Visibility
// is the API's: a snippet the visitor may not see is the 404 page.
import { paginate } from '../../common/pages.js'
import { findProjectSnippet, findProjectSnippets } from '../../finders/snippets-finder.js'
import { usersById } from '../../finders/rows.js'
import { canOnProject } from '../../policies/project-policy.js'
import { canReadSnippet } from '../../services/snippets/snippet-rules.js'
import { highlightLines } from '../highlight.js'
import { SafeHtml, html, page } from '../html.js'
import { LIST_PER_PAGE, pageNumber } from '../listings.js'
import { isMarkdownFile } from '../markdown.js'
import { sendNotFound, sendPage } from '../visit.js'
import { projectChrome, projectUrl, type ProjectPage } from './context.js'
import { pageLinks, projectMarkdown, timeOf, userLink } from './issuables.js'

const VISIBILITY: Readonly<Record<number, string>> = { 0: 'Private', 10: 'Internal', 20: 'Public' }

export const snippetsPage: ProjectPage = async ({ req, reply, visit, loaded, rest }) => {
  if (!canOnProject(req.actor, loaded, 'read_snippet') || rest.length > 2) return sendNotFound(reply, visit)
  const { db } = req.ingot
  const base = `${projectUrl(loaded)}/snippets`
  if (rest.length === 0) {
    const number = pageNumber(req.query)
    const found = await paginate(db, findProjectSnippets(db, req.actor, loaded), { page: number, per_page: LIST_PER_PAGE })
    const authors = await usersById(db, [...new Set(found.items.map((s) => s.author_id))])
    return sendPage(reply, visit, 200, page({ title: `Snippets · ${loaded.project.name}`, user: visit.session?.user ?? null, wide: true }, projectChrome(req.actor, loaded, 'snippets', html`
<h1>Snippets</h1>
${found.items.length === 0 ? html`<p class="muted">No snippets.</p>` : html`<ul class="issuable-list">${found.items.map((snippet) => {
    const author = authors.get(snippet.author_id)
    return html`<li><div><a class="title" href="${base}/${snippet.id}">${snippet.title}</a> <span class="muted mono">${snippet.file_name}</span> <span class="badge">${VISIBILITY[snippet.visibility_level] ?? ''}</span></div>
<div class="muted">$${snippet.id} · ${author === undefined ? '' : html`by ${author.name} · `}${timeOf(snippet.created_at)}</div></li>`
  })}</ul>`}
${pageLinks(base, new URLSearchParams(), number, LIST_PER_PAGE, found.total)}`)))
  }
  const id = /^\d{1,15}$/.test(rest[0]!) ? Number(rest[0]) : null
  const snippet = id === null ? null : await findProjectSnippet(db, loaded.project.id, id)
  if (snippet === null || !canReadSnippet(req.actor, loaded, snippet) || (rest.length === 2 && rest[1] !== 'raw')) return sendNotFound(reply, visit)
  if (rest[1] === 'raw') {
    return reply.code(200).headers({
      'content-type': 'text/plain; charset=utf-8', 'content-disposition': `inline; filename*=UTF-8''${encodeURIComponent(snippet.file_name)}`,
      'content-security-policy': "default-src 'none'; sandbox", 'cache-control': 'private, no-cache', 'x-content-type-options': 'nosniff',
    }).send(snippet.content)
  }
  const author = (await usersById(db, [snippet.author_id])).get(snippet.author_id)
  const content = isMarkdownFile(snippet.file_name)
    ? html`<div class="content markdown">${projectMarkdown(loaded, snippet.content)}</div>`
    : html`<div class="blob-wrap"><table class="code highlight"><tbody>${highlightLines(`snippet-${snippet.id}-${snippet.updated_at}`, snippet.file_name, snippet.content)
      .map((line: SafeHtml, i: number) => html`<tr id="L${i + 1}"><td class="line-number"><a href="#L${i + 1}">${i + 1}</a><td>${line}`)}</tbody></table></div>`
  return sendPage(reply, visit, 200, page({ title: `${snippet.title} · Snippets · ${loaded.project.name}`, user: visit.session?.user ?? null, wide: true }, projectChrome(req.actor, loaded, 'snippets', html`
<h1>${snippet.title} <small class="muted">$${snippet.id}</small></h1>
<p class="muted"><span class="badge">${VISIBILITY[snippet.visibility_level] ?? ''}</span> ${author === undefined ? '' : html`by ${userLink(author)} · `}${timeOf(snippet.created_at)}</p>
${snippet.description === null || snippet.description === '' ? '' : html`<div class="markdown">${projectMarkdown(loaded, snippet.description)}</div>`}
<div class="box"><header><span class="mono">${snippet.file_name}</span><a href="${base}/${snippet.id}/raw">Raw</a></header>${content}</div>`)))
}
