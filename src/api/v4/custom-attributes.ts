// (being written)
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'

const customAttributes: FastifyPluginAsyncTypebox = async () => {}

export default customAttributes
