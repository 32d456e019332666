// (being written)
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'

const users: FastifyPluginAsyncTypebox = async () => {}

export default users
