// (being written)
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'

const projects: FastifyPluginAsyncTypebox = async () => {}

export default projects
