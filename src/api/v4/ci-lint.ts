// POST /ci/lint: whether a CI file is valid, with the original 11.5's answer and errors. As in
// 11.5 it needs no caller (the original never looks at one here) and has no project, so a local
// include is an error naming the file.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { parseCiConfig } from '../../services/ci/config/parse.js'

const LintBody = Type.Object({ content: Type.String({ description: 'The content of a .gitlab-ci.yml' }) })
const LintResult = Type.Object({
  status: Type.Union([Type.Literal('valid'), Type.Literal('invalid')]),
  errors: Type.Array(Type.String()),
})

const ciLint: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/ci/lint', {
    config: { auth: 'none' },
    schema: { body: LintBody, response: { 200: LintResult } },
  }, async (req) => {
    const result = await parseCiConfig(req.body.content)
    return result.ok ? { status: 'valid' as const, errors: [] } : { status: 'invalid' as const, errors: result.errors }
  })
}

export default ciLint
