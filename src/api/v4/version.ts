// GET /version: the API release Ingot answers as, so clients that gate features on it behave.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { ingotRevision } from '../../revision.js'

export const COMPATIBLE_VERSION = '11.5.0'

const Version = Type.Object({ version: Type.String(), revision: Type.String() })

const version: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/version', { schema: { response: { 200: Version } } }, async () => ({
    version: COMPATIBLE_VERSION,
    revision: await ingotRevision(),
  }))
}

export default version
