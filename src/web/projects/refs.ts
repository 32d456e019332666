// A project's branches and tags at the original's URLs: `/branches` (sorted by name, `?search=`,
// each with its last commit and its default, protected and merged marks), `/branches/new`,
// `/tags` (newest first, with their messages and release notes), `/tags/:name` and `/tags/new`.
// Forms: POST `/branches` and `/tags` create, POST `/branches/:name` and `/tags/:name` with
// `_method=delete` delete, through the API's services (push rights, protected refs, the default
// branch kept), whose refusals the pages show.
import type { FastifyReply } from 'fastify'
import { listBranches } from '../../finders/branches-finder.js'
import { findTag, listTags } from '../../finders/tags-finder.js'
import { findBranchTip } from '../../git/branches.js'
import { findTagRef } from '../../git/tags.js'
import { canOnProject } from '../../policies/project-policy.js'
import { createBranch } from '../../services/branches/create-branch.js'
import { deleteBranch } from '../../services/branches/delete-branch.js'
import { createTag } from '../../services/tags/create-tag.js'
import { deleteTag } from '../../services/tags/delete-tag.js'
import type { TagView } from '../../entities/tag.js'
import { csrfField, errorExplanation, html, page, textBlock, type SafeHtml } from '../html.js'
import { formMethod, redirect, refusalOf, sendNotFound, sendPage, tokenOf } from '../visit.js'
import { commitUrl } from './commit.js'
import { encodePath, pageUrl, projectChrome, projectUrl, type ProjectPage, type ProjectPageRequest } from './context.js'
import { pageLinks, projectMarkdown } from './issuables.js'

const PER_PAGE = 20

function mayPush(request: ProjectPageRequest): boolean {
  return request.visit.session !== null && canOnProject(request.req.actor, request.loaded, 'push_code')
}

function chrome(request: ProjectPageRequest, tab: 'branches' | 'tags', title: string, body: SafeHtml, status = 200): FastifyReply {
  const { req, reply, visit, loaded } = request
  const csrf = mayPush(request) ? tokenOf(visit) : undefined
  return sendPage(reply, visit, status, page({ title: `${title} · ${loaded.project.name}`, user: visit.session?.user ?? null, csrfToken: csrf, wide: true }, projectChrome(req.actor, loaded, tab, body)))
}

function deleteButton(request: ProjectPageRequest, action: string, label: string): SafeHtml {
  return html`<form method="post" action="${action}">${csrfField(tokenOf(request.visit))}<input type="hidden" name="_method" value="delete"><button type="submit" aria-label="${label}">Delete</button></form>`
}

async function branchesList(request: ProjectPageRequest, errors: readonly string[] = [], status = 200): Promise<FastifyReply> {
  const { req, loaded } = request
  const query = req.query as Record<string, unknown>
  const search = typeof query.search === 'string' ? query.search.trim() : ''
  const asked = String(query.page ?? '1')
  const number = /^\d{1,6}$/.test(asked) && Number(asked) >= 1 ? Number(asked) : 1
  const found = await listBranches(req.ingot, loaded, req.actor, search === '' ? {} : { search }, { page: number, per_page: PER_PAGE })
  const pushes = mayPush(request)
  const base = `${projectUrl(loaded)}/branches`
  return chrome(request, 'branches', 'Branches', html`<div class="list-header"><h1>Branches</h1>${pushes ? html`<a class="button" href="${base}/new">New branch</a>` : ''}</div>
${errorExplanation(errors)}
<form class="inline-form filters" method="get" action="${base}" role="search"><div><label for="search">Filter by name</label><input type="text" id="search" name="search" value="${search}"></div><button type="submit">Filter</button></form>
${found.items.length === 0 ? html`<p class="muted">No branches.</p>` : html`<ul class="issuable-list">${found.items.map((branch) => html`<li><div><a class="title mono" href="${pageUrl(loaded, 'tree', branch.name)}">${branch.name}</a>
${branch.isDefault ? html` <span class="badge">default</span>` : ''}${branch.protected ? html` <span class="badge">protected</span>` : ''}${branch.merged ? html` <span class="badge">merged</span>` : ''}</div>
<div class="muted"><a class="mono" href="${commitUrl(request, branch.commit.id)}">${branch.commit.id.slice(0, 8)}</a> ${branch.commit.message.split('\n', 1)[0]} · ${branch.commit.author.name}</div>
<div class="actions"><a href="${projectUrl(loaded)}/compare/${encodePath(loaded.project.default_branch ?? 'master')}...${encodePath(branch.name)}">Compare</a>${pushes && !branch.isDefault && branch.canPush ? deleteButton(request, `${base}/${encodePath(branch.name)}`, `Delete branch ${branch.name}`) : ''}</div></li>`)}</ul>`}
${pageLinks(base, new URLSearchParams(search === '' ? {} : { search }), number, PER_PAGE, found.total)}`, status)
}

function newBranchPage(request: ProjectPageRequest, values = { name: '', ref: request.loaded.project.default_branch ?? 'master' }, errors: readonly string[] = [], status = 200): FastifyReply {
  return chrome(request, 'branches', 'New branch', html`<h1>New branch</h1>
${errorExplanation(errors)}
<form class="issuable-form" method="post" action="${projectUrl(request.loaded)}/branches">${csrfField(tokenOf(request.visit))}
<label for="branch_name">Branch name</label><input type="text" id="branch_name" name="branch_name" value="${values.name}" required>
<label for="ref">Create from (a branch, tag or commit)</label><input type="text" id="ref" name="ref" value="${values.ref}" required>
<button type="submit">Create branch</button></form>`, status)
}

function releaseNotes(request: ProjectPageRequest, tag: TagView): SafeHtml {
  return html`${tag.message === null || tag.message.trim() === '' ? '' : html`<div class="commit-body">${textBlock(tag.message)}</div>`}
${tag.release === null ? '' : html`<section class="box"><header><h3>Release notes</h3></header><div class="content markdown">${projectMarkdown(request.loaded, tag.release.description)}</div></section>`}`
}

async function tagsList(request: ProjectPageRequest, errors: readonly string[] = [], status = 200): Promise<FastifyReply> {
  const { req, loaded } = request
  const asked = String((req.query as Record<string, unknown>).page ?? '1')
  const number = /^\d{1,6}$/.test(asked) && Number(asked) >= 1 ? Number(asked) : 1
  const found = await listTags(req.ingot, loaded.project.id, { orderBy: 'updated', sort: 'desc' }, { page: number, per_page: PER_PAGE })
  const pushes = mayPush(request)
  const base = `${projectUrl(loaded)}/tags`
  return chrome(request, 'tags', 'Tags', html`<div class="list-header"><h1>Tags</h1>${pushes ? html`<a class="button" href="${base}/new">New tag</a>` : ''}</div>
${errorExplanation(errors)}
${found.items.length === 0 ? html`<p class="muted">No tags.</p>` : html`<ul class="issuable-list">${found.items.map((tag) => html`<li><div><a class="title mono" href="${base}/${encodePath(tag.name)}">${tag.name}</a></div>
${tag.commit === null ? '' : html`<div class="muted"><a class="mono" href="${commitUrl(request, tag.commit.id)}">${tag.commit.id.slice(0, 8)}</a> ${tag.commit.message.split('\n', 1)[0]}</div>`}
${releaseNotes(request, tag)}
<div class="actions"><a href="${pageUrl(loaded, 'tree', tag.name)}">Browse files</a>${pushes ? deleteButton(request, `${base}/${encodePath(tag.name)}`, `Delete tag ${tag.name}`) : ''}</div></li>`)}</ul>`}
${pageLinks(base, new URLSearchParams(), number, PER_PAGE, found.total)}`, status)
}

interface NewTag {
  name: string
  ref: string
  message: string
  release: string
}

function newTagPage(request: ProjectPageRequest, values: NewTag = { name: '', ref: request.loaded.project.default_branch ?? 'master', message: '', release: '' }, errors: readonly string[] = [], status = 200): FastifyReply {
  return chrome(request, 'tags', 'New tag', html`<h1>New tag</h1>
${errorExplanation(errors)}
<form class="issuable-form" method="post" action="${projectUrl(request.loaded)}/tags">${csrfField(tokenOf(request.visit))}
<label for="tag_name">Tag name</label><input type="text" id="tag_name" name="tag_name" value="${values.name}" required>
<label for="ref">Create from (a branch, tag or commit)</label><input type="text" id="ref" name="ref" value="${values.ref}" required>
<label for="message">Message (an annotated tag; empty for a lightweight one)</label><textarea id="message" name="message" rows="3">${values.message}</textarea>
<label for="release_description">Release notes (Markdown)</label><textarea id="release_description" name="release_description" rows="8">${values.release}</textarea>
<button type="submit">Create tag</button></form>`, status)
}

export const branchesPage: ProjectPage = async (request) => {
  const { req, reply, visit, loaded, rest } = request
  if (!canOnProject(req.actor, loaded, 'download_code')) return sendNotFound(reply, visit)
  if (rest.length === 0) return branchesList(request)
  if (rest.length === 1 && rest[0] === 'new' && mayPush(request)) return newBranchPage(request)
  return sendNotFound(reply, visit)
}

export const tagsPage: ProjectPage = async (request) => {
  const { req, reply, visit, loaded, rest } = request
  if (!canOnProject(req.actor, loaded, 'download_code')) return sendNotFound(reply, visit)
  if (rest.length === 0) return tagsList(request)
  if (rest.length === 1 && rest[0] === 'new' && mayPush(request)) return newTagPage(request)
  const tag = await findTag(req.ingot, loaded.project.id, rest.join('/'))
  if (tag === null) return sendNotFound(reply, visit)
  return chrome(request, 'tags', tag.name, html`<h1>Tag <span class="mono">${tag.name}</span></h1>
${tag.commit === null ? '' : html`<p><a class="mono" href="${commitUrl(request, tag.commit.id)}">${tag.commit.id.slice(0, 8)}</a> ${tag.commit.message.split('\n', 1)[0]}</p>`}
${releaseNotes(request, tag)}
<p><a href="${pageUrl(loaded, 'tree', tag.name)}">Browse files</a></p>`)
}

function field(request: ProjectPageRequest, name: string): string {
  const value = (request.req.body as Record<string, unknown>)[name]
  return typeof value === 'string' ? value : ''
}

export const branchForms: ProjectPage = async (request) => {
  const { req, reply, visit, loaded, rest } = request
  if (!mayPush(request)) return sendNotFound(reply, visit)
  const repo = req.ingot.repositories.open(loaded.project.id)
  if (rest.length === 0) {
    const values = { name: field(request, 'branch_name').trim(), ref: field(request, 'ref').trim() }
    try {
      await createBranch(req.ingot, loaded, req.actor!, values.name, values.ref)
    } catch (err) {
      return newBranchPage(request, values, refusalOf(err), 422)
    }
    return redirect(reply, visit, pageUrl(loaded, 'tree', values.name))
  }
  const tip = formMethod(req) === 'DELETE' ? await findBranchTip(repo, rest.join('/')) : null
  if (tip === null) return sendNotFound(reply, visit)
  try {
    await deleteBranch(req.ingot, loaded, req.actor!, tip)
  } catch (err) {
    return branchesList(request, refusalOf(err), 422)
  }
  return redirect(reply, visit, `${projectUrl(loaded)}/branches`)
}

export const tagForms: ProjectPage = async (request) => {
  const { req, reply, visit, loaded, rest } = request
  if (!mayPush(request)) return sendNotFound(reply, visit)
  if (rest.length === 0) {
    const values = { name: field(request, 'tag_name').trim(), ref: field(request, 'ref').trim(), message: field(request, 'message'), release: field(request, 'release_description') }
    try {
      await createTag(req.ingot, loaded, req.actor!, {
        name: values.name, ref: values.ref, ...(values.message.trim() === '' ? {} : { message: values.message }),
        ...(values.release.trim() === '' ? {} : { releaseDescription: values.release }),
      })
    } catch (err) {
      return newTagPage(request, values, refusalOf(err), 422)
    }
    return redirect(reply, visit, `${projectUrl(loaded)}/tags/${encodePath(values.name)}`)
  }
  const tag = formMethod(req) === 'DELETE' ? await findTagRef(req.ingot.repositories.open(loaded.project.id), rest.join('/')) : null
  if (tag === null) return sendNotFound(reply, visit)
  try {
    await deleteTag(req.ingot, loaded, req.actor!, tag)
  } catch (err) {
    return tagsList(request, refusalOf(err), 422)
  }
  return redirect(reply, visit, `${projectUrl(loaded)}/tags`)
}
