// What a project shows of its repository without reading it on every request, worked out by a job
// after pushes, forks and default branch changes so that none of them waits: the statistics (spec:
// Project `statistics`: commits on the default branch, the repository's size) and the README behind
// `readme_url`. The same job (its kind is in jobs.ts) keeps the repository's commit-graph current,
// which history reads by path (last commits of files, commit lists with `path`) need to stay fast
// on long histories. It also sums the project's CI artifacts (job_artifacts_size), enqueued by
// their uploads, archives, expiry and erasure.
import type { AppContext } from '../../context.js'
import { countCommits, historyFrom } from '../../git/log.js'
import type { GitRepository, TreeEntry } from '../../git/repository.js'
import { REFRESH_STATISTICS } from './jobs.js'
import { jobArtifactsSize } from '../ci/artifacts.js'

/**
 * How long a refresh waits after the change that asked for it. Pushes come in bursts, and the jobs
 * a push causes that someone waits for (its web hooks) should not share the CPU with four git
 * commands nobody waits for; every change within the wait shares the one refresh.
 */
export const STATISTICS_REFRESH_DELAY_MS = 1_000

/** Enqueues a refresh; while one is pending for the project, another request adds nothing. */
export async function enqueueStatisticsRefresh(ctx: Pick<AppContext, 'jobs'>, projectId: number): Promise<void> {
  await ctx.jobs.enqueue(REFRESH_STATISTICS, { projectId }, { uniqueKey: String(projectId), runAt: Date.now() + STATISTICS_REFRESH_DELAY_MS })
}

// The original's README rules (Gitlab::FileDetector, MarkupHelper): a root file named readme*, a
// rendered format first, else plain text (no extension, .txt or .text), else none.
const README_NAME = /^readme[^/]*$/i
const MARKUP_EXTENSIONS = new Set([
  'mdown', 'mkd', 'mkdn', 'md', 'markdown', 'adoc', 'ad', 'asciidoc', 'textile', 'rdoc', 'org', 'creole', 'wiki', 'mediawiki', 'rst',
])

function extensionOf(name: string): string | null {
  const dot = name.lastIndexOf('.')
  return dot === -1 ? null : name.slice(dot + 1).toLowerCase()
}

/** The README at the root of `revision` (default HEAD, the default branch), or null. */
export async function readmePathOf(repo: GitRepository, revision = 'HEAD'): Promise<string | null> {
  const commit = await repo.resolveCommit(revision)
  if (commit === null) return null
  return readmeAmong(await repo.listTree(commit, '', false))?.path ?? null
}

/** The README among the entries of a root tree, or null. */
export function readmeAmong(entries: readonly TreeEntry[]): TreeEntry | null {
  const readmes = entries.filter((entry) => entry.type === 'blob' && README_NAME.test(entry.path))
  const rendered = readmes.find((entry) => MARKUP_EXTENSIONS.has(extensionOf(entry.path) ?? ''))
  const plain = readmes.find((entry) => ['txt', 'text', null].includes(extensionOf(entry.path)))
  return rendered ?? plain ?? null
}

/** Refreshes the project's statistics and README path; false when the project is gone. */
export async function refreshStatistics(ctx: Pick<AppContext, 'db' | 'repositories'>, projectId: number): Promise<boolean> {
  const project = await ctx.db.selectFrom('projects').select(['id', 'readme_path']).where('id', '=', projectId).executeTakeFirst()
  if (project === undefined) return false
  const repo = ctx.repositories.open(projectId)
  // HEAD names the default branch (kept so by project updates and the first push), as the
  // original counts the commits of its root ref.
  const head = await repo.resolveCommit('HEAD')
  const [commitCount, size, readmePath, artifactsSize] = await Promise.all([
    head === null ? 0 : countCommits(repo, historyFrom(head)),
    repo.objectsSize(),
    readmePathOf(repo),
    jobArtifactsSize(ctx.db, projectId),
  ])
  await ctx.db.transaction().execute(async (trx) => {
    await trx.updateTable('project_statistics')
      .set((eb) => ({
        commit_count: commitCount,
        repository_size: size,
        job_artifacts_size: artifactsSize,
        storage_size: eb('lfs_objects_size', '+', size + artifactsSize),
      }))
      .where('project_id', '=', projectId).execute()
    // Written only when it changed: any write to projects ends every cached project answer.
    if (readmePath !== project.readme_path) {
      await trx.updateTable('projects').set({ readme_path: readmePath }).where('id', '=', projectId).execute()
    }
  })
  return true
}

/** The refresh job: statistics and README, then the commit-graph. */
export async function refreshStatisticsAndCommitGraph(ctx: AppContext, projectId: number): Promise<void> {
  if (await refreshStatistics(ctx, projectId)) await ctx.repositories.open(projectId).writeCommitGraph()
}
