// Writing files in the browser at the original's URLs: `/edit/:ref/*path` (a file's text in a
// form) and `/new/:ref/*directory` (a new file's name and text), each posted back to its own URL
// as one commit through the API's commit service (push rights, protected branches, push rules).
// The commit goes on the branch the page was opened at, or on a new branch started from it; then
// the file's page, or for a new branch the new merge request page with that branch as source.
// An edit carries the last commit the form saw, so a file changed meanwhile is refused, not
// overwritten.
import type { FastifyReply } from 'fastify'
import { isObjectId } from '../../git/command.js'
import { BRANCH_PREFIX } from '../../git/ref-names.js'
import { cleanTreePath } from '../../git/tree.js'
import { canOnProject } from '../../policies/project-policy.js'
import { commitChanges, type CommitAction } from '../../services/commits/commit-changes.js'
import { findFileAtRef } from '../../services/files/file-at-ref.js'
import { looksBinary } from '../../git/blob.js'
import { csrfField, errorExplanation, html, page } from '../html.js'
import { redirect, refusalOf, sendNotFound, sendPage, tokenOf } from '../visit.js'
import { encodePath, pageUrl, projectChrome, projectUrl, refAndPath, signInFirst, type ProjectPage, type ProjectPageRequest } from './context.js'

interface FileForm {
  path: string
  content: string
  message: string
  branch: string
  /** The commit that last changed the file when the form was shown (edits only). */
  lastCommitId: string
}

interface Target {
  /** The branch the page was opened at (the ref of the URL, which must be a branch). */
  branch: string
  path: string
}

/** The branch and path of `/<branch…>/<path…>`; null when the ref is not a branch. */
async function targetOf(request: ProjectPageRequest): Promise<Target | null> {
  const repo = request.req.ingot.repositories.open(request.loaded.project.id)
  const found = await refAndPath(repo, request.rest)
  if (found === null || isObjectId(found.ref) || await repo.resolveCommit(`${BRANCH_PREFIX}${found.ref}`) === null) return null
  return { branch: found.ref, path: found.path }
}

function formPage(request: ProjectPageRequest, kind: 'edit' | 'new', target: Target, values: FileForm, errors: readonly string[], status: number): FastifyReply {
  const { req, reply, visit, loaded } = request
  const action = `${projectUrl(loaded)}/${kind}/${encodePath(target.branch)}${target.path === '' ? '' : `/${encodePath(target.path)}`}`
  const token = tokenOf(visit)
  const title = kind === 'edit' ? `Edit ${target.path}` : `New file${target.path === '' ? '' : ` in ${target.path}`}`
  return sendPage(reply, visit, status, page({ title: `${title} · ${loaded.project.name}`, user: visit.session?.user ?? null, csrfToken: token, wide: true }, projectChrome(req.actor, loaded, 'files', html`
<h1>${title}</h1>
<p class="muted">On branch <span class="mono">${target.branch}</span></p>
${errorExplanation(errors)}
<form class="issuable-form" method="post" action="${action}">
${csrfField(token)}<input type="hidden" name="last_commit_sha" value="${values.lastCommitId}">
${kind === 'new' ? html`<label for="file_name">File name</label><input type="text" id="file_name" name="file_name" value="${values.path}" required>` : ''}
<label for="file_content">Content</label><textarea id="file_content" name="content" rows="24" spellcheck="false">${values.content}</textarea>
<label for="commit_message">Commit message</label><input type="text" id="commit_message" name="commit_message" value="${values.message}" required>
<label for="branch_name">Target branch (a new name starts a branch from ${target.branch})</label><input type="text" id="branch_name" name="branch_name" value="${values.branch}" required>
<button type="submit">Commit changes</button>
</form>`)))
}


/** The page, for a signed-in visitor who may push; null and the answer sent otherwise. */
async function allowed(request: ProjectPageRequest): Promise<{ target: Target } | FastifyReply> {
  const signIn = signInFirst(request)
  if (signIn !== null) return signIn
  if (!canOnProject(request.req.actor, request.loaded, 'push_code')) return sendNotFound(request.reply, request.visit)
  const target = await targetOf(request)
  return target === null ? sendNotFound(request.reply, request.visit) : { target }
}

export const editFilePage: ProjectPage = async (request) => {
  const check = await allowed(request)
  if (!('target' in check)) return check
  const { target } = check
  const repo = request.req.ingot.repositories.open(request.loaded.project.id)
  const lookup = target.path === '' ? null : await findFileAtRef(repo, `${BRANCH_PREFIX}${target.branch}`, target.path)
  if (lookup === null || 'missing' in lookup || lookup.found.data === null || looksBinary(lookup.found.data)) return sendNotFound(request.reply, request.visit)
  const file = lookup.found
  return formPage(request, 'edit', target, {
    path: target.path, content: file.data!.toString('utf8'), message: `Update ${target.path.slice(target.path.lastIndexOf('/') + 1)}`,
    branch: target.branch, lastCommitId: file.lastCommitId,
  }, [], 200)
}

export const newFilePage: ProjectPage = async (request) => {
  const check = await allowed(request)
  if (!('target' in check)) return check
  return formPage(request, 'new', check.target, { path: '', content: '', message: 'Add new file', branch: check.target.branch, lastCommitId: '' }, [], 200)
}

function submitted(request: ProjectPageRequest, target: Target, kind: 'edit' | 'new'): FileForm {
  const body = request.req.body as Record<string, unknown>
  const text = (name: string) => (typeof body[name] === 'string' ? body[name] : '')
  return {
    path: kind === 'edit' ? target.path : text('file_name').trim(),
    // Browsers send a textarea's lines ended with CRLF; files keep the LF they are written with.
    content: text('content').replace(/\r\n/g, '\n'),
    message: text('commit_message'),
    branch: text('branch_name').trim() || target.branch,
    lastCommitId: text('last_commit_sha'),
  }
}

async function commitFromForm(request: ProjectPageRequest, kind: 'edit' | 'new'): Promise<FastifyReply> {
  const check = await allowed(request)
  if (!('target' in check)) return check
  const { target } = check
  const { req, reply, visit, loaded } = request
  const values = submitted(request, target, kind)
  const path = kind === 'edit' ? target.path : cleanTreePath(target.path === '' ? values.path : `${target.path}/${values.path}`)
  if (path === null || path === '') return formPage(request, kind, target, values, ['File name is not a valid path'], 422)
  if (values.message.trim() === '') return formPage(request, kind, target, values, ['Commit message can\'t be blank'], 422)
  const action: CommitAction = kind === 'edit'
    ? { action: 'update', file_path: path, content: values.content, ...(values.lastCommitId === '' ? {} : { last_commit_id: values.lastCommitId }) }
    : { action: 'create', file_path: path, content: values.content }
  const newBranch = values.branch !== target.branch
  try {
    await commitChanges(req.ingot, loaded, req.actor!, {
      branch: values.branch, ...(newBranch ? { startBranch: target.branch } : {}), message: values.message, actions: [action], refuseEmptyCommit: kind === 'edit',
    })
  } catch (err) {
    return formPage(request, kind, target, values, refusalOf(err), 422)
  }
  if (newBranch && canOnProject(req.actor, loaded, 'create_merge_request_from')) {
    const query = new URLSearchParams({ 'merge_request[source_branch]': values.branch, 'merge_request[target_branch]': target.branch })
    return redirect(reply, visit, `${projectUrl(loaded)}/merge_requests/new?${query.toString()}`)
  }
  return redirect(reply, visit, pageUrl(loaded, 'blob', values.branch, path))
}

export const editFileForm: ProjectPage = (request) => commitFromForm(request, 'edit')
export const newFileForm: ProjectPage = (request) => commitFromForm(request, 'new')
