// Changes to runners from their administrators (the runner API of the original 11.5, and a
// project's CI/CD settings page): their settings, enabling a runner on one more project and
// disabling it there (with the API's rules on which runner and whose), and removing it. Who may
// change a runner's settings or remove it is the caller's question (authorizeRunnerOwner answers
// the common case); these keep the runner's rows consistent.
import type { Actor } from '../../../auth/actor.js'
import type { Db } from '../../../db/index.js'
import type { CiRunnerRow } from '../../../db/schema.js'
import { parseJsonArray } from '../../../db/values.js'
import { forbidden, notFound, validationFailed } from '../../../common/errors.js'
import { isOwnedRunner, isRunnerOfProject, runnerProjectCount } from '../../../finders/runners-finder.js'
import { checkRunnerSettings } from './runner-attributes.js'

export interface RunnerChanges {
  description?: string | null
  active?: boolean
  tags?: string[]
  runUntagged?: boolean
  locked?: boolean
  accessLevel?: 'not_protected' | 'ref_protected'
  maximumTimeout?: number | null
}

const flag = (value: boolean | undefined) => (value === undefined ? undefined : value ? 1 as const : 0 as const)

/** Applies the changes given; 400 (field messages) when the runner would break the original's rules. */
export async function updateRunner(db: Db, runner: CiRunnerRow, changes: RunnerChanges): Promise<CiRunnerRow> {
  checkRunnerSettings({
    tags: changes.tags ?? parseJsonArray(runner.tag_list),
    runUntagged: changes.runUntagged ?? runner.run_untagged === 1,
    maximumTimeout: changes.maximumTimeout === undefined ? runner.maximum_timeout : changes.maximumTimeout,
  })
  return db.updateTable('ci_runners').set({
    description: changes.description,
    active: flag(changes.active),
    tag_list: changes.tags === undefined ? undefined : JSON.stringify(changes.tags),
    run_untagged: flag(changes.runUntagged),
    locked: flag(changes.locked),
    access_level: changes.accessLevel,
    maximum_timeout: changes.maximumTimeout,
    updated_at: Date.now(),
  }).where('id', '=', runner.id).returningAll().executeTakeFirstOrThrow()
}

/** Removes the runner; its projects and groups let go of it with it. Its past jobs keep their runner's id. */
export async function deleteRunner(db: Db, runnerId: number): Promise<void> {
  await db.deleteFrom('ci_runners').where('id', '=', runnerId).execute()
}

/** 403 unless the actor may administer the runner: admins any runner, others their own (RunnerPolicy's owned_runner). */
export async function authorizeRunnerOwner(db: Db, actor: Actor, runner: CiRunnerRow): Promise<void> {
  if (actor.user.admin === 1) return
  if (!await isOwnedRunner(db, actor.user.id, runner.id)) throw forbidden('No access granted')
}

/**
 * Enables the runner on one more project, for a Maintainer of that project: never a group runner;
 * a locked runner, or one not theirs, only for admins (403 each). An instance runner becomes a
 * runner of that project, as the original's assign_to makes it. 400 as the original's validation
 * when the runner is already enabled there.
 */
export async function enableRunnerOnProject(db: Db, actor: Actor, runner: CiRunnerRow, projectId: number): Promise<CiRunnerRow> {
  if (runner.runner_type === 'group_type') throw forbidden('Runner is a group runner')
  if (actor.user.admin !== 1) {
    if (runner.locked === 1) throw forbidden('Runner is locked')
    await authorizeRunnerOwner(db, actor, runner)
  }
  const now = Date.now()
  return db.transaction().execute(async (trx) => {
    const inserted = await trx.insertInto('ci_runner_projects').values({ runner_id: runner.id, project_id: projectId, created_at: now })
      .onConflict((oc) => oc.columns(['runner_id', 'project_id']).doNothing()).returning('id').executeTakeFirst()
    if (inserted === undefined) throw validationFailed({ assign_to: ['Validation failed: Runner has already been taken'] })
    return trx.updateTable('ci_runners').set({ runner_type: 'project_type', updated_at: now })
      .where('id', '=', runner.id).returningAll().executeTakeFirstOrThrow()
  })
}

/** Disables the runner on the project: 404 when it is not enabled there, 403 when that is its only project (remove the runner instead). */
export async function disableRunnerOnProject(db: Db, runnerId: number, projectId: number): Promise<void> {
  if (!await isRunnerOfProject(db, runnerId, projectId)) throw notFound('Runner')
  if (await runnerProjectCount(db, runnerId) === 1) {
    throw forbidden('Only one project associated with the runner. Please remove the runner instead')
  }
  await db.deleteFrom('ci_runner_projects').where('runner_id', '=', runnerId).where('project_id', '=', projectId).execute()
}
