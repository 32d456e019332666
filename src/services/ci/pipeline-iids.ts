// A new pipeline's number in its project (CI_PIPELINE_IID): the project's next `ci_pipelines`
// internal id, taken in the transaction that inserts the pipeline.
import type { Db } from '../../db/index.js'
import { nextInternalId } from '../issuables/internal-ids.js'

export function nextPipelineIid(trx: Db, projectId: number): Promise<number> {
  return nextInternalId(trx, { type: 'project', id: projectId }, 'ci_pipelines')
}
