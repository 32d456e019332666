// The tree page, `/tree/<ref…>/<path…>`: breadcrumbs, the branch and tag switcher, the directory's
// last commit and its entries (directories first). One last commit for the directory, not one per
// entry: that would be a history walk per entry, and a 2,000-entry tree must render at once.
// Also `refs/switch`, where the switcher's form goes.
import { canOnProject } from '../../policies/project-policy.js'
import { lastCommitForPath } from '../../git/log.js'
import type { Commit, GitRepository, TreeEntry } from '../../git/repository.js'
import { readTree } from '../../git/tree.js'
import { BRANCH_PREFIX } from '../../git/ref-names.js'
import { html, page, type SafeHtml } from '../html.js'
import { redirect, sendNotFound, sendPage } from '../visit.js'
import type { LoadedProject } from '../../api/load.js'
import {
  breadcrumbs, encodePath, pageUrl, projectChrome, projectUrl, refAndPath, refSwitcher, refSwitcherForm, type ProjectPage, type ProjectPageRequest,
} from './context.js'
import { commitSummary } from './commit-summary.js'

/** A directory's entries as a table of links: directories, then files, then submodules. */
export function treeTable(loaded: LoadedProject, ref: string, path: string, entries: readonly TreeEntry[]): SafeHtml {
  const order = { tree: 0, blob: 1, commit: 2 }
  const sorted = [...entries].sort((a, b) => order[a.type] - order[b.type])
  const nameOf = (entry: TreeEntry) => entry.path.slice(entry.path.lastIndexOf('/') + 1)
  const parent = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : ''
  const treeUrl = pageUrl(loaded, 'tree', ref)
  const blobUrl = pageUrl(loaded, 'blob', ref)
  return html`<table class="tree"><caption class="muted">Files of ${path === '' ? 'the root directory' : path}</caption>
<thead><tr><th scope="col">Name</th></tr></thead><tbody>
${path === '' ? '' : html`<tr><td><a href="${pageUrl(loaded, 'tree', ref, parent)}" aria-label="Parent directory">..</a></td></tr>`}
${sorted.map((entry) => html`<tr><td>${entry.type === 'tree'
    ? html`<a href="${treeUrl}/${encodePath(entry.path)}">${nameOf(entry)}/</a>`
    : entry.type === 'blob'
      ? html`<a href="${blobUrl}/${encodePath(entry.path)}">${nameOf(entry)}</a>`
      : html`${nameOf(entry)} <span class="muted">@ ${entry.id.slice(0, 8)}</span>`}</td></tr>`)}
</tbody></table>`
}

/** The last commit below `commit` that touched `path` ('' for any), read. */
export async function lastCommitOf(repo: GitRepository, commit: string, path: string): Promise<Commit | null> {
  const id = path === '' ? commit : await lastCommitForPath(repo, commit, path)
  return id === null ? null : repo.readCommit(id)
}

const treePage: ProjectPage = async ({ req, reply, visit, loaded, rest }: ProjectPageRequest) => {
  if (!canOnProject(req.actor, loaded, 'download_code')) return sendNotFound(reply, visit)
  const repo = req.ingot.repositories.open(loaded.project.id)
  const target = await refAndPath(repo, rest)
  if (target === null) return sendNotFound(reply, visit)
  const { ref, commit, path } = target
  const entries = await readTree(repo, commit, path, false)
  if (entries === null) {
    // A file's tree URL shows the file, as the original's does.
    const info = path === '' ? null : await repo.info(`${commit}:${path}`)
    return info?.type === 'blob' ? redirect(reply, visit, pageUrl(loaded, 'blob', ref, path)) : sendNotFound(reply, visit)
  }
  const [last, onBranch] = await Promise.all([lastCommitOf(repo, commit, path), repo.resolveCommit(`${BRANCH_PREFIX}${ref}`)])
  const canAddFile = onBranch !== null && canOnProject(req.actor, loaded, 'push_code')
  const title = path === '' ? loaded.project.name : `${path} · ${loaded.project.name}`
  return sendPage(reply, visit, 200, page({ title, user: visit.session?.user ?? null, wide: true }, projectChrome(req.actor, loaded, 'files', html`
<h1>${path === '' ? 'Files' : path}</h1>
${refSwitcher(loaded, 'tree', ref, path)}
${breadcrumbs(loaded, ref, path)}
<div class="box">
<header>${last === null ? '' : commitSummary(loaded, last)}${canAddFile ? html`<a href="${projectUrl(loaded)}/new/${encodePath(ref)}${path === '' ? '' : `/${encodePath(path)}`}">New file</a>` : ''}</header>
${treeTable(loaded, ref, path, entries)}
</div>`)))
}

export default treePage

/**
 * `refs/switch?destination=tree|blob&path=…`: with `ref` (the switcher's form sent), the same page
 * at the chosen ref (the original's RefsController#switch); without, the form listing the branches
 * and tags, `current` chosen.
 */
export const switchRefPage: ProjectPage = async ({ req, reply, visit, loaded, rest }: ProjectPageRequest) => {
  if (rest.join('/') !== 'switch' || !canOnProject(req.actor, loaded, 'download_code')) return sendNotFound(reply, visit)
  const query = req.query as Record<string, unknown>
  const ref = typeof query.ref === 'string' ? query.ref : ''
  const path = typeof query.path === 'string' ? query.path.replace(/^\/+|\/+$/g, '') : ''
  const destination = query.destination === 'blob' ? 'blob' : 'tree'
  if (ref !== '') return redirect(reply, visit, pageUrl(loaded, destination, ref, path))
  const current = typeof query.current === 'string' ? query.current : loaded.project.default_branch ?? ''
  const form = await refSwitcherForm(loaded, req.ingot.repositories.open(loaded.project.id), destination, current, path)
  return sendPage(reply, visit, 200, page({ title: `Switch branch or tag · ${loaded.project.name}`, user: visit.session?.user ?? null }, projectChrome(req.actor, loaded, 'files', html`
<h1>Switch branch or tag</h1>
${path === '' ? '' : html`<p>Of <span class="mono">${path}</span></p>`}
${form}`)))
}
