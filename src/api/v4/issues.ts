// Issues (spec: Issue; endpoints: Issues), as the original v4 API of release 11.5 answers them: the
// three lists, one issue, create, update (close, reopen), delete, move, time tracking and
// subscriptions. Lists answer IssueBasic; everything about one issue answers Issue. Reads are open
// to anonymous callers on public projects and groups, as the original's (the specification's "all
// require authentication" is the dashboard's rule: GET /issues needs a caller unless scope=all).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type, type Static } from '@sinclair/typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { IssueRow } from '../../db/schema.js'
import { Issue, IssueBasic, presentIssue, presentIssueBasic } from '../../entities/issue.js'
import { TimeStats, presentTimeStats } from '../../entities/time-stats.js'
import { parseLabelsFilter, type IssuableScope } from '../../finders/issuable-filters.js'
import {
  ISSUE_LIST_TABLES, ISSUE_ORDERS, findIssuePage, isSubscribed, issueAssigneeIds, issuesByIds, loadIssueView, loadIssueViews, writtenIssueView,
  type IssueFilters, type IssueOrder, type IssueScope,
} from '../../finders/issues-finder.js'
import { canUpdateIssue } from '../../policies/issuable-policy.js'
import { canOnProject } from '../../policies/project-policy.js'
import { deleteIssuable } from '../../services/issuables/delete-issuable.js'
import { addSpentTime, durationParam, resetSpentTime, setTimeEstimate, type TimeTracked } from '../../services/issuables/time-tracking.js'
import { createIssue } from '../../services/issues/create-issue.js'
import type { IssueInput } from '../../services/issues/issue-rules.js'
import { moveIssue } from '../../services/issues/move-issue.js'
import { setSubscription } from '../../services/issuables/subscriptions.js'
import { updateIssue } from '../../services/issues/update-issue.js'
import { labelTitlesOf } from '../../services/labels/issuable-labels.js'
import { invalidParam, missingOneOf, notModified } from '../../common/errors.js'
import { jsonArrayOf, sendCachedList } from '../list-cache.js'
import { authorize, loadGroup, loadGroupMilestone, loadIssue, loadProject, loadProjectMilestone, requireActor } from '../load.js'
import { paginationHeaders } from '../pagination.js'
import { BooleanParam, DateTimeParam, IdParams, OneOf, Pagination, SearchParam, SortParam } from '../params.js'
import { type PaginationQuery } from '../../common/pages.js'
import { checkUnmodifiedSince } from '../preconditions.js'
import { presentCtx } from '../present.js'

const IssueParams = Type.Composite([IdParams, Type.Object({ issue_iid: Type.Integer() })])
const MilestoneParams = Type.Composite([IdParams, Type.Object({ milestone_id: Type.Integer() })])

// The original takes the hyphenated forms of before 11.0 too.
const SCOPES = ['created_by_me', 'assigned_to_me', 'all', 'created-by-me', 'assigned-to-me'] as const

const ListQuery = Type.Object({
  ...Pagination.properties,
  state: OneOf<'opened' | 'closed' | 'all'>(['opened', 'closed', 'all'], { default: 'all' }),
  labels: Type.Optional(Type.String()),
  milestone: Type.Optional(Type.String()),
  scope: Type.Optional(OneOf(SCOPES)),
  author_id: Type.Optional(Type.Integer()),
  assignee_id: Type.Optional(Type.String({ pattern: '^([0-9]+|[Nn][Oo][Nn][Ee]|[Aa][Nn][Yy])$' })),
  my_reaction_emoji: Type.Optional(Type.String({ minLength: 1 })),
  iids: Type.Optional(Type.Array(Type.Integer())),
  order_by: OneOf<IssueOrder['orderBy']>(ISSUE_ORDERS, { default: 'created_at' }),
  sort: SortParam('desc'),
  search: Type.Optional(SearchParam()),
  created_after: Type.Optional(DateTimeParam()),
  created_before: Type.Optional(DateTimeParam()),
  updated_after: Type.Optional(DateTimeParam()),
  updated_before: Type.Optional(DateTimeParam()),
})
type ListQueryType = Static<typeof ListQuery>
/** GET /issues lists the caller's own issues unless asked otherwise. */
const OwnListQuery = Type.Object({ ...ListQuery.properties, scope: OneOf<typeof SCOPES[number]>(SCOPES, { default: 'created_by_me' }) })

/** `labels` as a comma-separated string or as an array (`labels[]=a&labels[]=b`). */
const LabelsParam = Type.Union([Type.String(), Type.Array(Type.String())])
const NullableInteger = Type.Union([Type.Integer(), Type.Null()])

const IssueFields = {
  description: Type.Optional(Type.String()),
  assignee_ids: Type.Optional(Type.Array(Type.Integer())),
  /** Deprecated: one assignee; 0 or null unassigns. */
  assignee_id: Type.Optional(NullableInteger),
  /** 0 or null: no milestone. */
  milestone_id: Type.Optional(NullableInteger),
  labels: Type.Optional(LabelsParam),
  /** `YYYY-MM-DD`; empty or null: none. */
  due_date: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  confidential: Type.Optional(BooleanParam()),
  discussion_locked: Type.Optional(BooleanParam()),
}

const CreateBody = Type.Object({
  title: Type.String(),
  /** Admins and the project's owners only; ignored for others. */
  created_at: Type.Optional(DateTimeParam()),
  ...IssueFields,
})

const UpdateBody = Type.Object({
  title: Type.Optional(Type.String()),
  /** Admins and the project's owners only; ignored for others. */
  updated_at: Type.Optional(DateTimeParam()),
  state_event: Type.Optional(OneOf(['close', 'reopen'] as const)),
  ...IssueFields,
})

/** PUT needs at least one of these (the original's list). */
const UPDATE_PARAMS = [
  'title', 'description', 'assignee_ids', 'assignee_id', 'milestone_id', 'discussion_locked', 'labels', 'created_at', 'due_date',
  'confidential', 'state_event',
] as const

const MoveBody = Type.Object({ to_project_id: Type.Integer() })
const DurationBody = Type.Object({ duration: Type.String() })

const DUE_DATE = /^\d{4}-\d{2}-\d{2}$/

/** A `YYYY-MM-DD` that is a real date; empty or null means none; anything else is 400. */
function dueDateOf(value: string | null | undefined): string | null | undefined {
  if (value === undefined) return undefined
  if (value === null || value.trim() === '') return null
  const date = value.trim()
  if (!DUE_DATE.test(date) || Number.isNaN(Date.parse(`${date}T00:00:00Z`)) || !new Date(`${date}T00:00:00Z`).toISOString().startsWith(date)) {
    throw invalidParam('due_date')
  }
  return date
}

/** The body's issue fields as the services take them. */
function inputOf(body: Partial<Static<typeof UpdateBody>> & { created_at?: number }): IssueInput {
  const assigneeIds = body.assignee_ids ?? (body.assignee_id === undefined ? undefined : body.assignee_id === null ? [] : [body.assignee_id])
  const input: IssueInput = {
    title: body.title,
    description: body.description,
    confidential: body.confidential,
    discussionLocked: body.discussion_locked,
    assigneeIds,
    milestoneId: body.milestone_id,
    labels: body.labels === undefined ? undefined : labelTitlesOf(body.labels),
    dueDate: dueDateOf(body.due_date),
    createdAt: body.created_at,
    updatedAt: body.updated_at,
  }
  for (const key of Object.keys(input) as (keyof IssueInput)[]) if (input[key] === undefined) delete input[key]
  return input
}

/** "None" and "Any" as the original reads them, in any case. */
function noneOrAny(value: string): string {
  const lowered = value.trim().toLowerCase()
  return lowered === 'none' ? 'None' : lowered === 'any' ? 'Any' : value
}

function milestoneFilter(value: string): string {
  if (value === 'No Milestone') return 'None'
  if (value === 'Any Milestone') return 'Any'
  return noneOrAny(value)
}

function filtersOf(query: ListQueryType, defaultScope: IssuableScope): IssueFilters {
  const assignee = query.assignee_id === undefined ? undefined : noneOrAny(query.assignee_id)
  return {
    state: query.state === 'all' ? undefined : query.state,
    labels: parseLabelsFilter(query.labels === undefined ? undefined : noneOrAny(query.labels)),
    milestone: query.milestone === undefined ? undefined : milestoneFilter(query.milestone),
    scope: (query.scope?.replace(/-/g, '_') as IssuableScope | undefined) ?? defaultScope,
    authorId: query.author_id,
    // 0 is the original's older spelling of None.
    assigneeId: assignee === undefined ? undefined : assignee === 'None' || assignee === 'Any' ? assignee : Number(assignee) === 0 ? 'None' : Number(assignee),
    myReactionEmoji: query.my_reaction_emoji === undefined ? undefined : noneOrAny(query.my_reaction_emoji),
    iids: query.iids,
    search: query.search,
    createdAfter: query.created_after,
    createdBefore: query.created_before,
    updatedAfter: query.updated_after,
    updatedBefore: query.updated_before,
  }
}

/** One page of a list: the whole answer cached per caller and URL, each issue's JSON too. */
async function sendList(
  req: FastifyRequest, reply: FastifyReply, scope: IssueScope, filters: IssueFilters, order: IssueOrder, pagination: PaginationQuery,
) {
  const { db } = req.ingot
  const ctx = presentCtx(req)
  return sendCachedList(req, reply, { name: `issues:${scope.kind}`, tables: ISSUE_LIST_TABLES }, async () => {
    const page = await findIssuePage(db, req.actor, scope, filters, order, pagination)
    const body = await jsonArrayOf(req, reply, IssueBasic, { name: 'issues', tables: ISSUE_LIST_TABLES, keyOf: (view) => String(view.issue.id) },
      async () => loadIssueViews(db, await issuesByIds(db, page.items)), (view) => presentIssueBasic(view, ctx))
    return { headers: paginationHeaders(req, page), body }
  })
}

const NEWEST_FIRST: IssueOrder = { orderBy: 'created_at', sort: 'desc' }

function orderOf(query: ListQueryType): IssueOrder {
  return { orderBy: query.order_by, sort: query.sort }
}

async function presentOne(req: FastifyRequest, issue: IssueRow, assigneeIds: readonly number[]) {
  const { db } = req.ingot
  const [view, subscribed] = await Promise.all([
    loadIssueView(db, issue), isSubscribed(db, req.actor?.user.id ?? null, issue, assigneeIds),
  ])
  return presentIssue(view, presentCtx(req), subscribed)
}

/** An issue the caller may change the time tracking of (Reporters and up, as the original), as tracked time. */
async function loadForTimeTracking(req: FastifyRequest, params: Static<typeof IssueParams>): Promise<TimeTracked> {
  const { issue } = await loadIssue(req, params.id, params.issue_iid, 'admin_issue')
  return { type: 'Issue', id: issue.id, projectId: issue.project_id, time: issue, updatedAt: issue.updated_at }
}

const issues: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/issues', {
    config: { auth: 'optional' },
    schema: { querystring: OwnListQuery, response: { 200: Type.Array(IssueBasic) } },
  }, async (req, reply) => {
    // As the original: only scope=all lists anything (the public issues) to anonymous callers.
    if (req.query.scope !== 'all') requireActor(req)
    return sendList(req, reply, { kind: 'all' }, filtersOf(req.query, 'created_by_me'), orderOf(req.query), req.query)
  })

  app.get('/groups/:id/issues', {
    config: { auth: 'optional' },
    schema: { params: IdParams, querystring: ListQuery, response: { 200: Type.Array(IssueBasic) } },
  }, async (req, reply) => {
    const { group } = await loadGroup(req, req.params.id)
    return sendList(req, reply, { kind: 'group', groupId: group.id }, filtersOf(req.query, 'all'), orderOf(req.query), req.query)
  })

  app.get('/projects/:id/issues', {
    config: { auth: 'optional' },
    schema: { params: IdParams, querystring: ListQuery, response: { 200: Type.Array(IssueBasic) } },
  }, async (req, reply) => {
    const subject = await loadProject(req, req.params.id)
    return sendList(req, reply, { kind: 'project', subject }, filtersOf(req.query, 'all'), orderOf(req.query), req.query)
  })

  // A milestone's issues (spec: Milestones), newest first: a group milestone's span the group's projects.
  app.get('/projects/:id/milestones/:milestone_id/issues', {
    schema: { params: MilestoneParams, querystring: Pagination, response: { 200: Type.Array(IssueBasic) } },
  }, async (req, reply) => {
    const { milestone, ...subject } = await loadProjectMilestone(req, req.params.id, req.params.milestone_id)
    return sendList(req, reply, { kind: 'project', subject }, { milestoneId: milestone.id }, NEWEST_FIRST, req.query)
  })

  app.get('/groups/:id/milestones/:milestone_id/issues', {
    schema: { params: MilestoneParams, querystring: Pagination, response: { 200: Type.Array(IssueBasic) } },
  }, async (req, reply) => {
    const { group, milestone } = await loadGroupMilestone(req, req.params.id, req.params.milestone_id)
    return sendList(req, reply, { kind: 'group', groupId: group.id }, { milestoneId: milestone.id }, NEWEST_FIRST, req.query)
  })

  app.get('/projects/:id/issues/:issue_iid', {
    config: { auth: 'optional' },
    schema: { params: IssueParams, response: { 200: Issue } },
  }, async (req) => {
    const loaded = await loadIssue(req, req.params.id, req.params.issue_iid)
    return presentOne(req, loaded.issue, loaded.assigneeIds)
  })

  app.post('/projects/:id/issues', {
    schema: { params: IdParams, body: CreateBody, response: { 201: Issue } },
  }, async (req, reply) => {
    const actor = requireActor(req)
    const subject = await loadProject(req, req.params.id)
    authorize(canOnProject(actor, subject, 'create_issue'))
    const { db } = req.ingot
    const created = await createIssue(req.ingot, actor, subject, { ...inputOf(req.body), title: req.body.title })
    reply.code(201)
    // Its author participates: subscribed, as nobody could have chosen otherwise yet.
    return presentIssue(await writtenIssueView(db, subject, { ...created, author: actor.user }), presentCtx(req), true)
  })

  app.put('/projects/:id/issues/:issue_iid', {
    schema: { params: IssueParams, body: UpdateBody, response: { 200: Issue } },
  }, async (req) => {
    const body = req.body as Record<string, unknown>
    if (!UPDATE_PARAMS.some((name) => body[name] !== undefined)) throw missingOneOf(...UPDATE_PARAMS)
    const actor = requireActor(req)
    const loaded = await loadIssue(req, req.params.id, req.params.issue_iid)
    authorize(canUpdateIssue(actor, loaded, loaded.issue, loaded.assigneeIds))
    const issue = await updateIssue(req.ingot, actor, loaded, { ...inputOf(req.body), stateEvent: req.body.state_event })
    return presentOne(req, issue, await issueAssigneeIds(req.ingot.db, issue.id))
  })

  app.delete('/projects/:id/issues/:issue_iid', {
    schema: { params: IssueParams },
  }, async (req, reply) => {
    const { issue } = await loadIssue(req, req.params.id, req.params.issue_iid, 'destroy_issue')
    checkUnmodifiedSince(req, issue.updated_at)
    await deleteIssuable(req.ingot.db, { type: 'Issue', id: issue.id })
    return reply.code(204).send()
  })

  app.post('/projects/:id/issues/:issue_iid/move', {
    schema: { params: IssueParams, body: MoveBody, response: { 201: Issue } },
  }, async (req, reply) => {
    const actor = requireActor(req)
    const source = await loadIssue(req, req.params.id, req.params.issue_iid)
    const target = await loadProject(req, String(req.body.to_project_id))
    const moved = await moveIssue(req.ingot, actor, source, target)
    reply.code(201)
    return presentOne(req, moved, await issueAssigneeIds(req.ingot.db, moved.id))
  })

  app.post('/projects/:id/issues/:issue_iid/time_estimate', {
    schema: { params: IssueParams, body: DurationBody, response: { 200: TimeStats } },
  }, async (req) => {
    const tracked = await loadForTimeTracking(req, req.params)
    return presentTimeStats(await setTimeEstimate(req.ingot, requireActor(req), tracked, durationParam(req.body.duration, 'time_estimate')))
  })

  app.post('/projects/:id/issues/:issue_iid/reset_time_estimate', {
    schema: { params: IssueParams, response: { 200: TimeStats } },
  }, async (req) => {
    const tracked = await loadForTimeTracking(req, req.params)
    return presentTimeStats(await setTimeEstimate(req.ingot, requireActor(req), tracked, 0))
  })

  app.post('/projects/:id/issues/:issue_iid/add_spent_time', {
    schema: { params: IssueParams, body: DurationBody, response: { 201: TimeStats } },
  }, async (req, reply) => {
    const tracked = await loadForTimeTracking(req, req.params)
    const updated = await addSpentTime(req.ingot, requireActor(req), tracked, durationParam(req.body.duration, 'time_spent'))
    reply.code(201)
    return presentTimeStats(updated)
  })

  app.post('/projects/:id/issues/:issue_iid/reset_spent_time', {
    schema: { params: IssueParams, response: { 200: TimeStats } },
  }, async (req) => {
    const tracked = await loadForTimeTracking(req, req.params)
    return presentTimeStats(await resetSpentTime(req.ingot, requireActor(req), tracked))
  })

  app.get('/projects/:id/issues/:issue_iid/time_stats', {
    config: { auth: 'optional' },
    schema: { params: IssueParams, response: { 200: TimeStats } },
  }, async (req) => {
    const { issue } = await loadIssue(req, req.params.id, req.params.issue_iid)
    return presentTimeStats(issue)
  })

  for (const [action, subscribed] of [['subscribe', true], ['unsubscribe', false]] as const) {
    app.post(`/projects/:id/issues/:issue_iid/${action}`, {
      schema: { params: IssueParams, response: { 201: Issue } },
    }, async (req, reply) => {
      const actor = requireActor(req)
      const { issue, assigneeIds } = await loadIssue(req, req.params.id, req.params.issue_iid)
      const { db } = req.ingot
      if (await isSubscribed(db, actor.user.id, issue, assigneeIds) === subscribed) throw notModified()
      await setSubscription(db, actor.user.id, { type: 'Issue', id: issue.id, projectId: issue.project_id }, subscribed)
      reply.code(201)
      return presentOne(req, issue, assigneeIds)
    })
  }
}

export default issues
