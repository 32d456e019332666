// A project's repository statistics (spec: Project `statistics`): commits on the default branch
// and the repository's size on disk, worked out by a job after pushes so a push never waits.
import fs from 'node:fs/promises'
import path from 'node:path'
import type { AppContext } from '../../context.js'

export const REFRESH_STATISTICS_JOB = 'project.refresh_statistics'

async function directorySize(dir: string): Promise<number> {
  let total = 0
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) total += await directorySize(full)
    else if (entry.isFile()) total += (await fs.stat(full)).size
  }
  return total
}

export async function refreshStatistics(ctx: Pick<AppContext, 'db' | 'repositories'>, projectId: number): Promise<void> {
  const project = await ctx.db.selectFrom('projects').select(['id', 'default_branch']).where('id', '=', projectId).executeTakeFirst()
  if (project === undefined) return
  const repo = ctx.repositories.open(projectId)
  const head = project.default_branch === null ? null : await repo.resolveCommit(project.default_branch)
  const commitCount = head === null ? 0 : Number((await repo.run(['rev-list', '--count', head])).trim())
  const repositorySize = await directorySize(repo.gitDir)
  await ctx.db.updateTable('project_statistics')
    .set((eb) => ({
      commit_count: commitCount,
      repository_size: repositorySize,
      storage_size: eb('lfs_objects_size', '+', eb('job_artifacts_size', '+', repositorySize)),
    }))
    .where('project_id', '=', projectId).execute()
}

export function defineStatisticsJob(ctx: AppContext): void {
  ctx.jobs.define(REFRESH_STATISTICS_JOB, async (payload) => {
    await refreshStatistics(ctx, (payload as { projectId: number }).projectId)
  })
}
