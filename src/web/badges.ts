// A project's pipeline and coverage badges, `<full_path>/badges/<ref>/pipeline.svg` and
// `<full_path>/badges/<ref>/coverage.svg[?job=<name>]` (the original's Projects::BadgesController):
// SVG images for READMEs, never cached (the status changes), 404 to whoever may not see the
// project's pipelines (anonymous visitors see a public project's).
import type { FastifyPluginAsync, FastifyRequest } from 'fastify'
import { findProjectByIdOrPath } from '../finders/project-lookup.js'
import { coverageBadge, coverageOf, pipelineBadge, pipelineStatusOf, type BadgeTemplate } from '../services/badges/badge-images.js'
import { canOnProject } from '../policies/project-policy.js'
import { notFound } from '../common/errors.js'
import { loadProject, type LoadedProject } from '../api/load.js'
import { html } from './html.js'

/** Where the router finds badges: under a prefix of their own, as git's are (api/git-http.ts). */
const BADGES_PREFIX = '/-/badge-images'

/** `<namespace…>/<project>/badges/<ref…>/(pipeline|coverage).svg`. */
const BADGE_URL = /^\/[^/]+(?:\/[^/]+)+\/badges\/.+\/(?:pipeline|coverage)\.svg$/

/** For Fastify's rewriteUrl: a badge's URL (never one of /api or /-/) moved under BADGES_PREFIX. */
export function routeBadgeUrl(url: string): string {
  const queryAt = url.indexOf('?')
  const urlPath = queryAt === -1 ? url : url.slice(0, queryAt)
  if (urlPath.startsWith('/api/') || urlPath.startsWith('/-/') || !BADGE_URL.test(urlPath)) return url
  return `${BADGES_PREFIX}${url}`
}

/** The no_cache_headers of the original's controllers. */
const NO_CACHE = {
  'cache-control': 'no-cache, no-store, max-age=0, must-revalidate',
  pragma: 'no-cache',
  expires: 'Fri, 01 Jan 1990 00:00:00 GMT',
}

interface BadgeTarget {
  loaded: LoadedProject
  ref: string
  badge: 'pipeline' | 'coverage'
}

/**
 * The project, ref and badge of a URL. Projects and refs may be called `badges`, so each `badges`
 * segment is tried from the first, and the first that follows an existing project wins.
 */
async function badgeTarget(req: FastifyRequest, segments: readonly string[]): Promise<BadgeTarget | null> {
  const badge = segments.at(-1) === 'pipeline.svg' ? 'pipeline' : 'coverage'
  for (let at = 2; at < segments.length - 2; at++) {
    if (segments[at] !== 'badges') continue
    const fullPath = segments.slice(0, at).join('/')
    if (await findProjectByIdOrPath(req.ingot.db, fullPath) === null) continue
    const loaded = await loadProject(req, fullPath)
    if (!canOnProject(req.actor, loaded, 'read_build')) return null
    return { loaded, ref: segments.slice(at + 1, -1).join('/'), badge }
  }
  return null
}

async function templateOf(req: FastifyRequest, { loaded, ref, badge }: BadgeTarget): Promise<BadgeTemplate> {
  const { db, repositories } = req.ingot
  const projectId = loaded.project.id
  if (badge === 'coverage') {
    const job = (req.query as { job?: unknown }).job
    return coverageBadge(await coverageOf(db, projectId, ref, typeof job === 'string' ? job : null))
  }
  // The last commit of the ref; a ref git refuses to read names none.
  const sha = await repositories.open(projectId).resolveCommit(ref).catch(() => null)
  return pipelineBadge(await pipelineStatusOf(db, projectId, ref, sha))
}

/** The original's badge.svg.erb: every text escaped. */
export function badgeSvg(badge: BadgeTemplate): string {
  const { keyWidth, valueWidth } = badge
  const width = keyWidth + valueWidth
  const keyAnchor = Math.floor(keyWidth / 2)
  const valueAnchor = keyWidth + Math.floor(valueWidth / 2)
  return html`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="20">
  <linearGradient id="b" x2="0" y2="100%">
    <stop offset="0" stop-color="#bbb" stop-opacity=".1"/>
    <stop offset="1" stop-opacity=".1"/>
  </linearGradient>

  <mask id="a">
    <rect width="${width}" height="20" rx="3" fill="#fff"/>
  </mask>

  <g mask="url(#a)">
    <path fill="${badge.keyColor}"
          d="M0 0 h${keyWidth} v20 H0 z"/>
    <path fill="${badge.valueColor}"
          d="M${keyWidth} 0 h${valueWidth} v20 H${keyWidth} z"/>
    <path fill="url(#b)"
          d="M0 0 h${width} v20 H0 z"/>
  </g>

  <g fill="#fff" text-anchor="middle">
    <g font-family="DejaVu Sans,Verdana,Geneva,sans-serif" font-size="11">
      <text x="${keyAnchor}" y="15" fill="#010101" fill-opacity=".3">
        ${badge.keyText}
      </text>
      <text x="${keyAnchor}" y="14">
        ${badge.keyText}
      </text>
      <text x="${valueAnchor}" y="15" fill="#010101" fill-opacity=".3">
        ${badge.valueText}
      </text>
      <text x="${valueAnchor}" y="14">
        ${badge.valueText}
      </text>
    </g>
  </g>
</svg>
`.markup
}

const badgeImages: FastifyPluginAsync = async (app) => {
  app.get(`${BADGES_PREFIX}/*`, { config: { auth: 'optional' } }, async (req, reply) => {
    // The router hands the rest of the path over decoded.
    const target = await badgeTarget(req, (req.params as { '*': string })['*'].split('/'))
    if (target === null) throw notFound()
    const svg = badgeSvg(await templateOf(req, target))
    return reply.code(200).headers({ ...NO_CACHE, 'content-type': 'image/svg+xml; charset=utf-8' }).send(svg)
  })
}

export default badgeImages
