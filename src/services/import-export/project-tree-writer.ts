// project.json of the original's export format 0.2.4 (research §1.3): the project's attributes and
// its relation tree (import_export.yml of release 11.5), written incrementally to `out` so memory
// stays flat whatever the project's size. Large relations (issues, merge requests, pipelines,
// snippets) are read in keyset batches with each batch's children in one query per relation; each
// batch is written as it is ready, waiting for `out` to drain. The records' shapes are in the
// export-tree-*.ts files by area.
import type { Writable } from 'node:stream'
import type { AppContext } from '../../context.js'
import { pipelineBatches, pipelineScheduleRecords, triggerRecords } from './export-tree-ci.js'
import { issueBatches, mergeRequestBatches } from './export-tree-issuables.js'
import { JsonObjectWriter, oneBatch } from './export-tree-json.js'
import {
  customAttributeRecords, hookRecords, labelRecords, milestoneRecords, projectAttributes, projectBadgeRecords,
  projectFeatureRecord, projectMemberRecords, protectedBranchRecords, protectedTagRecords, releaseRecords,
  serviceRecords, snippetBatches,
} from './export-tree-project.js'

export interface ProjectTreeOptions {
  /** The export request's `description`, which replaces the project's own in the archive. */
  description?: string | undefined
  /** Stops the writing between batches (the export job's time limit, or its lease lost). */
  signal?: AbortSignal | undefined
}

/** Writes project.json of the project to `out` (which it does not end). */
export async function writeProjectTree(ctx: AppContext, projectId: number, out: Writable, options: ProjectTreeOptions = {}): Promise<void> {
  const { db } = ctx
  const project = await db.selectFrom('projects').selectAll().where('id', '=', projectId).executeTakeFirstOrThrow()
  const integrations = await db.selectFrom('integrations').selectAll().where('project_id', '=', projectId).orderBy('id').execute()
  const json = new JsonObjectWriter(out, options.signal)
  await json.open()
  const attributes = projectAttributes(project, integrations, options.description ?? project.description ?? '')
  for (const [key, value] of Object.entries(attributes)) await json.value(key, value)
  await json.array('labels', oneBatch(labelRecords(db, projectId)))
  await json.array('milestones', oneBatch(milestoneRecords(db, projectId)))
  await json.array('issues', issueBatches(ctx, projectId))
  await json.array('snippets', snippetBatches(db, projectId))
  await json.array('releases', oneBatch(releaseRecords(db, projectId)))
  await json.array('project_members', oneBatch(projectMemberRecords(db, project)))
  await json.array('merge_requests', mergeRequestBatches(ctx, projectId))
  await json.array('pipelines', pipelineBatches(ctx, projectId))
  await json.array('triggers', oneBatch(triggerRecords(ctx, projectId)))
  await json.array('pipeline_schedules', oneBatch(pipelineScheduleRecords(ctx, projectId)))
  await json.value('services', serviceRecords(ctx, integrations))
  await json.array('hooks', oneBatch(hookRecords(db, projectId)))
  await json.array('protected_branches', oneBatch(protectedBranchRecords(db, projectId)))
  await json.array('protected_tags', oneBatch(protectedTagRecords(db, projectId)))
  await json.value('project_feature', projectFeatureRecord(project))
  await json.array('custom_attributes', oneBatch(customAttributeRecords(db, projectId)))
  await json.array('project_badges', oneBatch(projectBadgeRecords(db, projectId)))
  await json.value('ci_cd_settings', { group_runners_enabled: true })
  await json.close()
}
