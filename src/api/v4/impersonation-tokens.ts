// (being written)
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'

const impersonationTokens: FastifyPluginAsyncTypebox = async () => {}

export default impersonationTokens
