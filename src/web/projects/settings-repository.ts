// A project's repository settings at the original's URL, `/-/settings/repository`, for Maintainers
// (the API's admin_project): protected branches (push and merge levels), protected tags (create
// level) and deploy keys (the project's, and those the visitor may enable on it).
// Forms, below `/-/settings/repository`: POST `protected_branches` protects, POST
// `protected_branches/<name>` with `_method=put` changes the levels and with `_method=delete`
// unprotects; POST `protected_tags` and `protected_tags/<name>` (`_method=delete`) likewise;
// POST `deploy_keys` adds a key, `deploy_keys/<id>/enable` enables one, `deploy_keys/<id>` with
// `_method=delete` disables it (a private key no project holds any more goes, as through the API).
// Every change goes through the services of the API's routes, whose refusals the page shows.
import type { FastifyReply } from 'fastify'
import type { ProtectedBranchRow } from '../../db/schema.js'
import { PROTECTED_ACCESS_LEVELS } from '../../entities/protected-ref.js'
import { findProjectDeployKey, listEnableableDeployKeys, listProjectDeployKeys } from '../../finders/deploy-keys-finder.js'
import { findProtectedBranch, findProtectedTag, protectedBranchesOf, protectedTagsOf } from '../../finders/protected-refs.js'
import { MAINTAINER } from '../../policies/access-levels.js'
import { canOnProject } from '../../policies/project-policy.js'
import { accessLevelDescription } from '../../policies/protected-refs.js'
import { addDeployKey } from '../../services/deploy-keys/add-deploy-key.js'
import { enableDeployKey } from '../../services/deploy-keys/enable-deploy-key.js'
import { removeDeployKey } from '../../services/deploy-keys/remove-deploy-key.js'
import { createProtectedBranch, deleteProtectedBranch, updateProtectedBranch } from '../../services/protected-refs/protected-branches.js'
import { createProtectedTag, deleteProtectedTag } from '../../services/protected-refs/protected-tags.js'
import { csrfField, errorExplanation, html, type SafeHtml } from '../html.js'
import { formMethod, methodField, redirect, refusalOf, sendNotFound, tokenOf } from '../visit.js'
import { encodePath, projectUrl, type ProjectPage, type ProjectPageRequest } from './context.js'
import { timeOf } from './issuables.js'
import { settingsChrome } from './settings.js'

/** The most keys each list shows; a project holds a handful. */
const KEYS_SHOWN = { page: 1, per_page: 100 }

/** Only Maintainers (and admins) see and change these settings, as the API's routes allow. */
function maintains(request: ProjectPageRequest): boolean {
  return request.visit.session !== null && canOnProject(request.req.actor, request.loaded, 'admin_project')
}

function baseUrl(request: ProjectPageRequest): string {
  return `${projectUrl(request.loaded)}/-/settings/repository`
}

function levelSelect(id: string, name: string, label: string, selected: number): SafeHtml {
  return html`<label for="${id}">${label}</label><select id="${id}" name="${name}">${PROTECTED_ACCESS_LEVELS.map((level) => html`<option value="${String(level)}"${level === selected ? html` selected` : ''}>${accessLevelDescription(level)}</option>`)}</select>`
}

function deleteForm(request: ProjectPageRequest, action: string, label: string, text: string): SafeHtml {
  return html`<form method="post" action="${action}">${csrfField(tokenOf(request.visit))}${methodField('DELETE')}<button type="submit" aria-label="${label}">${text}</button></form>`
}

function protectedBranchRow(request: ProjectPageRequest, rule: ProtectedBranchRow, index: number): SafeHtml {
  const action = `${baseUrl(request)}/protected_branches/${encodePath(rule.name)}`
  return html`<li><div class="title mono">${rule.name}</div>
<form class="inline-form" method="post" action="${action}">${csrfField(tokenOf(request.visit))}${methodField('PUT')}
${levelSelect(`push_${index}`, 'push_access_level', `Allowed to push to ${rule.name}`, rule.push_access_level)}
${levelSelect(`merge_${index}`, 'merge_access_level', `Allowed to merge into ${rule.name}`, rule.merge_access_level)}
<button type="submit" aria-label="Save the levels of ${rule.name}">Save</button></form>
<div class="actions">${deleteForm(request, action, `Unprotect ${rule.name}`, 'Unprotect')}</div></li>`
}

async function repositorySettings(request: ProjectPageRequest, errors: readonly string[] = [], status = 200): Promise<FastifyReply> {
  const { req, visit, loaded } = request
  const { db } = req.ingot
  const projectId = loaded.project.id
  const [branches, tags, keys, enableable] = await Promise.all([
    protectedBranchesOf(db, projectId), protectedTagsOf(db, projectId),
    listProjectDeployKeys(db, projectId, KEYS_SHOWN), listEnableableDeployKeys(db, visit.session!.user.id, projectId, KEYS_SHOWN),
  ])
  const token = tokenOf(visit)
  const base = baseUrl(request)
  const body = html`<h1>Repository settings</h1>
${errorExplanation(errors)}
<section aria-labelledby="protected-branches-title"><h2 id="protected-branches-title">Protected branches</h2>
<p class="muted">A protected branch cannot be deleted or force-pushed; only the levels chosen may push to it and merge into it. A name may be a wildcard such as <span class="mono">release/*</span>.</p>
<form class="issuable-form" method="post" action="${base}/protected_branches">${csrfField(token)}
<label for="protected_branch_name">Branch or wildcard</label><input type="text" id="protected_branch_name" name="name" required>
${levelSelect('protected_branch_push', 'push_access_level', 'Allowed to push', MAINTAINER)}
${levelSelect('protected_branch_merge', 'merge_access_level', 'Allowed to merge', MAINTAINER)}
<button type="submit">Protect</button></form>
${branches.length === 0 ? html`<p class="muted">No protected branches.</p>` : html`<ul class="issuable-list">${branches.map((rule, i) => protectedBranchRow(request, rule, i))}</ul>`}
</section>
<section aria-labelledby="protected-tags-title"><h2 id="protected-tags-title">Protected tags</h2>
<p class="muted">Only the level chosen may create a protected tag, and no one may update or delete it. A name may be a wildcard such as <span class="mono">v*</span>.</p>
<form class="issuable-form" method="post" action="${base}/protected_tags">${csrfField(token)}
<label for="protected_tag_name">Tag or wildcard</label><input type="text" id="protected_tag_name" name="name" required>
${levelSelect('protected_tag_create', 'create_access_level', 'Allowed to create', MAINTAINER)}
<button type="submit">Protect</button></form>
${tags.length === 0 ? html`<p class="muted">No protected tags.</p>` : html`<ul class="issuable-list">${tags.map((rule) => html`<li><div class="title mono">${rule.name}</div>
<div class="muted">Allowed to create: ${accessLevelDescription(rule.create_access_level)}</div>
<div class="actions">${deleteForm(request, `${base}/protected_tags/${encodePath(rule.name)}`, `Unprotect ${rule.name}`, 'Unprotect')}</div></li>`)}</ul>`}
</section>
<section aria-labelledby="deploy-keys-title"><h2 id="deploy-keys-title">Deploy keys</h2>
<p class="muted">A deploy key reads the repository over SSH (and writes it, when allowed to) without a user.</p>
<form class="issuable-form" method="post" action="${base}/deploy_keys">${csrfField(token)}
<label for="deploy_key_title">Title</label><input type="text" id="deploy_key_title" name="title" required>
<label for="deploy_key_key">Key (OpenSSH public key)</label><textarea id="deploy_key_key" name="key" rows="4" required></textarea>
<label class="checkbox"><input type="checkbox" name="can_push" value="1"> Write access allowed</label>
<button type="submit">Add key</button></form>
<h3>Enabled deploy keys</h3>
${keys.items.length === 0 ? html`<p class="muted">No deploy keys are enabled on this project.</p>` : html`<ul class="issuable-list">${keys.items.map(({ key, link }) => html`<li><div class="title">${key.title}</div>
<div class="muted mono">${key.fingerprint}</div>
<div class="muted">${link.can_push === 1 ? 'Write access allowed' : 'Read-only'}${key.public === 1 ? ' · public' : ''} · added ${timeOf(key.created_at)}</div>
<div class="actions">${deleteForm(request, `${base}/deploy_keys/${key.id}`, `Disable ${key.title}`, 'Disable')}</div></li>`)}</ul>`}
<h3>Deploy keys you may enable</h3>
${enableable.items.length === 0 ? html`<p class="muted">No other deploy keys to enable.</p>` : html`<ul class="issuable-list">${enableable.items.map((key) => html`<li><div class="title">${key.title}</div>
<div class="muted mono">${key.fingerprint}</div>
<div class="actions"><form method="post" action="${base}/deploy_keys/${key.id}/enable">${csrfField(token)}<button type="submit" aria-label="Enable ${key.title}">Enable</button></form></div></li>`)}</ul>`}
</section>`
  return settingsChrome(request, 'repository', 'Repository settings', body, status)
}

export const repositorySettingsPage: ProjectPage = async (request) => {
  if (request.rest.length > 0 || !maintains(request)) return sendNotFound(request.reply, request.visit)
  return repositorySettings(request)
}

function field(request: ProjectPageRequest, name: string): string {
  const value = (request.req.body as Record<string, unknown>)[name]
  return typeof value === 'string' ? value : ''
}

/** A level of the form's field: one a protected ref may name; Maintainers for anything else, as the API's default. */
function levelField(request: ProjectPageRequest, name: string): number {
  const level = Number(field(request, name))
  return (PROTECTED_ACCESS_LEVELS as readonly number[]).includes(level) ? level : MAINTAINER
}

/** Runs a change and goes back to the page, or shows the page again with the refusal. */
async function change(request: ProjectPageRequest, run: () => Promise<unknown>): Promise<FastifyReply> {
  try {
    await run()
  } catch (err) {
    return repositorySettings(request, refusalOf(err), 422)
  }
  return redirect(request.reply, request.visit, baseUrl(request))
}

async function protectedBranchForm(request: ProjectPageRequest, name: string | null): Promise<FastifyReply> {
  const { req, reply, visit, loaded } = request
  const { db } = req.ingot
  const levels = { pushAccessLevel: levelField(request, 'push_access_level'), mergeAccessLevel: levelField(request, 'merge_access_level') }
  if (name === null) return change(request, () => createProtectedBranch(db, loaded.project.id, { name: field(request, 'name'), ...levels }))
  const rule = await findProtectedBranch(db, loaded.project.id, name)
  const method = formMethod(req)
  if (rule === null || (method !== 'PUT' && method !== 'DELETE')) return sendNotFound(reply, visit)
  return change(request, () => (method === 'PUT' ? updateProtectedBranch(db, rule, levels) : deleteProtectedBranch(db, rule)))
}

async function protectedTagForm(request: ProjectPageRequest, name: string | null): Promise<FastifyReply> {
  const { req, reply, visit, loaded } = request
  const { db } = req.ingot
  if (name === null) {
    return change(request, () => createProtectedTag(db, loaded.project.id, { name: field(request, 'name'), createAccessLevel: levelField(request, 'create_access_level') }))
  }
  const rule = await findProtectedTag(db, loaded.project.id, name)
  if (rule === null || formMethod(req) !== 'DELETE') return sendNotFound(reply, visit)
  return change(request, () => deleteProtectedTag(db, rule))
}

async function deployKeyForm(request: ProjectPageRequest, rest: readonly string[]): Promise<FastifyReply> {
  const { req, reply, visit, loaded } = request
  const { db } = req.ingot
  const userId = visit.session!.user.id
  if (rest.length === 0) {
    return change(request, () => addDeployKey(db, loaded.project.id, userId, { title: field(request, 'title'), key: field(request, 'key'), can_push: field(request, 'can_push') === '1' }))
  }
  const [id = '', action] = rest
  const keyId = /^\d{1,15}$/.test(id) ? Number(id) : null
  if (keyId === null || rest.length > 2) return sendNotFound(reply, visit)
  if (action === 'enable') {
    if (await enableDeployKey(db, loaded.project.id, userId, keyId) === null) return sendNotFound(reply, visit)
    return redirect(reply, visit, baseUrl(request))
  }
  const held = action === undefined && formMethod(req) === 'DELETE' ? await findProjectDeployKey(db, loaded.project.id, keyId) : null
  if (held === null) return sendNotFound(reply, visit)
  return change(request, () => removeDeployKey(db, held))
}

export const repositorySettingsForms: ProjectPage = async (request) => {
  const { rest } = request
  if (!maintains(request)) return sendNotFound(request.reply, request.visit)
  const [section, ...after] = rest
  const name = after.length === 0 ? null : after.join('/')
  if (section === 'protected_branches') return protectedBranchForm(request, name)
  if (section === 'protected_tags') return protectedTagForm(request, name)
  if (section === 'deploy_keys') return deployKeyForm(request, after)
  return sendNotFound(request.reply, request.visit)
}
