// What every project page is given, and what they share: the project's URLs, its header and tabs,
// the breadcrumbs of a path, the branch and tag switcher, and the ref a `/<page>/<ref…>/<path…>`
// URL names.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { LoadedProject } from '../../api/load.js'
import type { Actor } from '../../auth/actor.js'
import { ApiError } from '../../common/errors.js'
import { isObjectId } from '../../git/command.js'
import { BRANCH_PREFIX, TAG_PREFIX, shortRefName } from '../../git/ref-names.js'
import type { GitRepository } from '../../git/repository.js'
import { cleanTreePath } from '../../git/tree.js'
import { canOnProject, type ProjectAbility } from '../../policies/project-policy.js'
import { html, type SafeHtml } from '../html.js'
import { localPath, redirect, rememberReturnTo, type Visit } from '../visit.js'
import { SIGN_IN_PATH } from '../pages.js'

export interface ProjectPageRequest {
  req: FastifyRequest
  reply: FastifyReply
  visit: Visit
  loaded: LoadedProject
  /** The project's full path as the URL named it. */
  fullPath: string
  /** The URL's segments after the page's name (decoded). */
  rest: string[]
}

export type ProjectPage = (page: ProjectPageRequest) => Promise<FastifyReply>

/** A path of segments as a URL path, each segment percent-encoded (so `#`, `?` and `%` in names survive). */
export function encodePath(path: string): string {
  // Most paths need no encoding: a 2,000-entry tree spares 2,000 splits.
  return URL_SAFE_PATH.test(path) ? path : path.split('/').map(encodeURIComponent).join('/')
}

const URL_SAFE_PATH = /^[\w.~/-]*$/

/** The project's own URL (`/group/project`) and those of its pages. */
export function projectUrl(loaded: LoadedProject): string {
  return `/${encodePath(`${loaded.namespace.full_path}/${loaded.project.path}`)}`
}

/** The pages whose URLs are `/<page>/<ref…>[/<path…>]`. */
export type RefPage = 'tree' | 'blob' | 'raw' | 'blame' | 'commits'

export function pageUrl(loaded: LoadedProject, page: RefPage, ref: string, path = ''): string {
  return `${projectUrl(loaded)}/${page}/${encodePath(ref)}${path === '' ? '' : `/${encodePath(path)}`}`
}

/** The tabs of a project's header; a page names the one it belongs to. */
export type ProjectTab =
  | 'overview' | 'files' | 'commits' | 'branches' | 'tags' | 'issues' | 'merge_requests'
  | 'wiki' | 'snippets' | 'pipelines' | 'environments' | 'members' | 'settings'

/** Each tab with the ability it needs, its label and its URL below the project's. */
const TABS: ReadonlyArray<{ tab: ProjectTab; ability: ProjectAbility; label: string; path: (ref: string) => string }> = [
  { tab: 'overview', ability: 'read_project', label: 'Overview', path: () => '' },
  { tab: 'files', ability: 'download_code', label: 'Files', path: (ref) => `/tree/${encodePath(ref)}` },
  { tab: 'commits', ability: 'download_code', label: 'Commits', path: (ref) => `/commits/${encodePath(ref)}` },
  { tab: 'branches', ability: 'download_code', label: 'Branches', path: () => '/branches' },
  { tab: 'tags', ability: 'download_code', label: 'Tags', path: () => '/tags' },
  { tab: 'issues', ability: 'read_issue', label: 'Issues', path: () => '/issues' },
  { tab: 'merge_requests', ability: 'read_merge_request', label: 'Merge requests', path: () => '/merge_requests' },
  { tab: 'pipelines', ability: 'read_pipeline', label: 'CI / CD', path: () => '/pipelines' },
  { tab: 'environments', ability: 'read_environment', label: 'Environments', path: () => '/environments' },
  { tab: 'wiki', ability: 'read_wiki', label: 'Wiki', path: () => '/wikis/home' },
  { tab: 'snippets', ability: 'read_snippet', label: 'Snippets', path: () => '/snippets' },
  { tab: 'members', ability: 'read_project', label: 'Members', path: () => '/project_members' },
  { tab: 'settings', ability: 'admin_project', label: 'Settings', path: () => '/edit' },
]

/** The tabs that need a repository with a default branch. */
const CODE_TABS: ReadonlySet<ProjectTab> = new Set(['files', 'commits'])

/**
 * The page the visitor sees: the project's header with the tabs of what the visitor may read,
 * then the page's own markup.
 */
export function projectChrome(actor: Actor | null, loaded: LoadedProject, current: ProjectTab, body: SafeHtml): SafeHtml {
  const { project, namespace } = loaded
  const base = projectUrl(loaded)
  const ref = project.default_branch
  const tabs = TABS.filter(({ tab, ability }) => (ref !== null || !CODE_TABS.has(tab)) && canOnProject(actor, loaded, ability))
  return html`<nav class="project-tabs" aria-label="Project"><ul class="breadcrumbs"><li>${namespace.full_name}</li><li><a href="${base}">${project.name}</a></li></ul>
<ul class="actions">${tabs.map(({ tab, label, path }) => html`<li><a href="${base}${path(ref ?? '')}"${tab === current ? html` aria-current="page"` : ''}>${label}</a></li>`)}</ul></nav>
${body}`
}

/** The links to each directory above `path` (`project / src / lib`), the last one plain. */
export function breadcrumbs(loaded: LoadedProject, ref: string, path: string): SafeHtml {
  const segments = path === '' ? [] : path.split('/')
  return html`<nav aria-label="Path"><ol class="breadcrumbs">
<li><a href="${pageUrl(loaded, 'tree', ref)}">${loaded.project.path}</a></li>${segments.map((segment, i) => i === segments.length - 1
    ? html`<li aria-current="location">${segment}</li>`
    : html`<li><a href="${pageUrl(loaded, 'tree', ref, segments.slice(0, i + 1).join('/'))}">${segment}</a></li>`)}
</ol></nav>`
}

/**
 * The branch and tag switcher of a tree or file page: the ref shown and a link to the switcher's
 * page (switchRefPage), which lists the refs. The refs are not listed on every page, as the
 * original loads them only when its dropdown opens: listing them costs a `git for-each-ref`.
 */
export function refSwitcher(loaded: LoadedProject, destination: 'tree' | 'blob', ref: string, path: string): SafeHtml {
  const query = new URLSearchParams({ destination, path, current: ref })
  return html`<p class="ref-switcher">Branch or tag: <strong class="mono">${ref}</strong> <a href="${projectUrl(loaded)}/refs/switch?${query.toString()}">Switch branch or tag</a></p>`
}

/** The switcher's form: a GET form (no script needed) back to `refs/switch`, which sends the visitor to the same page and path at the chosen ref. */
export async function refSwitcherForm(loaded: LoadedProject, repo: GitRepository, destination: 'tree' | 'blob', ref: string, path: string): Promise<SafeHtml> {
  const names = await repo.refNames(BRANCH_PREFIX, TAG_PREFIX)
  const branches = names.filter((name) => name.startsWith(BRANCH_PREFIX)).map(shortRefName)
  const tags = names.filter((name) => name.startsWith(TAG_PREFIX)).map(shortRefName)
  const option = (name: string) => html`<option${name === ref ? html` selected` : ''}>${name}</option>`
  return html`<form class="inline-form ref-switcher" method="get" action="${projectUrl(loaded)}/refs/switch">
<input type="hidden" name="destination" value="${destination}"><input type="hidden" name="path" value="${path}">
<label for="ref-switcher-ref">Branch or tag</label>
<select name="ref" id="ref-switcher-ref">${branches.includes(ref) || tags.includes(ref) ? '' : option(ref)}
<optgroup label="Branches">${branches.map(option)}</optgroup>${tags.length > 0 ? html`<optgroup label="Tags">${tags.map(option)}</optgroup>` : ''}</select>
<button type="submit">Switch</button>
</form>`
}

export interface RefAndPath {
  /** The ref as the URL named it: a branch, a tag or a commit id. */
  ref: string
  commit: string
  path: string
}

/** The commit a branch or tag of that exact name points at; null for none (or a name git would not take). */
async function refCommit(repo: GitRepository, name: string): Promise<string | null> {
  try {
    return await repo.resolveCommit(`${BRANCH_PREFIX}${name}`) ?? await repo.resolveCommit(`${TAG_PREFIX}${name}`)
  } catch (err) {
    if (err instanceof ApiError) return null
    throw err
  }
}

/**
 * The ref and the path of `/<ref…>/<path…>`: refs may hold slashes (`feature/x`), so, as the
 * original's ExtractsPath does, the longest run of leading segments that names a branch or tag
 * is the ref; failing that, a leading commit id. Null when the segments name no ref.
 */
export async function refAndPath(repo: GitRepository, segments: readonly string[]): Promise<RefAndPath | null> {
  for (let at = segments.length; at >= 1; at--) {
    const ref = segments.slice(0, at).join('/')
    const commit = await refCommit(repo, ref)
    if (commit !== null) return withPath(ref, commit, segments.slice(at))
  }
  const [first = ''] = segments
  if (!isObjectId(first)) return null
  const commit = await repo.resolveCommit(first)
  return commit === null ? null : withPath(first, commit, segments.slice(1))
}

/** The ref and its path, unless the path could leave the tree or confuse git (git/tree.ts cleanTreePath). */
function withPath(ref: string, commit: string, segments: readonly string[]): RefAndPath | null {
  const path = cleanTreePath(segments.join('/'))
  return path === null ? null : { ref, commit, path }
}

/** Sends an anonymous visitor to sign in, and back to this page afterwards; null when someone is signed in. */
export function signInFirst(request: ProjectPageRequest): FastifyReply | null {
  if (request.visit.session !== null) return null
  const back = localPath(request.req.url.replace(/^\/-\/project-web/, ''))
  if (back !== null) rememberReturnTo(request.visit, back)
  return redirect(request.reply, request.visit, SIGN_IN_PATH)
}
