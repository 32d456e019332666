// A project's wiki at the original's URLs: `/wikis` (its home page), `/wikis/pages` (every page),
// `/wikis/:slug` (a page rendered; slugs hold slashes for pages in directories; a missing page
// offers to write it), `/wikis/:slug/history` (the commits that changed it) and `/wikis/:slug/edit`
// (with an optional commit message). Forms: POST `/wikis` writes a new page, POST
// `/wikis/:slug` with `_method=put` saves one and with `_method=delete` removes it, through the
// API's wiki services (Developers write, Maintainers delete). While the external wiki integration
// is active, the wiki's URLs send to it instead (issue 5).
import type { FastifyReply } from 'fastify'
import { WIKI_FORMATS, findWikiPage, listWikiPages, readPageContent, wikiTip, type WikiFormat } from '../../finders/wiki-pages-finder.js'
import { canOnProject } from '../../policies/project-policy.js'
import { externalWikiUrl } from '../../services/integrations/project-links.js'
import { createWikiPage, deleteWikiPage, updateWikiPage } from '../../services/wikis/write-wiki-page.js'
import { csrfField, errorExplanation, html, page, textBlock, type SafeHtml } from '../html.js'
import { renderMarkdown } from '../markdown.js'
import { formMethod, redirect, refusalOf, sendNotFound, sendPage, tokenOf } from '../visit.js'
import { encodePath, projectChrome, projectUrl, type ProjectPage, type ProjectPageRequest } from './context.js'
import { sendRawFile } from './raw.js'
import { cleanTreePath } from '../../git/tree.js'
import { commitIdsPage, historyFrom } from '../../git/log.js'
import { signatureTime } from '../../git/repository.js'
import { pageNumber } from '../listings.js'

function wikiUrl(request: ProjectPageRequest, slug = ''): string {
  return `${projectUrl(request.loaded)}/wikis${slug === '' ? '' : `/${encodePath(slug)}`}`
}

function pageChrome(request: ProjectPageRequest, title: string, body: SafeHtml, status = 200, csrf = false): FastifyReply {
  const { req, reply, visit, loaded } = request
  return sendPage(reply, visit, status, page({ title: `${title} · Wiki · ${loaded.project.name}`, user: visit.session?.user ?? null, csrfToken: csrf ? tokenOf(visit) : undefined, wide: true },
    projectChrome(req.actor, loaded, 'wiki', body)))
}

function mayWrite(request: ProjectPageRequest): boolean {
  return request.visit.session !== null && canOnProject(request.req.actor, request.loaded, 'create_wiki')
}

async function pagesList(request: ProjectPageRequest): Promise<FastifyReply> {
  const { repositories } = request.req.ingot
  const tip = await wikiTip(repositories, request.loaded.project.id)
  const pages = tip === null ? [] : await listWikiPages(repositories.openWiki(request.loaded.project.id), tip)
  return pageChrome(request, 'Pages', html`<h1>Wiki pages</h1>
${pages.length === 0 ? html`<p class="muted">The wiki has no pages yet.</p>` : html`<ul class="issuable-list">${pages.map((p) => html`<li><a href="${wikiUrl(request, p.slug)}">${p.title}</a> <span class="muted mono">${p.slug}</span></li>`)}</ul>`}
${mayWrite(request) ? html`<p><a class="button" href="${wikiUrl(request, 'home')}/edit">Write the home page</a></p>` : ''}`)
}

async function showPage(request: ProjectPageRequest, slug: string): Promise<FastifyReply> {
  const { repositories } = request.req.ingot
  const projectId = request.loaded.project.id
  const tip = await wikiTip(repositories, projectId)
  const repo = repositories.openWiki(projectId)
  const found = tip === null ? null : await findWikiPage(repo, tip, slug)
  const writable = mayWrite(request)
  if (found === null) {
    return pageChrome(request, slug, html`<h1>${slug}</h1>
<p>This page does not exist yet.${writable ? html` <a href="${wikiUrl(request, slug)}/edit">Write it</a>.` : ''}</p>
<p><a href="${wikiUrl(request, 'pages')}">All pages</a></p>`, 404)
  }
  const content = await readPageContent(repo, found)
  const body = found.format === 'markdown'
    ? renderMarkdown(content, { baseUrl: '', projectFullPath: `${request.loaded.namespace.full_path}/${request.loaded.project.path}`, wiki: true })
    : textBlock(content)
  const mayDelete = request.visit.session !== null && canOnProject(request.req.actor, request.loaded, 'admin_wiki')
  return pageChrome(request, found.title, html`<div class="list-header"><h1>${found.title}</h1><div class="actions">${writable ? html`<a class="button" href="${wikiUrl(request, found.slug)}/edit">Edit</a>` : ''}<a class="button" href="${wikiUrl(request, found.slug)}/history">History</a><a class="button" href="${wikiUrl(request, 'pages')}">All pages</a></div></div>
<div class="box"><div class="content markdown">${body}</div></div>
${mayDelete ? html`<form method="post" action="${wikiUrl(request, found.slug)}">${csrfField(tokenOf(request.visit))}<input type="hidden" name="_method" value="delete"><button type="submit">Delete this page</button></form>` : ''}`, 200, mayDelete)
}

const HISTORY_PER_PAGE = 40

/** The commits that changed a page's file, newest first, 40 a page (`?page=N`). */
async function pageHistory(request: ProjectPageRequest, slug: string): Promise<FastifyReply> {
  const { req, reply, visit, loaded } = request
  const number = pageNumber(req.query)
  const tip = await wikiTip(req.ingot.repositories, loaded.project.id)
  const repo = req.ingot.repositories.openWiki(loaded.project.id)
  const found = tip === null ? null : await findWikiPage(repo, tip, slug)
  if (found === null || tip === null) return sendNotFound(reply, visit)
  // One more than a page tells whether an older page exists without counting the history.
  const ids = await commitIdsPage(repo, { ...historyFrom(tip), path: found.path }, (number - 1) * HISTORY_PER_PAGE, HISTORY_PER_PAGE + 1)
  const commits = await repo.readCommits(ids.slice(0, HISTORY_PER_PAGE))
  const here = `${wikiUrl(request, found.slug)}/history`
  return pageChrome(request, `History of ${found.title}`, html`<h1>History of <a href="${wikiUrl(request, found.slug)}">${found.title}</a></h1>
<ol class="commit-list">${commits.map((commit) => {
    const time = signatureTime(commit.author)
    return html`<li><span class="mono" title="${commit.id}">${commit.id.slice(0, 8)}</span> ${commit.message.split('\n', 1)[0] ?? ''} · <span class="muted">${commit.author.name}, <time datetime="${time}">${time.slice(0, 10)}</time></span></li>`
  })}</ol>
<nav class="actions" aria-label="Pages">${number > 1 ? html`<a href="${here}?page=${number - 1}" rel="prev">Newer</a>` : ''}${ids.length > HISTORY_PER_PAGE ? html`<a href="${here}?page=${number + 1}" rel="next">Older</a>` : ''}</nav>`)
}

interface WikiForm {
  title: string
  content: string
  format: WikiFormat
  /** The commit's message; blank for the wiki service's own. */
  message: string
}

function editForm(request: ProjectPageRequest, slug: string, existing: boolean, values: WikiForm, errors: readonly string[], status: number): FastifyReply {
  const action = existing ? wikiUrl(request, slug) : wikiUrl(request)
  return pageChrome(request, existing ? `Edit ${values.title}` : 'New page', html`<h1>${existing ? html`Edit ${values.title}` : 'New wiki page'}</h1>
${errorExplanation(errors)}
<form class="issuable-form" method="post" action="${action}">
${csrfField(tokenOf(request.visit))}${existing ? html`<input type="hidden" name="_method" value="put">` : ''}
<label for="wiki_title">Title (a slash puts the page in a directory)</label><input type="text" id="wiki_title" name="wiki[title]" value="${values.title}" required>
<label for="wiki_format">Format</label><select id="wiki_format" name="wiki[format]">${WIKI_FORMATS.map((format) => html`<option${format === values.format ? html` selected` : ''}>${format}</option>`)}</select>
<label for="wiki_content">Content</label><textarea id="wiki_content" name="wiki[content]" rows="20">${values.content}</textarea>
<label for="wiki_message">Commit message (optional)</label><input type="text" id="wiki_message" name="wiki[message]" value="${values.message}">
<button type="submit">${existing ? 'Save changes' : 'Create page'}</button>
</form>`, status, true)
}

async function editPage(request: ProjectPageRequest, slug: string): Promise<FastifyReply> {
  if (!mayWrite(request)) return sendNotFound(request.reply, request.visit)
  const { repositories } = request.req.ingot
  const projectId = request.loaded.project.id
  const tip = await wikiTip(repositories, projectId)
  const repo = repositories.openWiki(projectId)
  const found = tip === null ? null : await findWikiPage(repo, tip, slug)
  if (found === null) return editForm(request, slug, false, { title: slug.replace(/-/g, ' '), content: '', format: 'markdown', message: '' }, [], 200)
  return editForm(request, found.slug, true, { title: found.title, content: await readPageContent(repo, found), format: found.format, message: '' }, [], 200)
}

/** `/wikis/uploads/<secret>/<file>`: an attachment of the wiki's repository, as the raw page sends files. */
async function attachment(request: ProjectPageRequest, path: string): Promise<FastifyReply> {
  const { repositories } = request.req.ingot
  const tip = await wikiTip(repositories, request.loaded.project.id)
  const repo = repositories.openWiki(request.loaded.project.id)
  const clean = cleanTreePath(path)
  const info = tip === null || clean === null ? null : await repo.info(`${tip}:${clean}`)
  if (info === null || info.type !== 'blob') return sendNotFound(request.reply, request.visit)
  return sendRawFile(request.reply, repo, info, path)
}

const wikisPage: ProjectPage = async (request) => {
  const { req, reply, visit, loaded, rest } = request
  const external = await externalWikiUrl(req.ingot, loaded.project.id)
  if (external !== null) return reply.redirect(external, 302)
  if (!canOnProject(req.actor, loaded, 'read_wiki')) return sendNotFound(reply, visit)
  if (rest.length === 0) return redirect(reply, visit, wikiUrl(request, 'home'))
  if (rest.length === 1 && rest[0] === 'pages') return pagesList(request)
  if (rest[0] === 'uploads') return attachment(request, rest.join('/'))
  if (rest.length > 1 && rest[rest.length - 1] === 'history') return pageHistory(request, rest.slice(0, -1).join('/'))
  if (rest.length > 1 && rest[rest.length - 1] === 'edit') return editPage(request, rest.slice(0, -1).join('/'))
  return showPage(request, rest.join('/'))
}

function submitted(request: ProjectPageRequest): WikiForm {
  const form = (request.req.body as Record<string, unknown>).wiki as Record<string, unknown> | undefined
  const text = (name: string) => (typeof form?.[name] === 'string' ? form[name] : '')
  const format = text('format') as WikiFormat
  return { title: text('title').trim(), content: text('content').replace(/\r\n/g, '\n'), format: WIKI_FORMATS.includes(format) ? format : 'markdown', message: text('message').trim() }
}

export const wikiForms: ProjectPage = async (request) => {
  const { req, reply, visit, loaded, rest } = request
  if (!canOnProject(req.actor, loaded, 'read_wiki')) return sendNotFound(reply, visit)
  const slug = rest.join('/')
  if (slug === '') {
    if (!mayWrite(request)) return sendNotFound(reply, visit)
    const values = submitted(request)
    try {
      const created = await createWikiPage(req.ingot, loaded, req.actor!, values)
      return redirect(reply, visit, wikiUrl(request, created.slug))
    } catch (err) {
      return editForm(request, values.title, false, values, refusalOf(err), 422)
    }
  }
  const method = formMethod(req)
  if (method === 'DELETE') {
    if (!canOnProject(req.actor, loaded, 'admin_wiki')) return sendNotFound(reply, visit)
    try {
      await deleteWikiPage(req.ingot, loaded, req.actor!, slug)
    } catch (err) {
      refusalOf(err)
      return sendNotFound(reply, visit)
    }
    return redirect(reply, visit, wikiUrl(request, 'pages'))
  }
  if (method !== 'PUT' || !mayWrite(request)) return sendNotFound(reply, visit)
  const values = submitted(request)
  try {
    const updated = await updateWikiPage(req.ingot, loaded, req.actor!, slug, values)
    return redirect(reply, visit, wikiUrl(request, updated.slug))
  } catch (err) {
    return editForm(request, slug, true, values, refusalOf(err), 422)
  }
}

export default wikisPage
