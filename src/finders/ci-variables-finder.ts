// CI/CD variables as their API lists and shows them (one owner's, a page in key order; one by key),
// and as a job gets them: its project's group chain's (the root group's first, the closest group's
// last) then the project's own, in one read, with the pipeline's own variables for a job request.
import { sql } from 'kysely'
import type { Db } from '../db/index.js'
import type { CiVariableRow } from '../db/schema.js'
import { paginate, type Page, type PaginationQuery } from '../common/pages.js'

/** Whose variables: a project's, or a group's. */
export type CiVariableOwner = { type: 'project'; id: number } | { type: 'group'; id: number }

const ownerColumn = (owner: CiVariableOwner) => owner.type === 'project' ? 'project_id' as const : 'group_id' as const

export function listCiVariables(db: Db, owner: CiVariableOwner, pagination: PaginationQuery): Promise<Page<CiVariableRow>> {
  return paginate(db, db.selectFrom('ci_variables').selectAll().where(ownerColumn(owner), '=', owner.id).orderBy('key'), pagination)
}

export async function findCiVariable(db: Db, owner: CiVariableOwner, key: string): Promise<CiVariableRow | null> {
  const row = await db.selectFrom('ci_variables').selectAll().where(ownerColumn(owner), '=', owner.id).where('key', '=', key).executeTakeFirst()
  return row ?? null
}

export type SealedJobVariable = Pick<CiVariableRow, 'key' | 'encrypted_value' | 'protected'>

/** The project's CI/CD variables and its groups', each row ranked: the root group highest, the project -1. */
const rankedCiVariables = (projectId: number) => sql`with recursive chain(id, depth) as (
      select namespace_id, 0 from projects where id = ${projectId}
      union all select n.parent_id, chain.depth + 1 from namespaces n join chain on n.id = chain.id where n.parent_id is not null
    )
    select v.id, v.key, v.encrypted_value, v.protected, coalesce(chain.depth, -1) as rank from ci_variables v left join chain on chain.id = v.group_id
    where v.project_id = ${projectId} or v.group_id in (select id from chain)`

/**
 * The variables of a project's jobs, in the order later ones win: the groups' from the root group
 * down to the project's own group, then the project's. One query: the group chain is walked in it.
 */
export async function jobCiVariables(db: Db, projectId: number): Promise<SealedJobVariable[]> {
  const { rows } = await sql<SealedJobVariable>`select key, encrypted_value, protected from (${rankedCiVariables(projectId)}) ci
    order by rank desc, id`.execute(db)
  return rows
}

/**
 * What a job of the pipeline is given of stored variables, in one query: the CI/CD variables as
 * jobCiVariables has them, and the pipeline's own (in the order they were given).
 */
export async function jobStoredVariables(db: Db, projectId: number, pipelineId: number): Promise<{ ci: SealedJobVariable[]; pipeline: SealedJobVariable[] }> {
  const { rows } = await sql<SealedJobVariable & { pipeline: number }>`select key, encrypted_value, protected, pipeline from (
      select id, key, encrypted_value, protected, rank, 0 as pipeline from (${rankedCiVariables(projectId)}) ci
      union all select id, key, encrypted_value, 0, 0, 1 from ci_pipeline_variables where pipeline_id = ${pipelineId}
    ) stored order by pipeline, rank desc, id`.execute(db)
  const variable = ({ key, encrypted_value, protected: isProtected }: SealedJobVariable) => ({ key, encrypted_value, protected: isProtected })
  return {
    ci: rows.filter((row) => Number(row.pipeline) === 0).map(variable),
    pipeline: rows.filter((row) => Number(row.pipeline) === 1).map(variable),
  }
}
