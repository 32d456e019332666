// A project's integrations as its settings page lists them: every row it has, whatever the kind
// and whether active or not. Which integrations act on an event is services/integrations' question.
import type { Db } from '../db/index.js'
import type { IntegrationRow } from '../db/schema.js'

export function listProjectIntegrations(db: Db, projectId: number): Promise<IntegrationRow[]> {
  return db.selectFrom('integrations').selectAll().where('project_id', '=', projectId).orderBy('id').execute()
}
