// Files users uploaded, streamed from disk: user avatars at /uploads/… (services/uploads), public
// like the original's, only a user's current avatar; and projects' attachments at
// <full_path>/uploads/<secret>/<name>, to those who can see the project (404 for anyone else).
import fs from 'node:fs'
import path from 'node:path'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { AVATAR_CONTENT_TYPES, uploadsRoot, userAvatarDir } from '../services/uploads/user-avatar.js'
import { projectUploadPath, uploadContentType } from '../services/uploads/attachments.js'
import { userAvatarPath } from '../finders/users-finder.js'
import { ApiError } from '../common/errors.js'
import { loadProject } from './load.js'

/**
 * Where the router finds project attachments' URLs: under a prefix of their own, as git's are
 * (api/git-http.ts), since a project's full path has any number of segments.
 */
const PROJECT_UPLOADS_PREFIX = '/-/project-uploads'

const PROJECT_UPLOAD_URL = /^\/(.+)\/uploads\/([0-9a-f]{32})\/([^/?]+)$/

/** A wiki's own attachments (`<full_path>/wikis/uploads/…`) are the wiki pages' (web/projects/wikis.ts). */
const WIKI_PAGE_URL = /\/wikis\//

/** For Fastify's rewriteUrl: a project attachment's URL (never one of /api or /-/) moved under PROJECT_UPLOADS_PREFIX. */
export function routeProjectUploadUrl(url: string): string {
  const queryAt = url.indexOf('?')
  const urlPath = queryAt === -1 ? url : url.slice(0, queryAt)
  if (!PROJECT_UPLOAD_URL.test(urlPath) || WIKI_PAGE_URL.test(urlPath) || urlPath.startsWith('/api/') || urlPath.startsWith('/-/')) return url
  return `${PROJECT_UPLOADS_PREFIX}${url}`
}

const notFoundAnswer = { message: '404 Not Found' }

/** `attachment; filename=…` with an ASCII fallback and the exact UTF-8 name. */
function attachmentDisposition(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\]/g, '_')
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(name)}`
}

const uploads: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/uploads/-/system/user/avatar/:user_id/:filename', {
    config: { auth: 'none' },
    schema: { params: Type.Object({ user_id: Type.Integer(), filename: Type.String() }) },
  }, async (req, reply) => {
    const { user_id: userId, filename } = req.params
    const avatarPath = `${userAvatarDir(userId)}/${filename}`
    if (await userAvatarPath(req.ingot.db, userId) !== avatarPath) return reply.code(404).send({ message: '404 Not Found' })
    const extension = path.extname(filename).slice(1).toLowerCase() as keyof typeof AVATAR_CONTENT_TYPES
    return reply
      .type(AVATAR_CONTENT_TYPES[extension] ?? 'application/octet-stream')
      .header('cache-control', 'public, max-age=3600')
      .send(fs.createReadStream(path.join(uploadsRoot(req.ingot.config.dataDir), avatarPath)))
  })

  // A project's avatar (set by a project import), to those who can see the project.
  app.get('/uploads/-/system/project/avatar/:project_id/:filename', {
    config: { auth: 'optional' },
    schema: { params: Type.Object({ project_id: Type.String({ pattern: '^[0-9]+$' }), filename: Type.String() }) },
  }, async (req, reply) => {
    const { project_id: projectId, filename } = req.params
    const project = await loadProject(req, projectId).then((loaded) => loaded.project, (err: unknown) => {
      if (err instanceof ApiError && err.statusCode === 404) return null
      throw err
    })
    const avatarPath = `-/system/project/avatar/${projectId}/${filename}`
    if (project === null || project.avatar_path !== avatarPath) return reply.code(404).send(notFoundAnswer)
    const extension = path.extname(filename).slice(1).toLowerCase() as keyof typeof AVATAR_CONTENT_TYPES
    return reply
      .type(AVATAR_CONTENT_TYPES[extension] ?? 'application/octet-stream')
      .header('cache-control', 'private, max-age=0, must-revalidate')
      .send(fs.createReadStream(path.join(uploadsRoot(req.ingot.config.dataDir), avatarPath)))
  })

  app.get(`${PROJECT_UPLOADS_PREFIX}/*`, {
    config: { auth: 'optional' },
  }, async (req, reply) => {
    const match = PROJECT_UPLOAD_URL.exec(`/${(req.params as { '*': string })['*']}`)
    if (match === null) return reply.code(404).send(notFoundAnswer)
    const [, fullPath = '', secret = '', name = ''] = match
    const project = await loadProject(req, fullPath).then((loaded) => loaded.project, (err: unknown) => {
      if (err instanceof ApiError && err.statusCode === 404) return null
      throw err
    })
    const file = project === null ? null : projectUploadPath(req.ingot.config.dataDir, project.id, { secret, name })
    const stat = file === null ? null : await fs.promises.stat(file).catch(() => null)
    if (file === null || stat === null || !stat.isFile()) return reply.code(404).send(notFoundAnswer)
    const { type, inline } = uploadContentType(name)
    if (!inline) void reply.header('content-disposition', attachmentDisposition(name))
    return reply
      .type(type)
      .header('cache-control', 'private, max-age=0, must-revalidate')
      .send(fs.createReadStream(file))
  })
}

export default uploads
