// (being written)
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'

const groups: FastifyPluginAsyncTypebox = async () => {}

export default groups
