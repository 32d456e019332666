// What notes, discussions and award emoji hang on, for their tests: issues and merge requests as
// bare rows (issuable-rows.ts), project snippets through their service.
import { EXTERNAL_URL, type TestApp } from './app.js'
import type { TestUser } from './factories.js'
import type { IssueRow, MergeRequestRow, ProjectRow } from '../../src/db/schema.js'
import { insertIssue, insertMergeRequest } from './issuable-rows.js'
import { createSnippet, type ProjectSnippetRow } from '../../src/services/snippets/snippets.js'
import { visibilityLevel, type Visibility } from '../../src/policies/access-levels.js'

/** A user as entities embed them (UserBasic). */
export function basicUser(user: TestUser['user']) {
  return {
    id: user.id, name: user.name, username: user.username, state: user.state, avatar_url: null,
    web_url: `${EXTERNAL_URL}/${user.username}`,
  }
}

export interface NoteableOptions {
  title?: string
  confidential?: boolean
  discussionLocked?: boolean
  assignees?: readonly TestUser[]
}

export function makeIssue(t: TestApp, project: ProjectRow, author: TestUser, options: NoteableOptions = {}): Promise<IssueRow> {
  return insertIssue(t, project.id, { ...rowOptions(options), authorId: author.user.id })
}

export function makeMergeRequest(t: TestApp, project: ProjectRow, author: TestUser, options: NoteableOptions = {}): Promise<MergeRequestRow> {
  return insertMergeRequest(t, project.id, { ...rowOptions(options), authorId: author.user.id })
}

function rowOptions(options: NoteableOptions) {
  return {
    ...(options.title === undefined ? {} : { title: options.title }),
    confidential: options.confidential ?? false,
    discussionLocked: options.discussionLocked ?? false,
    assigneeIds: (options.assignees ?? []).map((assignee) => assignee.user.id),
  }
}

export async function makeSnippet(
  t: TestApp, project: ProjectRow, author: TestUser, options: { title?: string; visibility?: Visibility; content?: string } = {},
): Promise<ProjectSnippetRow> {
  return createSnippet(t.ctx.db, project.id, author.user.id, {
    title: options.title ?? 'A snippet',
    fileName: 'snippet.txt',
    content: options.content ?? 'hello\n',
    description: null,
    visibilityLevel: visibilityLevel(options.visibility ?? 'private'),
  })
}

/** The path below /api/v4 of each kind of noteable, for tests run once per kind. */
export type NoteableKind = 'issue' | 'merge_request' | 'snippet'
export const NOTEABLE_KINDS: readonly NoteableKind[] = ['issue', 'merge_request', 'snippet']

export interface MadeNoteable {
  kind: NoteableKind
  /** `/projects/:id/issues/:iid` and alike. */
  path: string
  /** The noteable's row id, iid (null for snippets), type name and author. */
  id: number
  iid: number | null
  type: 'Issue' | 'MergeRequest' | 'Snippet'
}

/** A noteable of the kind in the project, written by `author`; snippets are public unless said. */
export async function makeNoteable(
  t: TestApp, kind: NoteableKind, project: ProjectRow, author: TestUser, options: NoteableOptions & { visibility?: Visibility } = {},
): Promise<MadeNoteable> {
  switch (kind) {
    case 'issue': {
      const issue = await makeIssue(t, project, author, options)
      return { kind, path: `/projects/${project.id}/issues/${issue.iid}`, id: issue.id, iid: issue.iid, type: 'Issue' }
    }
    case 'merge_request': {
      const mr = await makeMergeRequest(t, project, author, options)
      return { kind, path: `/projects/${project.id}/merge_requests/${mr.iid}`, id: mr.id, iid: mr.iid, type: 'MergeRequest' }
    }
    case 'snippet': {
      const snippet = await makeSnippet(t, project, author, { visibility: options.visibility ?? 'public', ...(options.title ? { title: options.title } : {}) })
      return { kind, path: `/projects/${project.id}/snippets/${snippet.id}`, id: snippet.id, iid: null, type: 'Snippet' }
    }
  }
}
