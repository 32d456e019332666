// (being written)
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'

const events: FastifyPluginAsyncTypebox = async () => {}

export default events
