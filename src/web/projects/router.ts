// A project's pages at the original's URLs, `/<namespace…>/<project>[/-]/<page>/…`, as the API's
// web_url fields build them. rewriteUrl moves every URL whose first segment could be a namespace
// (not one of the reserved top-level names, services/namespaces/path-rules.ts) under one prefix;
// git, LFS, uploads and badges are moved under theirs first, and
// /api/… and /-/… are left alone. The project is the first (shortest) path that names one and is
// followed by a page of PAGES (or nothing: the overview); it is loaded through the API's
// loadProject, so a project the visitor may not see is the same 404 page as a missing one.
// Forms post to URLs of the same shape, handled by FORMS (a handler branches on formMethod for
// PUT and DELETE); a POST is taken from signed-in visitors only and must carry the CSRF token,
// checked here once for all. A new page is a module of its own plus one line in PAGES (and FORMS).
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { mustAcceptTerms } from '../../auth/sessions.js'
import { ApiError } from '../../common/errors.js'
import { findProjectByIdOrPath } from '../../finders/project-lookup.js'
import { isReservedTopLevel } from '../../services/namespaces/path-rules.js'
import { loadProject } from '../../api/load.js'
import { SIGN_IN_PATH, TERMS_PATH, rejectedPage } from '../pages.js'
import { WEB, actorOf, csrfVerified, localPath, redirect, rememberReturnTo, sendNotFound, sendPage, visitOf, type SignedInVisit } from '../visit.js'
import { groupPageAt } from '../namespaces.js'
import type { ProjectPage } from './context.js'
import overviewPage from './overview.js'
import treePage, { switchRefPage } from './tree.js'
import blobPage from './blob.js'
import rawPage from './raw.js'
import commitsPage from './commits.js'
import issuesPage, { issueForms } from './issues.js'
import commitPage, { comparePage } from './commit.js'
import mergeRequestsPage, { mergeRequestForms } from './merge-requests.js'
import { editFileForm, editFilePage, newFileForm, newFilePage } from './edit-file.js'
import { environmentsPage, jobForms, jobsPage, pipelineForms, pipelinesPage } from './pipelines.js'
import wikisPage, { wikiForms } from './wikis.js'
import { branchForms, branchesPage, tagForms, tagsPage } from './refs.js'
import { boardsListPage, labelsListPage, milestonesPage } from './planning.js'
import { activityPage } from './people.js'
import { projectMemberForms, projectMembersPage } from '../members.js'
import { forkForm, toggleStarForm } from './star-fork.js'
import { downloadExportPage, settingsEditPage, settingsForm } from './settings.js'
import { snippetsPage } from './snippets.js'
import blamePage from './blame.js'
import { repositorySettingsForms, repositorySettingsPage } from './settings-repository.js'
import { ciCdSettingsForms, ciCdSettingsPage } from './settings-ci-cd.js'
import { hookForms, hookPages, integrationsSettingsPage, serviceForms, servicePages } from './settings-integrations.js'

/** `/edit` is the project's settings; `/edit/<branch>/<path>` edits a file, as in the original. */
const editPage: ProjectPage = (request) => (request.rest.length === 0 ? settingsEditPage(request) : editFilePage(request))
const editForm: ProjectPage = (request) => (request.rest.length === 0 ? settingsForm(request) : editFileForm(request))

/**
 * `/-/settings/<section>/…`: the settings pages after the general one (`/edit`), by section, with
 * their forms (the integrations' forms post to `/hooks` and `/services`, as in the original).
 */
const SETTINGS_SECTIONS: Readonly<Record<string, { page: ProjectPage; forms?: ProjectPage }>> = {
  repository: { page: repositorySettingsPage, forms: repositorySettingsForms },
  ci_cd: { page: ciCdSettingsPage, forms: ciCdSettingsForms },
  integrations: { page: integrationsSettingsPage },
}

/** The page (or the forms' handler) of the section the next segment names, given the segments after it. */
function settingsSection(kind: 'page' | 'forms'): ProjectPage {
  return async (request) => {
    const [name = '', ...rest] = request.rest
    const handler = Object.hasOwn(SETTINGS_SECTIONS, name) ? SETTINGS_SECTIONS[name]![kind] : undefined
    return handler === undefined ? sendNotFound(request.reply, request.visit) : handler({ ...request, rest })
  }
}

/** The pages of a project by the URL segment that names them; '' is the overview. */
const PAGES: Readonly<Record<string, ProjectPage>> = {
  '': overviewPage,
  tree: treePage,
  blob: blobPage,
  raw: rawPage,
  blame: blamePage,
  commits: commitsPage,
  refs: switchRefPage,
  commit: commitPage,
  compare: comparePage,
  issues: issuesPage,
  merge_requests: mergeRequestsPage,
  edit: editPage,
  new: newFilePage,
  pipelines: pipelinesPage,
  jobs: jobsPage,
  wikis: wikisPage,
  branches: branchesPage,
  tags: tagsPage,
  milestones: milestonesPage,
  labels: labelsListPage,
  boards: boardsListPage,
  activity: activityPage,
  project_members: projectMembersPage,
  snippets: snippetsPage,
  environments: environmentsPage,
  settings: settingsSection('page'),
  download_export: downloadExportPage,
  hooks: hookPages,
  services: servicePages,
}

/** The handlers of the forms posted to a project's URLs, by the segment that names them as in PAGES. */
const FORMS: Readonly<Record<string, ProjectPage>> = {
  issues: issueForms,
  merge_requests: mergeRequestForms,
  edit: editForm,
  new: newFileForm,
  pipelines: pipelineForms,
  jobs: jobForms,
  wikis: wikiForms,
  branches: branchForms,
  tags: tagForms,
  toggle_star: toggleStarForm,
  forks: forkForm,
  project_members: projectMemberForms,
  settings: settingsSection('forms'),
  hooks: hookForms,
  services: serviceForms,
}

/** Where the router finds project pages: under a prefix of their own, as git's URLs are (api/git-http.ts). */
const PROJECT_WEB_PREFIX = '/-/project-web'

/** For Fastify's rewriteUrl: a URL of two or more segments whose first could be a namespace, moved under PROJECT_WEB_PREFIX. */
export function routeProjectWebUrl(url: string): string {
  const queryAt = url.indexOf('?')
  const urlPath = queryAt === -1 ? url : url.slice(0, queryAt)
  const second = urlPath.indexOf('/', 1)
  if (second === -1 || second === urlPath.length - 1) return url
  const first = urlPath.slice(1, second)
  if (first === '' || isReservedTopLevel(decodeSegment(first))) return url
  return `${PROJECT_WEB_PREFIX}${url}`
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

interface Target {
  fullPath: string
  page: ProjectPage
  /** The segments after the page's name. */
  rest: string[]
}

/** The pages a path may name, each with the project path before it; the shortest first. */
function candidates(segments: readonly string[], pages: Readonly<Record<string, ProjectPage>>): Target[] {
  const found: Target[] = []
  for (let at = 2; at <= segments.length; at++) {
    const fullPath = segments.slice(0, at).join('/')
    const after = segments[at] === '-' ? at + 1 : at
    const name = segments[after] ?? ''
    const page = Object.hasOwn(pages, name) ? pages[name] : undefined
    if (page !== undefined && (name !== '' || after === segments.length)) found.push({ fullPath, page, rest: segments.slice(after + 1) })
  }
  return found
}

const projectRouter: FastifyPluginAsync = async (app) => {
  app.route({ method: ['GET', 'POST'], url: `${PROJECT_WEB_PREFIX}/*`, ...WEB, handler: async (req: FastifyRequest, reply: FastifyReply) => {
    const visit = await visitOf(req)
    const user = visit.session?.user ?? null
    if (req.method === 'POST' && user === null) return redirect(reply, visit, SIGN_IN_PATH)
    if (req.method === 'POST' && !csrfVerified(req, visit)) return sendPage(reply, visit, 422, rejectedPage())
    if (user !== null && mustAcceptTerms(user, visit.settings)) {
      const returnTo = localPath(req.url.slice(PROJECT_WEB_PREFIX.length))
      if (returnTo !== null) rememberReturnTo(visit, returnTo)
      return redirect(reply, visit, TERMS_PATH)
    }
    // loadProject and the policies read the visitor as the API reads a caller signed in by cookie.
    if (visit.session !== null) req.actor = actorOf(visit as SignedInVisit)
    // The router hands the rest of the path over decoded.
    const segments = (req.params as { '*': string })['*'].split('/').filter((segment, i, all) => segment !== '' || i < all.length - 1)
    for (const target of candidates(segments, req.method === 'POST' ? FORMS : PAGES)) {
      if (await findProjectByIdOrPath(req.ingot.db, target.fullPath) === null) continue
      try {
        const loaded = await loadProject(req, target.fullPath)
        return await target.page({ req, reply, visit, loaded, fullPath: target.fullPath, rest: target.rest })
      } catch (err) {
        if (err instanceof ApiError && err.statusCode === 404) return sendNotFound(reply, visit)
        throw err
      }
    }
    // No project at that path: a subgroup's page (`/group/subgroup`), as the original serves it.
    if (req.method === 'GET' && !segments.includes('-')) return groupPageAt(req, reply, visit, segments.join('/'))
    return sendNotFound(reply, visit)
  } })
}

export default projectRouter
