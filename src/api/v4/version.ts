// GET /version: the API release Ingot answers as, so clients that gate features on it behave.
// GET /metadata: the same facts in the shape newer clients (e.g. @gitbeaker/rest) ask for.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { COMPATIBLE_VERSION, ingotRevision } from '../../revision.js'
import { NullableString } from '../../entities/common.js'

const Version = Type.Object({ version: Type.String(), revision: Type.String() })
const Metadata = Type.Composite([Version, Type.Object({
  kas: Type.Object({ enabled: Type.Boolean(), externalUrl: NullableString, version: NullableString }),
  enterprise: Type.Boolean(),
})])

const version: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/version', { schema: { response: { 200: Version } } }, async () => ({
    version: COMPATIBLE_VERSION,
    revision: await ingotRevision(),
  }))

  app.get('/metadata', { schema: { response: { 200: Metadata } } }, async () => ({
    version: COMPATIBLE_VERSION,
    revision: await ingotRevision(),
    kas: { enabled: false, externalUrl: null, version: null },
    enterprise: false,
  }))
}

export default version
