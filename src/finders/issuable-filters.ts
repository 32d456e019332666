// The filters the issue and merge request lists share (spec: Issues, Merge requests), as SQL
// conditions on a row of `issues` or `merge_requests` under an alias, and who may see such rows.
// Every condition is an indexed lookup: labels, milestones, assignees and reactions are
// `id in (subquery)` over their link tables, and the issue search goes through the trigram indexes
// of migration 0004 (FTS5 on SQLite, pg_trgm on PostgreSQL).
import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely'
import type { Actor } from '../auth/actor.js'
import type { Db } from '../db/index.js'
import { isPostgres } from '../db/dialect.js'
import type { IssuableType } from '../db/schema.js'
import { REPORTER } from '../policies/access-levels.js'
import { codeReadableBy, grantedProject, projectVisibleTo } from './access.js'
import { matchesSearchInAny } from './text-search.js'

export type IssuableScope = 'created_by_me' | 'assigned_to_me' | 'all'

export interface IssuableFilters {
  /** A state to keep; undefined keeps all. */
  state?: string
  /** All of these titles; 'none' for rows without labels; 'any' for rows with at least one. */
  labels?: readonly string[] | 'none' | 'any'
  /** 'None' (no milestone), 'Any' (some milestone) or a milestone title. */
  milestone?: string
  scope?: IssuableScope
  authorId?: number
  /** 'None' (unassigned), 'Any' (assigned) or a user id. */
  assigneeId?: number | 'None' | 'Any'
  /** 'None' (no reaction of the caller), 'Any' (some reaction) or an emoji name. */
  myReactionEmoji?: string
  iids?: readonly number[]
  search?: string
  /** Epoch ms, inclusive. */
  createdAfter?: number
  createdBefore?: number
  updatedAfter?: number
  updatedBefore?: number
}

/** The `labels` parameter: "No Label" (the spec's `No+Label`), "Any", or titles an issuable must all carry. */
export function parseLabelsFilter(value: string | undefined): IssuableFilters['labels'] {
  if (value === undefined) return undefined
  const trimmed = value.trim()
  if (trimmed.toLowerCase() === 'no label' || trimmed === 'None') return 'none'
  if (trimmed === 'Any') return 'any'
  const titles = [...new Set(value.split(',').map((title) => title.trim()).filter((title) => title !== ''))]
  return titles.length === 0 ? undefined : titles
}

/** The conditions of the filters on `alias` (a row of the type's table); the caller ANDs them. */
export function issuableConditions(
  db: Db, type: IssuableType, alias: string, filters: IssuableFilters, actor: Actor | null,
): Expression<SqlBool>[] {
  const column = (name: string) => sql.ref(`${alias}.${name}`)
  const id = column('id')
  const conditions: Expression<SqlBool>[] = []
  if (filters.state !== undefined) conditions.push(sql<SqlBool>`${column('state')} = ${filters.state}`)
  if (filters.iids !== undefined) {
    conditions.push(filters.iids.length === 0 ? sql<SqlBool>`1 = 0` : sql<SqlBool>`${column('iid')} in (${sql.join(filters.iids)})`)
  }
  if (filters.authorId !== undefined) conditions.push(sql<SqlBool>`${column('author_id')} = ${filters.authorId}`)
  if (filters.assigneeId !== undefined) conditions.push(assignedTo(type, alias, filters.assigneeId))
  const me = actor?.user.id
  if (filters.scope === 'created_by_me' && me !== undefined) conditions.push(sql<SqlBool>`${column('author_id')} = ${me}`)
  if (filters.scope === 'assigned_to_me' && me !== undefined) conditions.push(assignedTo(type, alias, me))
  if (filters.labels !== undefined) conditions.push(labelled(type, id, filters.labels))
  if (filters.milestone !== undefined) conditions.push(inMilestone(column('milestone_id'), filters.milestone))
  if (filters.myReactionEmoji !== undefined) conditions.push(reactedBy(type, id, me, filters.myReactionEmoji))
  if (filters.createdAfter !== undefined) conditions.push(sql<SqlBool>`${column('created_at')} >= ${filters.createdAfter}`)
  if (filters.createdBefore !== undefined) conditions.push(sql<SqlBool>`${column('created_at')} <= ${filters.createdBefore}`)
  if (filters.updatedAfter !== undefined) conditions.push(sql<SqlBool>`${column('updated_at')} >= ${filters.updatedAfter}`)
  if (filters.updatedBefore !== undefined) conditions.push(sql<SqlBool>`${column('updated_at')} <= ${filters.updatedBefore}`)
  if (filters.search !== undefined) {
    const match = type === 'Issue' ? issueSearch(db, alias, filters.search) : matchesSearchInAny([`${alias}.title`, `${alias}.description`], filters.search)
    if (match !== null) conditions.push(match)
  }
  return conditions
}

function assignedTo(type: IssuableType, alias: string, assignee: number | 'None' | 'Any'): Expression<SqlBool> {
  if (type === 'MergeRequest') {
    const column = sql.ref(`${alias}.assignee_id`)
    if (assignee === 'None') return sql<SqlBool>`${column} is null`
    if (assignee === 'Any') return sql<SqlBool>`${column} is not null`
    return sql<SqlBool>`${column} = ${assignee}`
  }
  const id = sql.ref(`${alias}.id`)
  if (assignee === 'None') return sql<SqlBool>`not exists (select 1 from issue_assignees ia where ia.issue_id = ${id})`
  if (assignee === 'Any') return sql<SqlBool>`exists (select 1 from issue_assignees ia where ia.issue_id = ${id})`
  return sql<SqlBool>`${id} in (select ia.issue_id from issue_assignees ia where ia.user_id = ${assignee})`
}

function labelled(type: IssuableType, id: RawBuilder<unknown>, labels: readonly string[] | 'none' | 'any'): Expression<SqlBool> {
  if (labels === 'none') return sql<SqlBool>`not exists (select 1 from label_links ll where ll.target_type = ${type} and ll.target_id = ${id})`
  if (labels === 'any') return sql<SqlBool>`exists (select 1 from label_links ll where ll.target_type = ${type} and ll.target_id = ${id})`
  return sql<SqlBool>`(${sql.join(labels.map((title) => sql`${id} in (select ll.target_id from label_links ll
    join labels l on l.id = ll.label_id where l.title = ${title} and ll.target_type = ${type})`), sql` and `)})`
}

function inMilestone(milestoneId: RawBuilder<unknown>, milestone: string): Expression<SqlBool> {
  if (milestone === 'None') return sql<SqlBool>`${milestoneId} is null`
  if (milestone === 'Any') return sql<SqlBool>`${milestoneId} is not null`
  return sql<SqlBool>`${milestoneId} in (select m.id from milestones m where m.title = ${milestone})`
}

function reactedBy(type: IssuableType, id: RawBuilder<unknown>, userId: number | undefined, emoji: string): Expression<SqlBool> {
  if (userId === undefined) return emoji === 'None' ? sql<SqlBool>`1 = 1` : sql<SqlBool>`1 = 0`
  const mine = sql`select ae.awardable_id from award_emoji ae where ae.user_id = ${userId} and ae.awardable_type = ${type}`
  if (emoji === 'None') return sql<SqlBool>`${id} not in (${mine})`
  if (emoji === 'Any') return sql<SqlBool>`${id} in (${mine})`
  return sql<SqlBool>`${id} in (${mine} and ae.name = ${emoji})`
}

const MIN_SEARCH_WORD = 3

/**
 * Issues whose title holds every search word, or whose description does, through the trigram
 * indexes. Words shorter than three characters cannot be looked up in a trigram index and are
 * ignored, as the original ignores them; a search of only such words must equal the whole title.
 */
function issueSearch(db: Db, alias: string, query: string): Expression<SqlBool> | null {
  const squished = query.trim().replace(/\s+/g, ' ')
  if (squished === '') return null
  const quoted = [...squished.matchAll(/"([^"]+)"/g)].map((m) => m[1] ?? '')
  const words = [...squished.replace(/"[^"]+"/g, ' ').split(' '), ...quoted].filter((word) => [...word].length >= MIN_SEARCH_WORD)
  // pg_trgm indexes lower(title) and lower(description), which is what matchesSearch compares.
  if (words.length === 0 || isPostgres(db)) return matchesSearchInAny([`${alias}.title`, `${alias}.description`], query)
  const phrases = words.map((word) => `"${word.replace(/"/g, '""')}"`).join(' AND ')
  return sql<SqlBool>`${sql.ref(`${alias}.id`)} in (select rowid from issues_search
    where issues_search match ${`title : (${phrases}) OR description : (${phrases})`})`
}

/**
 * The condition "the caller may see this issue": its project is visible with issues enabled, and a
 * confidential issue only to its author, its assignees, Reporters and up, and admins.
 * `projects` names the joined projects row of the issue.
 */
export async function issueVisibleTo(db: Db, actor: Actor | null, issues: string, projects: string): Promise<Expression<SqlBool>> {
  const project = await projectVisibleTo(db, actor, projects)
  const enabled = sql<SqlBool>`${sql.ref(`${projects}.issues_enabled`)} = 1`
  return sql<SqlBool>`(${project} and ${enabled} and ${await confidentialIssueVisibleTo(db, actor, issues)})`
}

/** The confidentiality part of issueVisibleTo, for lists within one project already authorized. */
export async function confidentialIssueVisibleTo(db: Db, actor: Actor | null, issues: string): Promise<Expression<SqlBool>> {
  const confidential = sql.ref(`${issues}.confidential`)
  if (actor === null) return sql<SqlBool>`${confidential} = 0`
  if (actor.user.admin) return sql<SqlBool>`1 = 1`
  const id = sql.ref(`${issues}.id`)
  const me = actor.user.id
  return sql<SqlBool>`(${confidential} = 0 or ${sql.ref(`${issues}.author_id`)} = ${me}
    or ${id} in (select ia.issue_id from issue_assignees ia where ia.user_id = ${me})
    or ${await grantedProject(db, me, `${issues}.project_id`, REPORTER)})`
}

/**
 * The condition "the caller may see this merge request", as the single read decides
 * (read_merge_request): merge requests are part of the code, so the (target) project's repository
 * must be readable with merge requests enabled. `projects` names the joined target projects row.
 */
export async function mergeRequestVisibleTo(db: Db, actor: Actor | null, projects: string): Promise<Expression<SqlBool>> {
  const enabled = sql<SqlBool>`${sql.ref(`${projects}.merge_requests_enabled`)} = 1`
  return sql<SqlBool>`(${enabled} and ${await codeReadableBy(db, actor, projects)})`
}
