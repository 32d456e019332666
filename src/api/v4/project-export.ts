// Project export (spec: Project import and export; the original 11.5's API::ProjectExport):
// POST /projects/:id/export starts one (a job), GET /projects/:id/export tells its status, GET
// /projects/:id/export/download sends the archive. All three need admin_project (Maintainer) and
// answer 404 while the project_export_enabled setting is off, as the original's `before` block.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import { apiError, notFound } from '../../common/errors.js'
import { ProjectExportStatus, presentProjectExportStatus } from '../../entities/project-export.js'
import { exportStatusOf, exportUploadOf, findExport, openExportDownload, requestExport } from '../../services/import-export/export-project.js'
import { getApplicationSettings } from '../../services/settings.js'
import { sendAttachment } from '../attachment.js'
import { loadProjectFor, requireActor, type LoadedProject } from '../load.js'
import { IdParams } from '../params.js'
import { presentCtx } from '../present.js'

const ExportBody = Type.Object({
  description: Type.Optional(Type.String()),
  upload: Type.Optional(Type.Object({
    url: Type.Optional(Type.String()),
    http_method: Type.Optional(Type.String()),
  })),
})

/** The setting first (for everyone), then the project as a Maintainer sees it. */
async function loadExportable(req: FastifyRequest, id: string): Promise<LoadedProject> {
  if (!(await getApplicationSettings(req.ingot.db)).project_export_enabled) throw notFound()
  return loadProjectFor(req, id, 'admin_project')
}

const projectExport: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/projects/:id/export', {
    schema: { params: IdParams, response: { 200: ProjectExportStatus } },
  }, async (req) => {
    const { project, namespace } = await loadExportable(req, req.params.id)
    const status = exportStatusOf(await findExport(req.ingot, project.id))
    return presentProjectExportStatus(project, namespace, status, presentCtx(req))
  })

  app.get('/projects/:id/export/download', {
    schema: { params: IdParams },
  }, async (req, reply) => {
    const { project } = await loadExportable(req, req.params.id)
    const download = await openExportDownload(req.ingot, project.id)
    if (download === null) throw apiError(404, '404 Not found or has expired')
    return sendAttachment(reply, download.fileName, 'application/gzip', download.size, download.stream)
  })

  app.post('/projects/:id/export', {
    schema: { params: IdParams, body: ExportBody, response: { 202: Type.Object({ message: Type.String() }) } },
  }, async (req, reply) => {
    const actor = requireActor(req)
    const { project } = await loadExportable(req, req.params.id)
    const upload = exportUploadOf(req.body.upload)
    // A request while an export runs starts nothing, and is accepted all the same.
    await requestExport(req.ingot, { projectId: project.id, userId: actor.user.id, description: req.body.description ?? null, upload })
    return reply.code(202).send({ message: '202 Accepted' })
  })
}

export default projectExport
