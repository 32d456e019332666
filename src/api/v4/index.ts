// Mounts every resource of /api/v4: the whole API surface, readable in one file.
import type { FastifyPluginAsync } from 'fastify'
import version from './version.js'

const apiV4: FastifyPluginAsync = async (app) => {
  await app.register(version)
}

export default apiV4
