// Notification email, wired to the hook points: issue, merge request and note activities and
// pushes to open merge requests' source branches each enqueue one `notifications.fan_out` job, which
// computes the recipients (recipients.ts) and enqueues one `notifications.deliver` job per email,
// so a failed send is retried alone (with the queue's backoff) and never mails the others twice. A
// daily job mails about the open issues due that day (the kinds are in jobs.ts). Nothing is
// enqueued without INGOT_SMTP_URL.
import type { AppContext } from '../../context.js'
import type { EmailEvent } from '../../entities/notification-setting.js'
import type { Activity } from '../activity/activity.js'
import type { CompletedPush } from '../push/after-push.js'
import { BRANCH_PREFIX, shortRefName } from '../../git/ref-names.js'
import { NULL_OID } from '../../git/repository.js'
import { commitIdsBetween, countCommitsBetween } from '../../git/merge.js'
import { commitTitle } from '../../entities/commit.js'
import { today } from '../../db/values.js'
import { issueAssigneeIds } from '../../finders/issues-finder.js'
import { getApplicationSettings } from '../settings.js'
import { notificationRecipients, type NotificationSubject, type NotifiedTarget } from './recipients.js'
import { composeNotificationEmail, type EventDetails } from './notification-email.js'
import { DELIVER_NOTIFICATION, FAN_OUT_NOTIFICATION } from './jobs.js'

/** The commits a push_to_merge_request email lists. */
const LISTED_COMMITS = 20

export interface NotificationEventPayload {
  event: EmailEvent
  projectId: number
  target: { type: NotifiedTarget['type']; id: number }
  actorId: number
  /** issue_due: the author is told too. */
  notifyActor?: boolean
  previousAssigneeIds?: number[]
  noteId?: number
  push?: { projectId: number; oldId: string; newId: string }
}

/** The listeners of notification email; called once from openContext. */
export function registerNotificationEmail(hooks: Pick<AppContext, 'activity' | 'pushListeners'>): void {
  hooks.activity.add(async (activity, ctx) => {
    if (ctx.mailer === null) return
    const payload = await eventOf(ctx, activity)
    if (payload !== null) await ctx.jobs.enqueue(FAN_OUT_NOTIFICATION, payload)
  })
  hooks.pushListeners.add((push, ctx) => onPush(ctx, push))
}

/** The email event an activity is, if any (quick: at most one read, for notes). */
async function eventOf(ctx: AppContext, activity: Activity): Promise<NotificationEventPayload | null> {
  switch (activity.kind) {
    case 'issue': {
      const base = { projectId: activity.projectId, target: { type: 'Issue' as const, id: activity.issueId }, actorId: activity.userId }
      if (activity.action === 'open') return { ...base, event: 'new_issue' }
      if (activity.action === 'close') return { ...base, event: 'close_issue' }
      if (activity.action === 'reopen') return { ...base, event: 'reopen_issue' }
      const assignees = activity.changes.assignees
      if (assignees !== undefined) return { ...base, event: 'reassign_issue', previousAssigneeIds: idsOf(assignees.previous) }
      return null
    }
    case 'merge_request': {
      const base = { projectId: activity.projectId, target: { type: 'MergeRequest' as const, id: activity.mergeRequestId }, actorId: activity.userId }
      if (activity.action === 'open') return { ...base, event: 'new_merge_request' }
      if (activity.action === 'close') return { ...base, event: 'close_merge_request' }
      if (activity.action === 'reopen') return { ...base, event: 'reopen_merge_request' }
      if (activity.action === 'merge') return { ...base, event: 'merge_merge_request' }
      const assignee = activity.changes.assignee_id ?? activity.changes.assignees
      if (assignee !== undefined) return { ...base, event: 'reassign_merge_request', previousAssigneeIds: idsOf(assignee.previous) }
      return null
    }
    case 'note': {
      const note = await ctx.db.selectFrom('notes').select(['noteable_type', 'noteable_id', 'system'])
        .where('id', '=', activity.noteId).executeTakeFirst()
      if (note === undefined || note.system === 1 || note.noteable_id === null) return null
      if (note.noteable_type !== 'Issue' && note.noteable_type !== 'MergeRequest' && note.noteable_type !== 'Snippet') return null
      return {
        event: 'new_note', projectId: activity.projectId, target: { type: note.noteable_type, id: note.noteable_id },
        actorId: activity.userId, noteId: activity.noteId,
      }
    }
    default:
      return null
  }
}

function idsOf(value: unknown): number[] {
  if (Array.isArray(value)) return value.filter((id): id is number => typeof id === 'number')
  return typeof value === 'number' ? [value] : []
}

/** A push that moves an open merge request's source branch forward tells its audience. */
async function onPush(ctx: AppContext, push: CompletedPush): Promise<void> {
  if (ctx.mailer === null) return
  for (const update of push.updates) {
    if (!update.ref.startsWith(BRANCH_PREFIX) || update.oldId === NULL_OID || update.newId === NULL_OID) continue
    const open = await ctx.db.selectFrom('merge_requests').select(['id', 'target_project_id'])
      .where('source_project_id', '=', push.project.id).where('source_branch', '=', shortRefName(update.ref)).where('state', '=', 'opened')
      .execute()
    for (const mr of open) {
      await ctx.jobs.enqueue(FAN_OUT_NOTIFICATION, {
        event: 'push_to_merge_request', projectId: mr.target_project_id, target: { type: 'MergeRequest', id: mr.id },
        actorId: push.actor.user.id, push: { projectId: push.project.id, oldId: update.oldId, newId: update.newId },
      } satisfies NotificationEventPayload)
    }
  }
}

/** The open issues due today, each its own issue_due job (the author is told too, as the original does). */
export async function enqueueIssuesDue(ctx: AppContext): Promise<void> {
  if (ctx.mailer === null) return
  const date = today()
  const due = await ctx.db.selectFrom('issues').select(['id', 'project_id', 'author_id'])
    .where('due_date', '=', date).where('state', '=', 'opened').execute()
  for (const issue of due) {
    await ctx.jobs.enqueue(FAN_OUT_NOTIFICATION, {
      event: 'issue_due', projectId: issue.project_id, target: { type: 'Issue', id: issue.id }, actorId: issue.author_id, notifyActor: true,
    } satisfies NotificationEventPayload, { uniqueKey: `issue_due:${issue.id}:${date}` })
  }
}

async function loadSubject(ctx: AppContext, payload: NotificationEventPayload): Promise<NotificationSubject | null> {
  const { db } = ctx
  const project = await db.selectFrom('projects').selectAll().where('id', '=', payload.projectId).executeTakeFirst()
  if (project === undefined) return null
  const namespace = await db.selectFrom('namespaces').selectAll().where('id', '=', project.namespace_id).executeTakeFirstOrThrow()
  const { type, id } = payload.target
  if (type === 'Issue') {
    const issue = await db.selectFrom('issues').selectAll().where('id', '=', id).where('project_id', '=', project.id).executeTakeFirst()
    if (issue === undefined) return null
    return { project, namespace, target: { type, issue, assigneeIds: await issueAssigneeIds(db, id) } }
  }
  if (type === 'MergeRequest') {
    const mergeRequest = await db.selectFrom('merge_requests').selectAll().where('id', '=', id).where('target_project_id', '=', project.id).executeTakeFirst()
    return mergeRequest === undefined ? null : { project, namespace, target: { type, mergeRequest } }
  }
  const snippet = await db.selectFrom('snippets').selectAll().where('id', '=', id).where('project_id', '=', project.id).executeTakeFirst()
  return snippet === undefined ? null : { project, namespace, target: { type, snippet } }
}

/** Works out an event's recipients and enqueues one email to each. */
export async function sendEventEmails(ctx: AppContext, payload: NotificationEventPayload): Promise<void> {
  if (ctx.mailer === null) return
  const { db } = ctx
  const subject = await loadSubject(ctx, payload)
  const actor = await db.selectFrom('users').selectAll().where('id', '=', payload.actorId).executeTakeFirst()
  if (subject === null || actor === undefined) return
  const note = payload.noteId === undefined ? undefined
    : await db.selectFrom('notes').selectAll().where('id', '=', payload.noteId).executeTakeFirst()
  if (payload.noteId !== undefined && note === undefined) return
  const recipients = await notificationRecipients(db, subject, {
    event: payload.event, actorId: payload.actorId, notifyActor: payload.notifyActor === true,
    previousAssigneeIds: payload.previousAssigneeIds ?? [], ...(note === undefined ? {} : { note }),
  })
  if (recipients.length === 0) return

  const { target } = subject
  const assigneeIds = target.type === 'Issue' ? [...target.assigneeIds]
    : target.type === 'MergeRequest' && target.mergeRequest.assignee_id !== null ? [target.mergeRequest.assignee_id] : []
  const previousIds = payload.previousAssigneeIds ?? []
  const named = [...new Set([...assigneeIds, ...previousIds])]
  const names = new Map((named.length === 0 ? [] : await db.selectFrom('users').select(['id', 'name']).where('id', 'in', named).execute())
    .map((row) => [row.id, row.name]))
  const details: EventDetails = {
    event: payload.event,
    actor,
    assigneeNames: assigneeIds.map((id) => names.get(id) ?? ''),
    previousAssigneeNames: previousIds.map((id) => names.get(id) ?? ''),
    ...(note === undefined ? {} : { note }),
    description: target.type === 'Issue' ? target.issue.description : target.type === 'MergeRequest' ? target.mergeRequest.description : null,
    ...(payload.push === undefined ? {} : await pushedCommits(ctx, payload.push)),
  }
  const settings = await getApplicationSettings(db)
  const context = {
    externalUrl: ctx.config.externalUrl, emailFrom: ctx.config.emailFrom,
    htmlEmails: settings.html_emails_enabled, authorInBody: settings.email_author_in_body,
  }
  const emails = recipients.map((recipient) => composeNotificationEmail(context, subject, details, recipient))
  await ctx.jobs.enqueueMany(DELIVER_NOTIFICATION, emails)
}

async function pushedCommits(ctx: AppContext, push: NonNullable<NotificationEventPayload['push']>): Promise<Pick<EventDetails, 'commits' | 'commitCount'>> {
  const repo = ctx.repositories.open(push.projectId)
  const [ids, count] = await Promise.all([
    commitIdsBetween(repo, [push.oldId], push.newId, { offset: 0, limit: LISTED_COMMITS }),
    countCommitsBetween(repo, [push.oldId], push.newId),
  ])
  const commits = await repo.readCommits(ids)
  return { commits: commits.map((commit) => ({ id: commit.id, title: commitTitle(commit.message) })), commitCount: count }
}
