// ProjectExportStatus (GET /projects/:id/export), as the original 11.5's entity: ProjectIdentity,
// `export_status`, and `_links` to the archive only once it is finished.
import { Type, type Static } from '@sinclair/typebox'
import type { NamespaceRow, ProjectRow } from '../db/schema.js'
import type { PresentContext } from './common.js'
import { ProjectIdentity, presentProjectIdentity } from './project.js'

export const EXPORT_STATUSES = ['none', 'started', 'after_export_action', 'finished'] as const
export type ExportStatus = typeof EXPORT_STATUSES[number]

export const ProjectExportStatus = Type.Composite([ProjectIdentity, Type.Object({
  export_status: Type.Union(EXPORT_STATUSES.map((status) => Type.Literal(status))),
  _links: Type.Optional(Type.Object({ api_url: Type.String(), web_url: Type.String() })),
})])
export type ProjectExportStatusEntity = Static<typeof ProjectExportStatus>

export function presentProjectExportStatus(
  project: ProjectRow, namespace: NamespaceRow, status: ExportStatus, ctx: PresentContext,
): ProjectExportStatusEntity {
  const identity = presentProjectIdentity(project, namespace)
  if (status !== 'finished') return { ...identity, export_status: status }
  return {
    ...identity,
    export_status: status,
    _links: {
      api_url: `${ctx.apiUrl}/projects/${project.id}/export/download`,
      web_url: `${ctx.baseUrl}/${identity.path_with_namespace}/download_export`,
    },
  }
}
