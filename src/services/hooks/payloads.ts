// The JSON bodies hooks carry, in the original's shapes (its DataBuilder::Push, Issuable, Note and
// WikiPage, release 11.5): `object_kind`, the acting `user`, the `project`, `repository`, and
// `object_attributes` with the record's columns. Each builder loads what its one event needs (a
// handful of queries per event, in the fan-out job, never in the request that caused it).
import type { AppContext } from '../../context.js'
import type { Db } from '../../db/index.js'
import type {
  IssueRow, LabelRow, MergeRequestRow, NamespaceRow, NoteRow, ProjectRow, SnippetRow, UserRow,
} from '../../db/schema.js'
import { isoTime } from '../../db/values.js'
import { presentContext, sshUrlToRepo, type PresentContext } from '../../entities/common.js'
import { currentSshUrlPrefix } from '../git-access/ssh-url.js'
import { userAvatarUrl } from '../../entities/user.js'
import { signatureTime, type Commit } from '../../git/repository.js'
import { changedFilesOfCommits, type ChangedFiles } from '../../git/diff.js'
import { isWorkInProgress } from '../../entities/merge-request.js'
import { issueAssigneeIds } from '../../finders/issues-finder.js'
import { humanDuration } from '../issuables/time-tracking.js'
import type { Changes, IssueActivity, MergeRequestActivity, WikiPageActivity } from '../activity/activity.js'

export type HookPayload = Record<string, unknown>

/** A project with its namespace, the two every payload describes it from. */
export interface ProjectRef {
  project: ProjectRow
  namespace: NamespaceRow
}

export function hookPresentContext(ctx: Pick<AppContext, 'config' | 'db'>): PresentContext {
  return presentContext(ctx.config.externalUrl, null, { sshUrlPrefix: currentSshUrlPrefix(ctx), lfsEnabled: ctx.config.lfsEnabled })
}

export async function loadProjectRef(db: Db, projectId: number): Promise<ProjectRef | null> {
  const project = await db.selectFrom('projects').selectAll().where('id', '=', projectId).executeTakeFirst()
  if (project === undefined) return null
  const namespace = await db.selectFrom('namespaces').selectAll().where('id', '=', project.namespace_id).executeTakeFirstOrThrow()
  return { project, namespace }
}

function fullPath({ project, namespace }: ProjectRef): string {
  return `${namespace.full_path}/${project.path}`
}

export function projectWebUrl(ref: ProjectRef, pc: PresentContext): string {
  return `${pc.baseUrl}/${fullPath(ref)}`
}

function sshUrl(path: string, pc: PresentContext): string {
  return sshUrlToRepo(pc, path)
}

export function userHookAttrs(user: UserRow, pc: PresentContext): HookPayload {
  return { name: user.name, username: user.username, avatar_url: userAvatarUrl(user, pc) }
}

/** Project#hook_attrs; `backward` adds the old names (homepage, url, ssh_url, http_url) most payloads keep. */
export function projectHookAttrs(ref: ProjectRef, pc: PresentContext, backward = true): HookPayload {
  const path = fullPath(ref)
  const webUrl = projectWebUrl(ref, pc)
  const attrs: HookPayload = {
    id: ref.project.id,
    name: ref.project.name,
    description: ref.project.description,
    web_url: webUrl,
    avatar_url: ref.project.avatar_path === null ? null : `${pc.baseUrl}/uploads/${ref.project.avatar_path}`,
    git_ssh_url: sshUrl(path, pc),
    git_http_url: `${webUrl}.git`,
    namespace: ref.namespace.name,
    visibility_level: ref.project.visibility_level,
    path_with_namespace: path,
    default_branch: ref.project.default_branch,
    ci_config_path: ref.project.ci_config_path,
  }
  if (backward) Object.assign(attrs, { homepage: webUrl, url: sshUrl(path, pc), ssh_url: sshUrl(path, pc), http_url: `${webUrl}.git` })
  return attrs
}

/** The short `repository` object of issue, merge request and note payloads. */
function repositoryAttrs(ref: ProjectRef, pc: PresentContext): HookPayload {
  return { name: ref.project.name, url: sshUrl(fullPath(ref), pc), description: ref.project.description, homepage: projectWebUrl(ref, pc) }
}

/** A commit as hooks show it: committed time in the commit's zone without fractions, as Ruby's xmlschema. */
export function commitHookAttrs(commit: Commit, ref: ProjectRef, pc: PresentContext, files?: ChangedFiles): HookPayload {
  return {
    id: commit.id,
    message: commit.message,
    timestamp: signatureTime(commit.committer).replace(/\.\d{3}/, ''),
    url: `${projectWebUrl(ref, pc)}/commit/${commit.id}`,
    author: { name: commit.author.name, email: commit.author.email },
    ...(files === undefined ? {} : files),
  }
}

function labelHookAttrs(label: LabelRow): HookPayload {
  return {
    id: label.id,
    title: label.title,
    color: label.color,
    project_id: label.project_id,
    created_at: isoTime(label.created_at),
    updated_at: isoTime(label.updated_at),
    template: false,
    description: label.description,
    type: label.project_id === null ? 'GroupLabel' : 'ProjectLabel',
    group_id: label.group_id,
  }
}

// ---- push --------------------------------------------------------------------------------------

export interface PushSelection {
  kind: 'push' | 'tag_push'
  before: string
  after: string
  /** The full ref: refs/heads/… or refs/tags/…. */
  ref: string
  /** The commit the ref names after the push (a tag peeled); null for a deletion. */
  checkoutSha: string | null
  /** An annotated tag's message. */
  message: string | null
  /** At most 20, oldest first. */
  commits: Commit[]
  totalCommits: number
}

export async function pushPayload(ctx: AppContext, ref: ProjectRef, user: UserRow, push: PushSelection): Promise<HookPayload> {
  const pc = hookPresentContext(ctx)
  const repo = ctx.repositories.open(ref.project.id)
  const files = await changedFilesOfCommits(repo, push.commits)
  const project = projectHookAttrs(ref, pc, false)
  return {
    object_kind: push.kind,
    event_name: push.kind,
    before: push.before,
    after: push.after,
    ref: push.ref,
    checkout_sha: push.checkoutSha,
    message: push.message,
    user_id: user.id,
    user_name: user.name,
    user_username: user.username,
    user_email: user.email,
    user_avatar: userAvatarUrl(user, pc),
    project_id: ref.project.id,
    project,
    commits: push.commits.map((commit, i) => commitHookAttrs(commit, ref, pc, files[i])),
    total_commits_count: push.totalCommits,
    repository: {
      name: ref.project.name,
      url: project.git_ssh_url,
      description: ref.project.description,
      homepage: project.web_url,
      git_http_url: project.git_http_url,
      git_ssh_url: project.git_ssh_url,
      visibility_level: ref.project.visibility_level,
    },
  }
}

// ---- issues and merge requests ------------------------------------------------------------------

const FLAG_FIELDS = new Set(['confidential', 'discussion_locked', 'merge_when_pipeline_succeeds', 'squash'])

async function usersById(db: Db, ids: readonly number[]): Promise<Map<number, UserRow>> {
  if (ids.length === 0) return new Map()
  const rows = await db.selectFrom('users').selectAll().where('id', 'in', [...new Set(ids)]).execute()
  return new Map(rows.map((user) => [user.id, user]))
}

/** The labels of an issue or merge request, and those named by title in its changes (project and group labels). */
async function labelsOf(db: Db, type: 'Issue' | 'MergeRequest', id: number, ref: ProjectRef, titles: readonly string[]): Promise<{ current: LabelRow[]; byTitle: Map<string, LabelRow> }> {
  const current = await db.selectFrom('labels').innerJoin('label_links', 'label_links.label_id', 'labels.id').selectAll('labels')
    .where('label_links.target_type', '=', type).where('label_links.target_id', '=', id).orderBy('labels.title').execute()
  const byTitle = new Map(current.map((label) => [label.title, label]))
  const missing = titles.filter((title) => !byTitle.has(title))
  if (missing.length > 0) {
    const groupIds = ref.namespace.kind === 'group' ? [ref.namespace.id, ...(await ancestorIds(db, ref.namespace))] : []
    const rows = await db.selectFrom('labels').selectAll().where('title', 'in', missing)
      .where((eb) => eb.or([eb('project_id', '=', ref.project.id), ...(groupIds.length > 0 ? [eb('group_id', 'in', groupIds)] : [])]))
      .execute()
    for (const label of rows) if (!byTitle.has(label.title) || label.project_id !== null) byTitle.set(label.title, label)
  }
  return { current, byTitle }
}

async function ancestorIds(db: Db, namespace: NamespaceRow): Promise<number[]> {
  const ids: number[] = []
  let parentId = namespace.parent_id
  while (parentId !== null) {
    ids.push(parentId)
    const parent = await db.selectFrom('namespaces').select('parent_id').where('id', '=', parentId).executeTakeFirst()
    parentId = parent?.parent_id ?? null
  }
  return ids
}

/** `changes` as hooks show them: labels and assignees as objects, flags as booleans, times in ISO 8601. */
function hookChanges(changes: Changes, labels: Map<string, LabelRow>, users: Map<number, UserRow>, pc: PresentContext): HookPayload {
  const shown: HookPayload = {}
  const labelList = (titles: unknown) => (Array.isArray(titles) ? titles : []).flatMap((title) => {
    const label = labels.get(String(title))
    return label === undefined ? [] : [labelHookAttrs(label)]
  })
  const userList = (ids: unknown) => (Array.isArray(ids) ? ids : []).flatMap((id) => {
    const user = users.get(Number(id))
    return user === undefined ? [] : [userHookAttrs(user, pc)]
  })
  for (const [field, { previous, current }] of Object.entries(changes)) {
    if (field === 'labels') shown.labels = { previous: labelList(previous), current: labelList(current) }
    else if (field === 'assignees') shown.assignees = { previous: userList(previous), current: userList(current) }
    else if (FLAG_FIELDS.has(field)) shown[field] = { previous: previous === 1 || previous === true, current: current === 1 || current === true }
    else if (field.endsWith('_at')) {
      const time = (value: unknown) => (typeof value === 'number' ? isoTime(value) : value ?? null)
      shown[field] = { previous: time(previous), current: time(current) }
    } else shown[field] = { previous: previous ?? null, current: current ?? null }
  }
  return shown
}

function changedUserIds(changes: Changes): number[] {
  const change = changes.assignees
  if (change === undefined) return []
  return [change.previous, change.current].flatMap((ids) => (Array.isArray(ids) ? ids.map(Number) : []))
}

function changedLabelTitles(changes: Changes): string[] {
  const change = changes.labels
  if (change === undefined) return []
  return [change.previous, change.current].flatMap((titles) => (Array.isArray(titles) ? titles.map(String) : []))
}

function timeAttrs(row: { time_estimate: number; total_time_spent: number }): HookPayload {
  return {
    total_time_spent: row.total_time_spent,
    human_total_time_spent: humanDuration(row.total_time_spent),
    human_time_estimate: humanDuration(row.time_estimate),
  }
}

/** Issue#hook_attrs: the issue's columns, its URL, time tracking and assignee ids. */
export function issueHookAttrs(issue: IssueRow, assigneeIds: readonly number[], ref: ProjectRef, pc: PresentContext): HookPayload {
  return {
    assignee_id: assigneeIds[0] ?? null,
    author_id: issue.author_id,
    closed_at: isoTime(issue.closed_at),
    confidential: issue.confidential === 1,
    created_at: isoTime(issue.created_at),
    description: issue.description,
    discussion_locked: issue.discussion_locked === 1,
    due_date: issue.due_date,
    id: issue.id,
    iid: issue.iid,
    last_edited_at: null,
    last_edited_by_id: null,
    milestone_id: issue.milestone_id,
    moved_to_id: issue.moved_to_id,
    project_id: issue.project_id,
    relative_position: null,
    state: issue.state,
    time_estimate: issue.time_estimate,
    title: issue.title,
    updated_at: isoTime(issue.updated_at),
    updated_by_id: null,
    url: `${projectWebUrl(ref, pc)}/issues/${issue.iid}`,
    ...timeAttrs(issue),
    assignee_ids: [...assigneeIds],
  }
}

export interface IssueEvent {
  issue: IssueRow
  payload: HookPayload
}

/** An issue hook's body; null when the issue or project is gone. */
export async function issuePayload(ctx: AppContext, activity: Pick<IssueActivity, 'issueId' | 'userId' | 'changes'> & { action: string | null }): Promise<IssueEvent | null> {
  const { db } = ctx
  const issue = await db.selectFrom('issues').selectAll().where('id', '=', activity.issueId).executeTakeFirst()
  if (issue === undefined) return null
  const ref = await loadProjectRef(db, issue.project_id)
  if (ref === null) return null
  const pc = hookPresentContext(ctx)
  const assigneeIds = await issueAssigneeIds(db, issue.id)
  const [users, labels] = await Promise.all([
    usersById(db, [activity.userId, ...assigneeIds, ...changedUserIds(activity.changes)]),
    labelsOf(db, 'Issue', issue.id, ref, changedLabelTitles(activity.changes)),
  ])
  const actor = users.get(activity.userId)
  const objectAttributes = issueHookAttrs(issue, assigneeIds, ref, pc)
  if (activity.action !== null) objectAttributes.action = activity.action
  const assignees = assigneeIds.flatMap((id) => { const user = users.get(id); return user === undefined ? [] : [userHookAttrs(user, pc)] })
  return {
    issue,
    payload: {
      object_kind: 'issue',
      user: actor === undefined ? null : userHookAttrs(actor, pc),
      project: projectHookAttrs(ref, pc),
      object_attributes: objectAttributes,
      labels: labels.current.map(labelHookAttrs),
      changes: hookChanges(activity.changes, labels.byTitle, users, pc),
      repository: repositoryAttrs(ref, pc),
      ...(assignees.length > 0 ? { assignees } : {}),
    },
  }
}

/** MergeRequest#hook_attrs: its columns, URL, both projects, the source head commit and time tracking. */
async function mergeRequestHookAttrs(ctx: AppContext, mr: MergeRequestRow, target: ProjectRef, pc: PresentContext): Promise<HookPayload> {
  const source = mr.source_project_id === null ? null
    : mr.source_project_id === target.project.id ? target : await loadProjectRef(ctx.db, mr.source_project_id)
  const lastCommit = mr.sha === null ? null : await ctx.repositories.open(target.project.id).readCommit(mr.sha)
  return {
    assignee_id: mr.assignee_id,
    author_id: mr.author_id,
    created_at: isoTime(mr.created_at),
    description: mr.description,
    head_pipeline_id: null,
    id: mr.id,
    iid: mr.iid,
    last_edited_at: null,
    last_edited_by_id: null,
    merge_commit_sha: mr.merge_commit_sha,
    merge_error: null,
    merge_params: { force_remove_source_branch: mr.force_remove_source_branch === 1 ? '1' : '0' },
    merge_status: mr.merge_status,
    merge_user_id: null,
    merge_when_pipeline_succeeds: mr.merge_when_pipeline_succeeds === 1,
    milestone_id: mr.milestone_id,
    source_branch: mr.source_branch,
    source_project_id: mr.source_project_id,
    state: mr.state,
    target_branch: mr.target_branch,
    target_project_id: mr.target_project_id,
    time_estimate: mr.time_estimate,
    title: mr.title,
    updated_at: isoTime(mr.updated_at),
    updated_by_id: null,
    url: `${projectWebUrl(target, pc)}/merge_requests/${mr.iid}`,
    source: source === null ? null : projectHookAttrs(source, pc),
    target: projectHookAttrs(target, pc),
    last_commit: lastCommit === null ? null : commitHookAttrs(lastCommit, target, pc),
    work_in_progress: isWorkInProgress(mr.title),
    ...timeAttrs(mr),
  }
}

/** A merge request hook's body; null when the merge request or its project is gone. */
export async function mergeRequestPayload(ctx: AppContext, activity: Pick<MergeRequestActivity, 'mergeRequestId' | 'userId' | 'changes'> & { action: string | null }): Promise<HookPayload | null> {
  const { db } = ctx
  const mr = await db.selectFrom('merge_requests').selectAll().where('id', '=', activity.mergeRequestId).executeTakeFirst()
  if (mr === undefined) return null
  const ref = await loadProjectRef(db, mr.target_project_id)
  if (ref === null) return null
  const pc = hookPresentContext(ctx)
  const [users, labels, objectAttributes] = await Promise.all([
    usersById(db, [activity.userId, ...(mr.assignee_id === null ? [] : [mr.assignee_id]), ...changedUserIds(activity.changes)]),
    labelsOf(db, 'MergeRequest', mr.id, ref, changedLabelTitles(activity.changes)),
    mergeRequestHookAttrs(ctx, mr, ref, pc),
  ])
  if (activity.action !== null) objectAttributes.action = activity.action
  const actor = users.get(activity.userId)
  const assignee = mr.assignee_id === null ? undefined : users.get(mr.assignee_id)
  return {
    object_kind: 'merge_request',
    user: actor === undefined ? null : userHookAttrs(actor, pc),
    project: projectHookAttrs(ref, pc),
    object_attributes: objectAttributes,
    labels: labels.current.map(labelHookAttrs),
    changes: hookChanges(activity.changes, labels.byTitle, users, pc),
    repository: repositoryAttrs(ref, pc),
    ...(assignee === undefined ? {} : { assignee: userHookAttrs(assignee, pc) }),
  }
}

// ---- notes -------------------------------------------------------------------------------------

function snippetHookAttrs(snippet: SnippetRow): HookPayload {
  return {
    id: snippet.id,
    title: snippet.title,
    content: snippet.content,
    author_id: snippet.author_id,
    project_id: snippet.project_id,
    created_at: isoTime(snippet.created_at),
    updated_at: isoTime(snippet.updated_at),
    file_name: snippet.file_name,
    type: 'ProjectSnippet',
    visibility_level: snippet.visibility_level,
    description: snippet.description,
  }
}

export interface NoteEvent {
  note: NoteRow
  /** The issue a note is on, when it is on one (its confidentiality decides which hooks hear of it). */
  issue: IssueRow | null
  payload: HookPayload
}

/** A note hook's body with the record it is on beside it; null when the note or project is gone. */
export async function notePayload(ctx: AppContext, noteId: number, userId: number): Promise<NoteEvent | null> {
  const { db } = ctx
  const note = await db.selectFrom('notes').selectAll().where('id', '=', noteId).executeTakeFirst()
  if (note === undefined) return null
  const ref = await loadProjectRef(db, note.project_id)
  if (ref === null) return null
  const pc = hookPresentContext(ctx)
  const user = (await usersById(db, [userId])).get(userId)
  const webUrl = projectWebUrl(ref, pc)
  let beside: HookPayload = {}
  let url = webUrl
  let issue: IssueRow | null = null
  if (note.noteable_type === 'Issue' && note.noteable_id !== null) {
    issue = await db.selectFrom('issues').selectAll().where('id', '=', note.noteable_id).executeTakeFirst() ?? null
    if (issue !== null) {
      beside = { issue: issueHookAttrs(issue, await issueAssigneeIds(db, issue.id), ref, pc) }
      url = `${webUrl}/issues/${issue.iid}`
    }
  } else if (note.noteable_type === 'MergeRequest' && note.noteable_id !== null) {
    const mr = await db.selectFrom('merge_requests').selectAll().where('id', '=', note.noteable_id).executeTakeFirst()
    if (mr !== undefined) {
      beside = { merge_request: await mergeRequestHookAttrs(ctx, mr, ref, pc) }
      url = `${webUrl}/merge_requests/${mr.iid}`
    }
  } else if (note.noteable_type === 'Snippet' && note.noteable_id !== null) {
    const snippet = await db.selectFrom('snippets').selectAll().where('id', '=', note.noteable_id).executeTakeFirst()
    if (snippet !== undefined) {
      beside = { snippet: snippetHookAttrs(snippet) }
      url = `${webUrl}/snippets/${snippet.id}`
    }
  } else if (note.commit_id !== null) {
    const commit = await ctx.repositories.open(ref.project.id).readCommit(note.commit_id)
    if (commit !== null) beside = { commit: commitHookAttrs(commit, ref, pc) }
    url = `${webUrl}/commit/${note.commit_id}`
  }
  return {
    note,
    issue,
    payload: {
      object_kind: 'note',
      user: user === undefined ? null : userHookAttrs(user, pc),
      project_id: ref.project.id,
      project: projectHookAttrs(ref, pc),
      object_attributes: {
        id: note.id,
        note: note.body,
        noteable_type: note.noteable_type,
        author_id: note.author_id,
        created_at: isoTime(note.created_at),
        updated_at: isoTime(note.updated_at),
        project_id: note.project_id,
        attachment: null,
        line_code: null,
        commit_id: note.commit_id,
        noteable_id: note.noteable_id,
        system: note.system === 1,
        st_diff: null,
        updated_by_id: null,
        type: note.type,
        position: null,
        original_position: null,
        resolved_at: isoTime(note.resolved_at),
        resolved_by_id: note.resolved_by_id,
        discussion_id: note.discussion_id,
        change_position: null,
        resolved_by_push: null,
        url: `${url}#note_${note.id}`,
      },
      repository: repositoryAttrs(ref, pc),
      ...beside,
    },
  }
}

// ---- wiki pages --------------------------------------------------------------------------------

export type WikiPageChange = Pick<WikiPageActivity, 'action' | 'userId' | 'slug' | 'title' | 'format' | 'content' | 'message'>

export async function wikiPagePayload(ctx: AppContext, ref: ProjectRef, page: WikiPageChange): Promise<HookPayload> {
  const pc = hookPresentContext(ctx)
  const user = (await usersById(ctx.db, [page.userId])).get(page.userId)
  const webUrl = projectWebUrl(ref, pc)
  const wikiPath = `${fullPath(ref)}.wiki`
  return {
    object_kind: 'wiki_page',
    user: user === undefined ? null : userHookAttrs(user, pc),
    project: projectHookAttrs(ref, pc),
    wiki: {
      web_url: `${webUrl}/wikis/home`,
      git_ssh_url: sshUrl(wikiPath, pc),
      git_http_url: `${pc.baseUrl}/${wikiPath}.git`,
      path_with_namespace: wikiPath,
      default_branch: 'master',
    },
    object_attributes: {
      title: page.title,
      content: page.content,
      format: page.format,
      message: page.message,
      slug: page.slug,
      url: `${webUrl}/wikis/${page.slug}`,
      action: page.action,
    },
  }
}
