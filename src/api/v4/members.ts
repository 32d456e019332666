// (being written)
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'

const members: FastifyPluginAsyncTypebox = async () => {}

export default members
