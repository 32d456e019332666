// Merge requests (spec: Merge request; endpoints: Merge requests), as the original v4 API of
// release 11.5 answers them: the three lists, one merge request, update, delete, time tracking and
// subscriptions. Creation, merge and the repository views are in merge-request-git.ts.
// Forms: lists answer the basic form (view=simple the simple one); everything about one merge
// request answers the single form (with subscribed, changes_count, diff_refs).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type, type Static } from '@sinclair/typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Actor } from '../../auth/actor.js'
import type { AppContext } from '../../context.js'
import type { MergeRequestRow } from '../../db/schema.js'
import {
  MergeRequest, MergeRequestBasic, MergeRequestSimple, presentMergeRequest, presentMergeRequestBasic,
  presentMergeRequestSimple, type MergeRequestEntity,
} from '../../entities/merge-request.js'
import { parseLabelsFilter, type IssuableScope } from '../../finders/issuable-filters.js'
import {
  MERGE_REQUEST_STATES, isSubscribed, listMergeRequests, loadMergeRequestDetails, loadMergeRequestView,
  type MergeRequestFilters, type MergeRequestScope,
} from '../../finders/merge-requests-finder.js'
import { canUpdateMergeRequest } from '../../policies/issuable-policy.js'
import { canOnProject, isProjectOwner } from '../../policies/project-policy.js'
import { TimeStats, presentTimeStats } from '../../entities/time-stats.js'
import { deleteIssuable } from '../../services/issuables/delete-issuable.js'
import { addSpentTime, durationParam, resetSpentTime, setTimeEstimate, type TimeTracked, type TrackedTime } from '../../services/issuables/time-tracking.js'
import { setSubscription } from '../../services/issuables/subscriptions.js'
import { updateMergeRequest, type MergeRequestChanges } from '../../services/merge-requests/update-merge-request.js'
import { labelTitlesOf } from '../../services/labels/issuable-labels.js'
import { ApiError, missingOneOf, notModified, unauthorized } from '../../common/errors.js'
import {
  authorize, loadGroup, loadGroupMilestone, loadMergeRequest, loadProjectFor, loadProjectMilestone, requireActor, type LoadedMergeRequest,
} from '../load.js'
import { setPaginationHeaders } from '../pagination.js'
import type { PaginationQuery } from '../../common/pages.js'
import { BooleanParam, DateTimeParam, IdParams, OneOf, Pagination, SearchParam, SortParam } from '../params.js'
import { presentCtx } from '../present.js'
import { MAX_INTEGER } from '../../db/values.js'

/** An id or iid as the integer columns hold them (larger ones are invalid, not a database error). */
const RowId = Type.Integer({ minimum: 0, maximum: MAX_INTEGER })

const MergeRequestParams = Type.Composite([IdParams, Type.Object({ merge_request_iid: Type.Integer() })])
const MilestoneParams = Type.Composite([IdParams, Type.Object({ milestone_id: Type.Integer() })])
const NEWEST_FIRST = { orderBy: 'created_at', sort: 'desc' } as const

/** `labels` as a comma-separated string or as an array (`labels[]=a&labels[]=b`). */
const LabelsParam = Type.Union([Type.String(), Type.Array(Type.String())])

const ListQuery = Type.Object({
  ...Pagination.properties,
  state: OneOf(MERGE_REQUEST_STATES, { default: 'all' }),
  order_by: OneOf<MergeRequestFilters['orderBy']>(['created_at', 'updated_at'], { default: 'created_at' }),
  sort: SortParam('desc'),
  milestone: Type.Optional(Type.String()),
  view: Type.Optional(OneOf(['simple'] as const)),
  labels: Type.Optional(LabelsParam),
  created_after: Type.Optional(DateTimeParam()),
  created_before: Type.Optional(DateTimeParam()),
  updated_after: Type.Optional(DateTimeParam()),
  updated_before: Type.Optional(DateTimeParam()),
  // The original takes the hyphenated forms too.
  scope: Type.Optional(OneOf(['created_by_me', 'assigned_to_me', 'all', 'created-by-me', 'assigned-to-me'] as const)),
  author_id: Type.Optional(RowId),
  assignee_id: Type.Optional(Type.Union([RowId, OneOf(['None', 'Any', 'none', 'any'] as const)])),
  my_reaction_emoji: Type.Optional(Type.String({ minLength: 1 })),
  source_branch: Type.Optional(Type.String()),
  target_branch: Type.Optional(Type.String()),
  search: Type.Optional(SearchParam()),
  wip: Type.Optional(OneOf(['yes', 'no'] as const)),
})
type ListQueryType = Static<typeof ListQuery>
const ProjectListQuery = Type.Composite([ListQuery, Type.Object({ iids: Type.Optional(Type.Array(RowId)) })])

/** A list item: the basic form, or the simple one (view=simple), whose fields every item has. */
const ListItem = Type.Object({ ...Type.Partial(MergeRequestBasic).properties, ...MergeRequestSimple.properties })

/** The parameters PUT needs at least one of, in the original's order. */
const UPDATE_PARAMS = [
  'assignee_id', 'description', 'labels', 'milestone_id', 'remove_source_branch', 'state_event', 'target_branch', 'title',
  'discussion_locked', 'squash', 'allow_collaboration', 'allow_maintainer_to_push',
] as const

const UpdateBody = Type.Object({
  title: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  target_branch: Type.Optional(Type.String()),
  /** 0 (or null) unassigns. */
  assignee_id: Type.Optional(Type.Union([RowId, Type.Null()])),
  /** 0 (or null) removes the milestone. */
  milestone_id: Type.Optional(Type.Union([RowId, Type.Null()])),
  labels: Type.Optional(LabelsParam),
  state_event: Type.Optional(OneOf(['close', 'reopen'] as const)),
  remove_source_branch: Type.Optional(BooleanParam()),
  squash: Type.Optional(BooleanParam()),
  discussion_locked: Type.Optional(BooleanParam()),
  allow_collaboration: Type.Optional(BooleanParam()),
  allow_maintainer_to_push: Type.Optional(BooleanParam({ description: 'Deprecated name of allow_collaboration' })),
})
type UpdateBodyType = Static<typeof UpdateBody>

const DurationBody = Type.Object({ duration: Type.String() })

const emptyParam = (name: string) => new ApiError(400, { error: `${name} is empty` })

/** `assignee_id`: a user id, or None (0 too, as the original reads it) or Any in any case. */
function assigneeFilter(value: number | string | undefined): MergeRequestFilters['assigneeId'] {
  if (value === undefined || typeof value === 'number') return value === 0 ? 'None' : value
  return value.toLowerCase() === 'none' ? 'None' : 'Any'
}

function listFilters(query: ListQueryType & { iids?: number[] }, defaultScope: IssuableScope): MergeRequestFilters {
  const scope = (query.scope?.replace(/-/g, '_') ?? defaultScope) as IssuableScope
  const assignee = assigneeFilter(query.assignee_id)
  const reaction = query.my_reaction_emoji
  const labels = Array.isArray(query.labels) ? query.labels.join(',') : query.labels
  return {
    ...(query.state === 'all' ? {} : { state: query.state }),
    labels: parseLabelsFilter(labels),
    ...(query.milestone === undefined ? {} : { milestone: query.milestone }),
    scope,
    ...(query.author_id === undefined ? {} : { authorId: query.author_id }),
    ...(assignee === undefined ? {}
      : { assigneeId: assignee }),
    ...(reaction === undefined ? {}
      : { myReactionEmoji: reaction.toLowerCase() === 'none' ? 'None' : reaction.toLowerCase() === 'any' ? 'Any' : reaction }),
    ...(query.iids === undefined ? {} : { iids: query.iids }),
    ...(query.search === undefined ? {} : { search: query.search }),
    ...(query.created_after === undefined ? {} : { createdAfter: query.created_after }),
    ...(query.created_before === undefined ? {} : { createdBefore: query.created_before }),
    ...(query.updated_after === undefined ? {} : { updatedAfter: query.updated_after }),
    ...(query.updated_before === undefined ? {} : { updatedBefore: query.updated_before }),
    ...(query.source_branch === undefined ? {} : { sourceBranch: query.source_branch }),
    ...(query.target_branch === undefined ? {} : { targetBranch: query.target_branch }),
    ...(query.wip === undefined ? {} : { wip: query.wip === 'yes' }),
    orderBy: query.order_by,
    sort: query.sort,
  }
}

async function sendList(
  req: FastifyRequest, reply: FastifyReply, scope: MergeRequestScope, filters: MergeRequestFilters, query: PaginationQuery & { view?: 'simple' },
) {
  const page = await listMergeRequests(req.ingot.db, req.actor, scope, filters, query)
  setPaginationHeaders(req, reply, page)
  const ctx = presentCtx(req)
  return page.items.map((view) => (query.view === 'simple' ? presentMergeRequestSimple(view, ctx) : presentMergeRequestBasic(view, ctx)))
}

/** The single form of a merge request, for the caller. */
async function presentSingleMergeRequest(req: FastifyRequest, mr: MergeRequestRow): Promise<MergeRequestEntity> {
  const { ingot } = req.server
  const [view, details] = await Promise.all([loadMergeRequestView(ingot.db, mr), loadMergeRequestDetails(ingot, req.actor, mr)])
  return presentMergeRequest(view, details, presentCtx(req))
}

function changesOf(body: UpdateBodyType): MergeRequestChanges {
  if (UPDATE_PARAMS.every((name) => body[name] === undefined)) throw missingOneOf(...UPDATE_PARAMS)
  if (body.title !== undefined && body.title.trim() === '') throw emptyParam('title')
  if (body.target_branch !== undefined && body.target_branch.trim() === '') throw emptyParam('target_branch')
  const allowCollaboration = body.allow_collaboration ?? body.allow_maintainer_to_push
  return {
    ...(body.title === undefined ? {} : { title: body.title.trim() }),
    ...(body.description === undefined ? {} : { description: body.description }),
    ...(body.target_branch === undefined ? {} : { targetBranch: body.target_branch }),
    ...(body.assignee_id === undefined ? {} : { assigneeId: body.assignee_id || null }),
    ...(body.milestone_id === undefined ? {} : { milestoneId: body.milestone_id || null }),
    ...(body.labels === undefined ? {} : { labels: labelTitlesOf(body.labels) }),
    ...(body.state_event === undefined ? {} : { stateEvent: body.state_event }),
    ...(body.remove_source_branch === undefined ? {} : { forceRemoveSourceBranch: body.remove_source_branch }),
    ...(body.squash === undefined ? {} : { squash: body.squash }),
    ...(body.discussion_locked === undefined ? {} : { discussionLocked: body.discussion_locked }),
    ...(allowCollaboration === undefined ? {} : { allowCollaboration }),
  }
}

/** A merge request the caller may edit: its author, its assignee, or a Developer and up (403 otherwise). */
async function loadEditable(req: FastifyRequest, id: string, iid: number): Promise<LoadedMergeRequest> {
  const loaded = await loadMergeRequest(req, id, iid)
  authorize(canUpdateMergeRequest(req.actor, loaded, loaded.mergeRequest))
  return loaded
}

const mergeRequests: FastifyPluginAsyncTypebox = async (app) => {
  const base = '/projects/:id/merge_requests'
  const single = `${base}/:merge_request_iid`

  app.get('/merge_requests', {
    schema: { querystring: ListQuery, response: { 200: Type.Array(ListItem) } },
    config: { auth: 'optional' },
  }, async (req, reply) => {
    // Everyone's merge requests (scope=all) may be listed anonymously; "mine" need a caller.
    if (req.actor === null && req.query.scope !== 'all') throw unauthorized()
    return sendList(req, reply, { kind: 'all' }, listFilters(req.query, 'created_by_me'), req.query)
  })

  app.get(base, {
    schema: { params: IdParams, querystring: ProjectListQuery, response: { 200: Type.Array(ListItem) } },
    config: { auth: 'optional' },
  }, async (req, reply) => {
    const { project } = await loadProjectFor(req, req.params.id, 'read_merge_request')
    return sendList(req, reply, { kind: 'project', projectId: project.id }, listFilters(req.query, 'all'), req.query)
  })

  app.get('/groups/:id/merge_requests', {
    schema: { params: IdParams, querystring: ListQuery, response: { 200: Type.Array(ListItem) } },
    config: { auth: 'optional' },
  }, async (req, reply) => {
    const { group } = await loadGroup(req, req.params.id)
    return sendList(req, reply, { kind: 'group', groupId: group.id }, listFilters(req.query, 'all'), req.query)
  })

  // A milestone's merge requests (spec: Milestones), newest first: a group milestone's span the
  // group's projects. A project's are listed to those who may read its merge requests.
  app.get('/projects/:id/milestones/:milestone_id/merge_requests', {
    schema: { params: MilestoneParams, querystring: Pagination, response: { 200: Type.Array(ListItem) } },
  }, async (req, reply) => {
    const { milestone, ...subject } = await loadProjectMilestone(req, req.params.id, req.params.milestone_id)
    authorize(canOnProject(req.actor, subject, 'read_merge_request'))
    return sendList(req, reply, { kind: 'project', projectId: subject.project.id }, { milestoneId: milestone.id, ...NEWEST_FIRST }, req.query)
  })

  app.get('/groups/:id/milestones/:milestone_id/merge_requests', {
    schema: { params: MilestoneParams, querystring: Pagination, response: { 200: Type.Array(ListItem) } },
  }, async (req, reply) => {
    const { group, milestone } = await loadGroupMilestone(req, req.params.id, req.params.milestone_id)
    return sendList(req, reply, { kind: 'group', groupId: group.id }, { milestoneId: milestone.id, ...NEWEST_FIRST }, req.query)
  })

  app.get(single, {
    schema: { params: MergeRequestParams, response: { 200: MergeRequest } },
    config: { auth: 'optional' },
  }, async (req) => {
    const { mergeRequest } = await loadMergeRequest(req, req.params.id, req.params.merge_request_iid)
    return presentSingleMergeRequest(req, mergeRequest)
  })

  app.put(single, {
    schema: { params: MergeRequestParams, body: UpdateBody, response: { 200: MergeRequest } },
  }, async (req) => {
    const changes = changesOf(req.body)
    const loaded = await loadEditable(req, req.params.id, req.params.merge_request_iid)
    const actor = requireActor(req)
    const mergeRequest = await updateMergeRequest(
      req.ingot, actor, loaded, loaded.mergeRequest, changes, canOnProject(actor, loaded, 'admin_merge_request'),
    )
    return presentSingleMergeRequest(req, mergeRequest)
  })

  app.delete(single, {
    schema: { params: MergeRequestParams },
  }, async (req, reply) => {
    const loaded = await loadMergeRequest(req, req.params.id, req.params.merge_request_iid)
    const actor = requireActor(req)
    authorize(actor.user.admin === 1 || isProjectOwner(actor, loaded))
    await deleteIssuable(req.ingot.db, { type: 'MergeRequest', id: loaded.mergeRequest.id })
    return reply.code(204).send()
  })

  /** POST …/<suffix>: a change of the time tracked (with a `duration` when `takesDuration`). */
  type TimeChange = (ctx: AppContext, tracked: TimeTracked, actor: Actor, duration: string) => Promise<TrackedTime>
  const timeRoute = (suffix: string, status: 200 | 201, takesDuration: boolean, change: TimeChange) => {
    app.post(`${single}/${suffix}`, {
      schema: { params: MergeRequestParams, ...(takesDuration ? { body: DurationBody } : {}), response: { [status]: TimeStats } },
    }, async (req, reply) => {
      // Time tracking is for those who administer merge requests, authors or not, as in the original.
      const loaded = await loadMergeRequest(req, req.params.id, req.params.merge_request_iid, 'admin_merge_request')
      const { duration } = req.body as { duration?: string }
      const { mergeRequest } = loaded
      const tracked = {
        type: 'MergeRequest' as const, id: mergeRequest.id, projectId: mergeRequest.target_project_id, time: mergeRequest, updatedAt: mergeRequest.updated_at,
      }
      const updated = await change(req.ingot, tracked, requireActor(req), duration ?? '')
      reply.code(status)
      return presentTimeStats(updated)
    })
  }
  timeRoute('time_estimate', 200, true, (ctx, tracked, actor, duration) => setTimeEstimate(ctx, actor, tracked, durationParam(duration, 'time_estimate')))
  timeRoute('reset_time_estimate', 200, false, (ctx, tracked, actor) => setTimeEstimate(ctx, actor, tracked, 0))
  timeRoute('add_spent_time', 201, true, (ctx, tracked, actor, duration) => addSpentTime(ctx, actor, tracked, durationParam(duration, 'time_spent')))
  timeRoute('reset_spent_time', 200, false, (ctx, tracked, actor) => resetSpentTime(ctx, actor, tracked))

  app.get(`${single}/time_stats`, {
    schema: { params: MergeRequestParams, response: { 200: TimeStats } },
    config: { auth: 'optional' },
  }, async (req) => {
    const { mergeRequest } = await loadMergeRequest(req, req.params.id, req.params.merge_request_iid)
    return presentTimeStats(mergeRequest)
  })

  for (const [suffix, subscribed] of [['subscribe', true], ['unsubscribe', false]] as const) {
    app.post(`${single}/${suffix}`, {
      schema: { params: MergeRequestParams, response: { 201: MergeRequest } },
    }, async (req, reply) => {
      const { mergeRequest } = await loadMergeRequest(req, req.params.id, req.params.merge_request_iid)
      const actor = requireActor(req)
      const { db } = req.ingot
      if (await isSubscribed(db, actor.user.id, mergeRequest) === subscribed) throw notModified()
      await setSubscription(db, actor.user.id, { type: 'MergeRequest', id: mergeRequest.id, projectId: mergeRequest.target_project_id }, subscribed)
      reply.code(201)
      return presentSingleMergeRequest(req, mergeRequest)
    })
  }
}

export default mergeRequests
