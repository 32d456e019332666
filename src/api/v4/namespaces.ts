// (being written)
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'

const namespaces: FastifyPluginAsyncTypebox = async () => {}

export default namespaces
