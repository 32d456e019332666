// A project's wiki links, `<full_path>/wikis[/<slug>]`, which point where the project's
// integrations say (issue 5): to the external wiki while that integration is active; otherwise to
// the wiki as the API serves it. Always 302: the target changes when the integration does. A
// project the caller cannot see is 404, as everywhere. (Issue links open the issue pages,
// web/projects/issues.ts, which send to an external issue tracker the same way.)
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { findProjectByIdOrPath } from '../finders/project-lookup.js'
import { externalWikiUrl } from '../services/integrations/project-links.js'
import { ApiError, notFound } from '../common/errors.js'
import { loadProject, type LoadedProject } from './load.js'

/** Where the router finds these pages: under a prefix of their own, as git's URLs are (api/git-http.ts). */
const PROJECT_PAGES_PREFIX = '/-/project-pages'

/** `<namespace…>/<project>/wikis…`: at least two segments before `wikis`. */
const WIKI_URL = /^\/[^/]+(?:\/[^/]+)+\/wikis(?:\/|$)/
/** For Fastify's rewriteUrl: a project's wiki page (never one of /api or /-/) moved under PROJECT_PAGES_PREFIX. */
export function routeProjectPageUrl(url: string): string {
  const queryAt = url.indexOf('?')
  const urlPath = queryAt === -1 ? url : url.slice(0, queryAt)
  if (urlPath.startsWith('/api/') || urlPath.startsWith('/-/')) return url
  if (!WIKI_URL.test(urlPath)) return url
  return `${PROJECT_PAGES_PREFIX}${url}`
}

async function visibleProject(req: FastifyRequest, fullPath: string): Promise<LoadedProject | null> {
  return loadProject(req, fullPath).catch((err: unknown) => {
    if (err instanceof ApiError && err.statusCode === 404) return null
    throw err
  })
}

/**
 * The project of a wiki URL and the page's slug. A project may itself be called `wikis`, so each
 * `wikis` segment is tried from the first, and the first that follows an existing project wins.
 */
async function wikiTarget(req: FastifyRequest, segments: readonly string[]): Promise<{ loaded: LoadedProject; slug: string } | null> {
  for (let at = 2; at < segments.length; at++) {
    if (segments[at] !== 'wikis') continue
    const fullPath = segments.slice(0, at).join('/')
    if (await findProjectByIdOrPath(req.ingot.db, fullPath) === null) continue
    const loaded = await visibleProject(req, fullPath)
    return loaded === null ? null : { loaded, slug: segments.slice(at + 1).join('/') }
  }
  return null
}

async function redirectWiki(req: FastifyRequest, reply: FastifyReply, segments: readonly string[]) {
  const target = await wikiTarget(req, segments)
  if (target === null) throw notFound('Project')
  const { loaded, slug } = target
  const external = await externalWikiUrl(req.ingot, loaded.project.id)
  if (external !== null) return reply.redirect(external, 302)
  if (loaded.project.wiki_enabled !== 1) throw notFound()
  const wikis = `${req.ingot.config.externalUrl}/api/v4/projects/${loaded.project.id}/wikis`
  return reply.redirect(slug === '' ? wikis : `${wikis}/${encodeURIComponent(slug)}`, 302)
}

const projectPages: FastifyPluginAsync = async (app) => {
  app.get(`${PROJECT_PAGES_PREFIX}/*`, { config: { auth: 'optional' } }, async (req, reply) => {
    // The router hands the rest of the path over decoded.
    const urlPath = `/${(req.params as { '*': string })['*']}`
    if (!WIKI_URL.test(urlPath)) throw notFound()
    return redirectWiki(req, reply, urlPath.split('/').slice(1))
  })
}

export default projectPages
