// Files users uploaded, served at /uploads/…: for now user avatars (services/uploads), public like
// the original's. Only a user's current avatar is served, streamed from disk.
import fs from 'node:fs'
import path from 'node:path'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { AVATAR_CONTENT_TYPES, uploadsRoot, userAvatarDir } from '../services/uploads/user-avatar.js'
import { fitsIntegerColumn } from '../db/values.js'

const uploads: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/uploads/-/system/user/avatar/:user_id/:filename', {
    config: { auth: 'none' },
    schema: { params: Type.Object({ user_id: Type.Integer(), filename: Type.String() }) },
  }, async (req, reply) => {
    const { user_id: userId, filename } = req.params
    const avatarPath = `${userAvatarDir(userId)}/${filename}`
    const user = fitsIntegerColumn(userId)
      ? await req.server.ingot.db.selectFrom('users').select('avatar_path').where('id', '=', userId).executeTakeFirst()
      : undefined
    if (user?.avatar_path !== avatarPath) return reply.code(404).send({ message: '404 Not Found' })
    const extension = path.extname(filename).slice(1).toLowerCase() as keyof typeof AVATAR_CONTENT_TYPES
    return reply
      .type(AVATAR_CONTENT_TYPES[extension] ?? 'application/octet-stream')
      .header('cache-control', 'public, max-age=3600')
      .header('x-content-type-options', 'nosniff')
      .send(fs.createReadStream(path.join(uploadsRoot(req.server.ingot.config.dataDir), avatarPath)))
  })
}

export default uploads
