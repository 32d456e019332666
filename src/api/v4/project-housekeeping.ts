// POST /projects/:id/housekeeping (the original's, release 11.5): Maintainers start the repository
// housekeeping task the project's push count picks (services/projects/housekeeping.ts), as a job.
// 201 with the job's id, as the original answers with its background job's id; 409 with the
// original's sentence while one is pending or running.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { HOUSEKEEPING_IN_PROGRESS, startHousekeeping } from '../../services/projects/housekeeping.js'
import { conflict } from '../../common/errors.js'
import { JSON_TYPE } from '../json-type.js'
import { loadProjectFor } from '../load.js'
import { IdParams } from '../params.js'

const projectHousekeeping: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/projects/:id/housekeeping', {
    schema: { params: IdParams, response: { 201: Type.String({ description: 'The id of the housekeeping job' }) } },
  }, async (req, reply) => {
    const { project } = await loadProjectFor(req, req.params.id, 'admin_project')
    const jobId = await startHousekeeping(req.ingot, project.id)
    if (jobId === null) throw conflict(HOUSEKEEPING_IN_PROGRESS)
    // A string is sent as it is unless serialized here: the original's answer is a JSON string.
    return reply.code(201).type(JSON_TYPE).send(JSON.stringify(String(jobId)))
  })
}

export default projectHousekeeping
