// What the project tests share: the field sets of the project forms and small ways to set up rows
// that other resources' endpoints own (shares, stars, custom attributes, statistics), and its full path.
import type { ApiResponse, TestApp } from './app.js'
import type { ProjectRow } from '../../src/db/schema.js'

/** The simple form (spec: Project, simple form). */
export const SIMPLE_FIELDS = [
  'avatar_url', 'created_at', 'default_branch', 'description', 'forks_count', 'http_url_to_repo', 'id', 'last_activity_at',
  'name', 'name_with_namespace', 'path', 'path_with_namespace', 'readme_url', 'ssh_url_to_repo', 'star_count', 'tag_list',
  'web_url',
].sort()

/** The full form of a group project whose issues are enabled, as lists and other callers get it. */
export const FULL_FIELDS = [
  ...SIMPLE_FIELDS, '_links', 'archived', 'ci_config_path', 'container_registry_enabled', 'creator_id', 'empty_repo',
  'import_status', 'issues_enabled', 'jobs_enabled', 'lfs_enabled', 'merge_method', 'merge_requests_enabled', 'namespace',
  'only_allow_merge_if_all_discussions_are_resolved', 'only_allow_merge_if_pipeline_succeeds', 'open_issues_count',
  'printing_merge_request_link_enabled', 'public_jobs', 'request_access_enabled', 'resolve_outdated_diff_discussions',
  'shared_runners_enabled', 'shared_with_groups', 'snippets_enabled', 'visibility', 'wiki_enabled',
].sort()

/** The fields only those who administer the project get, on single-project answers. */
export const ADMIN_FIELDS = ['import_error', 'runners_token']

export const fields = (...sets: string[][]): string[] => [...new Set(sets.flat())].sort()
export const keysOf = (value: object): string[] => Object.keys(value).sort()
export const idsOf = (res: ApiResponse): number[] => (res.body as { id: number }[]).map((p) => p.id)
export const sortedIds = (res: ApiResponse): number[] => idsOf(res).sort((a, b) => a - b)
export const sorted = (ids: number[]): number[] => [...ids].sort((a, b) => a - b)

export async function shareWith(t: TestApp, projectId: number, groupId: number, groupAccess: number, expiresAt: string | null = null) {
  await t.ctx.db.insertInto('project_group_links')
    .values({ project_id: projectId, group_id: groupId, group_access: groupAccess, expires_at: expiresAt, created_at: Date.now() })
    .execute()
}

export async function setProjectAttribute(t: TestApp, projectId: number, key: string, value: string) {
  await t.ctx.db.insertInto('custom_attributes')
    .values({ subject_type: 'project', subject_id: projectId, key, value, created_at: Date.now(), updated_at: Date.now() })
    .execute()
}

export async function setProjectColumns(t: TestApp, projectId: number, values: { archived?: 0 | 1; issues_enabled?: 0 | 1; merge_requests_enabled?: 0 | 1; created_at?: number; updated_at?: number; last_activity_at?: number }) {
  await t.ctx.db.updateTable('projects').set(values).where('id', '=', projectId).execute()
}

/** `<namespace full path>/<project path>`: where the project's git and web URLs live. */
export async function projectFullPath(t: TestApp, project: ProjectRow): Promise<string> {
  const namespace = await t.ctx.db.selectFrom('namespaces').select('full_path').where('id', '=', project.namespace_id).executeTakeFirstOrThrow()
  return `${namespace.full_path}/${project.path}`
}
