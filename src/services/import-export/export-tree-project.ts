// The project's own attributes in project.json under the original's names (those its export keeps:
// import_export.yml leaves out names, paths, ids, tokens, import state and timestamps), and the
// relations of the tree that are small per project: labels, milestones, snippets, releases,
// members, integrations, hooks, protected refs, features, badges, CI/CD settings and custom
// attributes. Nothing secret is written: no tokens, no sealed values, no integration passwords.
import type { AppContext } from '../../context.js'
import type { Db } from '../../db/index.js'
import type { IntegrationRow, MemberRow, ProjectRow } from '../../db/schema.js'
import { INTEGRATION_KINDS } from '../integrations/catalog.js'
import { parseSettings } from '../integrations/integrations.js'
import { BATCH_SIZE, bool, groupBy, instant, keysetBatches, mapBatches, rowsIn } from './export-tree-json.js'
import { awardEmojiOf, eventsOf, labelRecord, milestoneRecord, notesOf, type JsonRecord } from './export-tree-records.js'

/** The original's model name of each kind of integration: its slug in the original, camel-cased, then `Service`. */
function serviceType(slug: string): string {
  const kind = INTEGRATION_KINDS.find((candidate) => candidate.slug === slug)
  const original = kind?.originalSlug ?? slug
  return `${original.split(/[-_]/).map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('')}Service`
}

const ISSUE_TRACKER_KINDS = new Set(['bug-tracker', 'custom-issue-tracker', 'issue-tracker-workflow'])

/** The project's attributes, under the original's names, before its relations. */
export function projectAttributes(project: ProjectRow, integrations: readonly IntegrationRow[], description: string): JsonRecord {
  const active = (kinds: (kind: string) => boolean) => integrations.some((row) => bool(row.active) && kinds(row.kind))
  return {
    description,
    visibility_level: project.visibility_level,
    archived: bool(project.archived),
    shared_runners_enabled: bool(project.shared_runners_enabled),
    build_coverage_regex: null,
    build_allow_git_fetch: true,
    build_timeout: Number(project.build_timeout),
    pending_delete: false,
    public_builds: bool(project.public_jobs),
    last_repository_check_failed: null,
    container_registry_enabled: bool(project.container_registry_enabled),
    only_allow_merge_if_pipeline_succeeds: bool(project.only_allow_merge_if_pipeline_succeeds),
    has_external_issue_tracker: active((kind) => ISSUE_TRACKER_KINDS.has(kind)),
    request_access_enabled: bool(project.request_access_enabled),
    has_external_wiki: active((kind) => kind === 'external-wiki'),
    only_allow_merge_if_all_discussions_are_resolved: bool(project.only_allow_merge_if_all_discussions_are_resolved),
    printing_merge_request_link_enabled: bool(project.printing_merge_request_link_enabled),
    auto_cancel_pending_pipelines: 'enabled',
    ci_config_path: project.ci_config_path,
    delete_error: null,
    merge_requests_rebase_enabled: project.merge_method === 'rebase_merge',
    merge_requests_ff_only_enabled: project.merge_method === 'ff',
    resolve_outdated_diff_discussions: bool(project.resolve_outdated_diff_discussions),
    jobs_cache_index: null,
    pages_https_only: false,
  }
}

export async function labelRecords(db: Db, projectId: number): Promise<JsonRecord[]> {
  const rows = await db.selectFrom('labels').selectAll().where('project_id', '=', projectId).orderBy('id').execute()
  return rows.map(labelRecord)
}

export async function milestoneRecords(db: Db, projectId: number): Promise<JsonRecord[]> {
  const rows = await db.selectFrom('milestones').selectAll().where('project_id', '=', projectId).orderBy('iid').execute()
  const events = await eventsOf(db, 'Milestone', rows.map((row) => row.id))
  return rows.map((row) => milestoneRecord(row, events.get(row.id) ?? []))
}

/** The project's snippets with their award emoji and notes (notes with their author), in batches. */
export function snippetBatches(db: Db, projectId: number): AsyncIterable<JsonRecord[]> {
  const pages = keysetBatches((after) => db.selectFrom('snippets').selectAll()
    .where('project_id', '=', projectId)
    .$if(after !== null, (qb) => qb.where('id', '>', after!))
    .orderBy('id').limit(BATCH_SIZE).execute(), (snippet) => snippet.id)
  return mapBatches(pages, async (snippets) => {
    const ids = snippets.map((snippet) => snippet.id)
    const [awards, notes] = await Promise.all([awardEmojiOf(db, 'Snippet', ids), notesOf(db, 'Snippet', ids, { events: false })])
    return snippets.map((snippet) => ({
      id: snippet.id,
      title: snippet.title,
      content: snippet.content,
      author_id: snippet.author_id,
      project_id: snippet.project_id,
      created_at: instant(snippet.created_at),
      updated_at: instant(snippet.updated_at),
      file_name: snippet.file_name,
      type: 'ProjectSnippet',
      visibility_level: snippet.visibility_level,
      description: snippet.description,
      award_emoji: awards.get(snippet.id) ?? [],
      notes: notes.get(snippet.id) ?? [],
    }))
  })
}

export async function releaseRecords(db: Db, projectId: number): Promise<JsonRecord[]> {
  const rows = await db.selectFrom('releases').selectAll().where('project_id', '=', projectId).orderBy('id').execute()
  return rows.map((row) => ({
    id: row.id, tag: row.tag, description: row.description, project_id: row.project_id,
    created_at: instant(row.created_at), updated_at: instant(row.updated_at), author_id: row.author_id, name: row.tag,
  }))
}

function memberRecord(member: MemberRow, projectId: number, user: JsonRecord | undefined): JsonRecord {
  return {
    id: member.id,
    access_level: member.access_level,
    source_id: member.source_type === 'project' ? member.source_id : projectId,
    // Group members are written as the project's own, as the original's export does.
    source_type: 'Project',
    user_id: member.user_id,
    notification_level: 3,
    created_at: instant(member.created_at),
    updated_at: instant(member.updated_at),
    created_by_id: member.created_by_id,
    invite_email: null,
    invite_accepted_at: null,
    requested_at: null,
    expires_at: member.expires_at,
    user: user ?? null,
  }
}

/** The namespace's group and its ancestors, nearest first (none for a user's namespace). */
async function groupChain(db: Db, namespaceId: number): Promise<number[]> {
  const chain: number[] = []
  for (let id: number | null = namespaceId; id !== null && !chain.includes(id);) {
    const namespace: { id: number; kind: string; parent_id: number | null } | undefined = await db.selectFrom('namespaces')
      .select(['id', 'kind', 'parent_id']).where('id', '=', id).executeTakeFirst()
    if (namespace === undefined || namespace.kind !== 'group') break
    chain.push(namespace.id)
    id = namespace.parent_id
  }
  return chain
}

/**
 * The project's members, then the members of its group and the group's ancestors who are not
 * members of the project themselves (the nearest group's membership for each), each user with id,
 * email and username only.
 */
export async function projectMemberRecords(db: Db, project: ProjectRow): Promise<JsonRecord[]> {
  const own = await db.selectFrom('members').selectAll()
    .where('source_type', '=', 'project').where('source_id', '=', project.id).orderBy('id').execute()
  const groups = await groupChain(db, project.namespace_id)
  const groupRows = groups.length === 0 ? [] : await db.selectFrom('members').selectAll()
    .where('source_type', '=', 'group').where('source_id', 'in', groups).orderBy('id').execute()
  const seen = new Set(own.map((member) => member.user_id))
  const inherited: MemberRow[] = []
  const byGroup = groupBy(groupRows, (member) => member.source_id)
  for (const group of groups) {
    for (const member of byGroup.get(group) ?? []) {
      if (seen.has(member.user_id)) continue
      seen.add(member.user_id)
      inherited.push(member)
    }
  }
  const members = [...own, ...inherited]
  const users = new Map((await rowsIn(members.map((member) => member.user_id), (chunk) => db.selectFrom('users')
    .select(['id', 'email', 'username']).where('id', 'in', chunk).execute()))
    .map((user) => [user.id, { id: user.id, email: user.email, username: user.username }]))
  return members.map((member) => memberRecord(member, project.id, users.get(member.user_id)))
}

/** The settings of an integration that are not secret (nor a chat webhook's URL, which carries its key), under the original's names. */
function publicProperties(ctx: AppContext, row: IntegrationRow): JsonRecord {
  const kind = INTEGRATION_KINDS.find((candidate) => candidate.slug === row.kind)
  if (kind === undefined) return {}
  const settings = parseSettings(ctx.secrets, row)
  const properties: JsonRecord = {}
  for (const field of kind.fields) {
    if (field.secret === true || field.name === 'webhook' || settings[field.name] === undefined) continue
    properties[field.originalName ?? field.name] = settings[field.name]
  }
  return properties
}

export function serviceRecords(ctx: AppContext, integrations: readonly IntegrationRow[]): JsonRecord[] {
  return integrations.map((row) => ({
    id: row.id,
    title: INTEGRATION_KINDS.find((kind) => kind.slug === row.kind)?.title ?? row.kind,
    project_id: row.project_id,
    created_at: instant(row.created_at),
    updated_at: instant(row.updated_at),
    active: bool(row.active),
    properties: publicProperties(ctx, row),
    template: false,
    push_events: bool(row.push_events),
    issues_events: bool(row.issues_events),
    merge_requests_events: bool(row.merge_requests_events),
    tag_push_events: bool(row.tag_push_events),
    note_events: bool(row.note_events),
    confidential_note_events: bool(row.confidential_note_events),
    pipeline_events: bool(row.pipeline_events),
    wiki_page_events: bool(row.wiki_page_events),
    job_events: bool(row.job_events),
    confidential_issues_events: bool(row.confidential_issues_events),
    type: serviceType(row.kind),
    category: 'common',
    default: false,
  }))
}

/** The project's hooks, without their tokens. */
export async function hookRecords(db: Db, projectId: number): Promise<JsonRecord[]> {
  const rows = await db.selectFrom('web_hooks').selectAll().where('project_id', '=', projectId).orderBy('id').execute()
  return rows.map((row) => ({
    id: row.id,
    url: row.url,
    project_id: row.project_id,
    created_at: instant(row.created_at),
    updated_at: instant(row.updated_at),
    type: 'ProjectHook',
    service_id: null,
    push_events: bool(row.push_events),
    issues_events: bool(row.issues_events),
    merge_requests_events: bool(row.merge_requests_events),
    tag_push_events: bool(row.tag_push_events),
    note_events: bool(row.note_events),
    pipeline_events: bool(row.pipeline_events),
    wiki_page_events: bool(row.wiki_page_events),
    job_events: bool(row.job_events),
    confidential_issues_events: bool(row.confidential_issues_events),
    repository_update_events: bool(row.repository_update_events),
    enable_ssl_verification: bool(row.enable_ssl_verification),
    push_events_branch_filter: row.push_events_branch_filter,
  }))
}

/** One access level of a protected ref (Ingot keeps one a ref and kind; the original a list). */
function accessLevel(refKey: string, ref: { id: number; created_at: number; updated_at: number }, level: number): JsonRecord[] {
  return [{
    [refKey]: ref.id, access_level: level, created_at: instant(ref.created_at), updated_at: instant(ref.updated_at), user_id: null, group_id: null,
  }]
}

export async function protectedBranchRecords(db: Db, projectId: number): Promise<JsonRecord[]> {
  const rows = await db.selectFrom('protected_branches').selectAll().where('project_id', '=', projectId).orderBy('id').execute()
  return rows.map((row) => ({
    id: row.id, project_id: row.project_id, name: row.name, created_at: instant(row.created_at), updated_at: instant(row.updated_at),
    merge_access_levels: accessLevel('protected_branch_id', row, row.merge_access_level),
    push_access_levels: accessLevel('protected_branch_id', row, row.push_access_level),
  }))
}

export async function protectedTagRecords(db: Db, projectId: number): Promise<JsonRecord[]> {
  const rows = await db.selectFrom('protected_tags').selectAll().where('project_id', '=', projectId).orderBy('id').execute()
  return rows.map((row) => ({
    id: row.id, project_id: row.project_id, name: row.name, created_at: instant(row.created_at), updated_at: instant(row.updated_at),
    create_access_levels: accessLevel('protected_tag_id', row, row.create_access_level),
  }))
}

/** ProjectFeature: each feature ENABLED (20) or DISABLED (0); Ingot has no private (10) setting. */
export function projectFeatureRecord(project: ProjectRow): JsonRecord {
  const level = (enabled: number) => (bool(enabled) ? 20 : 0)
  return {
    project_id: project.id,
    merge_requests_access_level: level(project.merge_requests_enabled),
    issues_access_level: level(project.issues_enabled),
    wiki_access_level: level(project.wiki_enabled),
    snippets_access_level: level(project.snippets_enabled),
    builds_access_level: level(project.jobs_enabled),
    repository_access_level: 20,
    created_at: instant(project.created_at),
    updated_at: instant(project.updated_at),
  }
}

export async function customAttributeRecords(db: Db, projectId: number): Promise<JsonRecord[]> {
  const rows = await db.selectFrom('custom_attributes').selectAll()
    .where('subject_type', '=', 'project').where('subject_id', '=', projectId).orderBy('id').execute()
  return rows.map((row) => ({
    id: row.id, created_at: instant(row.created_at), updated_at: instant(row.updated_at), project_id: projectId, key: row.key, value: row.value,
  }))
}

export async function projectBadgeRecords(db: Db, projectId: number): Promise<JsonRecord[]> {
  const rows = await db.selectFrom('badges').selectAll().where('project_id', '=', projectId).orderBy('id').execute()
  return rows.map((row) => ({
    id: row.id, link_url: row.link_url, image_url: row.image_url, project_id: row.project_id,
    created_at: instant(row.created_at), updated_at: instant(row.updated_at), type: 'ProjectBadge',
  }))
}
