// Who gets a notification email, as the original's NotificationRecipientService: candidates come
// as participants (author, assignees, authors of the user notes, users mentioned in the text),
// mentions, watchers, custom-level users whose event is on, subscribers of the issue or merge
// request (and of its labels when it is new), and new and former assignees on reassignment. Then
// each candidate must be notifiable: active, able to read the project and the target (confidential
// issues included), not the acting user, not explicitly unsubscribed (unless mentioned), and at an
// effective level that lets the kind of candidate through. Each step is one query for all
// candidates together.
import type { Db } from '../../db/index.js'
import type { IssueRow, MergeRequestRow, NamespaceRow, NoteRow, ProjectRow, SnippetRow, UserRow } from '../../db/schema.js'
import type { Actor } from '../../auth/actor.js'
import type { ProjectAccess } from '../../finders/access.js'
import { findAllMembers } from '../../finders/members-finder.js'
import { canOnProject, type ProjectSubject } from '../../policies/project-policy.js'
import { canReadIssue } from '../../policies/issuable-policy.js'
import { INTERNAL, PUBLIC } from '../../policies/access-levels.js'
import type { EmailEvent } from '../../entities/notification-setting.js'
import { mentionedUsernames } from './mentions.js'
import { effectiveSettings, notificationEmailOf, projectPlace, settingsAt, type EffectiveSetting } from './settings.js'

export type NotifiedTarget =
  | { type: 'Issue'; issue: IssueRow; assigneeIds: readonly number[] }
  | { type: 'MergeRequest'; mergeRequest: MergeRequestRow }
  | { type: 'Snippet'; snippet: SnippetRow }

export interface NotificationSubject {
  project: ProjectRow
  namespace: NamespaceRow
  target: NotifiedTarget
}

/** Why a candidate is one: decides which levels let them through. */
export type CandidateKind = 'participating' | 'mention' | 'watch' | 'custom' | 'subscription'

/** Shown to the recipient (X-Service-NotificationReason); the original's NotificationReason. */
export type NotificationReason = 'assigned' | 'mentioned'

/** The reasons in the original's priority: a user both assigned and mentioned is told "assigned". */
const REASON_PRIORITY: readonly (NotificationReason | null)[] = ['assigned', 'mentioned', null]

interface Candidate {
  userId: number
  kind: CandidateKind
  reason: NotificationReason | null
}

export interface Recipient {
  user: UserRow
  /** Their notification email. */
  email: string
  reason: NotificationReason | null
}

export interface RecipientQuery {
  event: EmailEvent
  /** Who acted; left out of the recipients unless `notifyActor`. */
  actorId: number
  notifyActor?: boolean
  /** reassign_*: the assignees before the change. */
  previousAssigneeIds?: readonly number[]
  /** new_note: the note. */
  note?: NoteRow
}

/** Watchers are not told about these; participating users not about successful pipelines. */
const EXCLUDED_WATCHER_EVENTS: ReadonlySet<EmailEvent> = new Set(['push_to_merge_request', 'issue_due', 'success_pipeline'])
const EXCLUDED_PARTICIPATING_EVENTS: ReadonlySet<EmailEvent> = new Set(['success_pipeline'])

export async function notificationRecipients(db: Db, subject: NotificationSubject, query: RecipientQuery): Promise<Recipient[]> {
  const { target } = subject
  const place = await projectPlace(db, subject.project)
  const candidates: Candidate[] = []
  const add = (userIds: Iterable<number>, kind: CandidateKind, reason: NotificationReason | null = null) => {
    for (const userId of userIds) candidates.push({ userId, kind, reason })
  }

  add(await participantIds(db, target), 'participating')
  // Watchers and custom-level users are among the members (whose membership stands for the
  // original's `global` row on the project or group) and the users with a setting there.
  const memberIds = (await findAllMembers(db, { type: 'project', id: subject.project.id }).clearSelect().select('users.id').execute())
    .map((row) => row.id)
  const placeRows = await settingsAt(db, place, null)
  const placeUserIds = new Set([...memberIds, ...placeRows.map((row) => row.user_id)])
  const withGlobals = await settingsAt(db, place, [...placeUserIds])
  for (const [userId, setting] of effectiveSettings(place, withGlobals, placeUserIds)) {
    if (setting.level === 'watch') add([userId], 'watch')
    if (setting.level === 'custom' && setting.events[query.event]) add([userId], 'custom')
  }
  if (query.event === 'new_note' && query.note !== undefined) {
    add(await userIdsNamed(db, mentionedUsernames([query.note.body])), 'mention', 'mentioned')
  }
  if (query.event === 'reassign_issue' || query.event === 'reassign_merge_request') {
    // Reassignment counts as a mention of the assignees old and new.
    add(query.previousAssigneeIds ?? [], 'mention')
    add(assigneeIdsOf(target), 'mention', 'assigned')
  }
  if (query.event === 'new_issue' || query.event === 'new_merge_request') {
    add(await userIdsNamed(db, mentionedUsernames(textsOf(target))), 'mention', 'mentioned')
    add(assigneeIdsOf(target), 'participating', 'assigned')
  }
  const subscriptions = await subscriptionsOf(db, subject, query.event === 'new_issue' || query.event === 'new_merge_request')
  add(subscriptions.subscribed, 'subscription')

  const userIds = [...new Set(candidates.map((candidate) => candidate.userId))]
  if (userIds.length === 0) return []
  const [users, rows, access] = await Promise.all([
    db.selectFrom('users').selectAll().where('id', 'in', userIds).execute(),
    settingsAt(db, place, userIds),
    accessOf(db, subject.project.id, userIds),
  ])
  const settings = effectiveSettings(place, rows, userIds)
  const usersById = new Map(users.map((user) => [user.id, user]))
  const readable = new Set(users.filter((user) => canReadTarget(user, subject, access.get(user.id))).map((user) => user.id))

  const notifiable = candidates.filter((candidate) => {
    const user = usersById.get(candidate.userId)
    if (user === undefined || user.state !== 'active' || user.ghost === 1) return false
    if (!readable.has(user.id)) return false
    if (user.id === query.actorId && query.notifyActor !== true) return false
    const unsubscribed = subscriptions.unsubscribed.has(user.id)
    // Even a disabled level gets what the user subscribed to by hand.
    if (candidate.kind === 'subscription') return !unsubscribed
    if (!suitableLevel(settings.get(user.id)!, candidate.kind, query.event)) return false
    return candidate.kind === 'mention' || !unsubscribed
  })
  notifiable.sort((a, b) => REASON_PRIORITY.indexOf(a.reason) - REASON_PRIORITY.indexOf(b.reason))
  const seen = new Set<number>()
  const recipients: Recipient[] = []
  for (const candidate of notifiable) {
    if (seen.has(candidate.userId)) continue
    seen.add(candidate.userId)
    const user = usersById.get(candidate.userId)!
    recipients.push({ user, email: notificationEmailOf(user, settings.get(user.id)!.global), reason: candidate.reason })
  }
  return recipients.sort((a, b) => a.user.id - b.user.id)
}

export function suitableLevel(setting: EffectiveSetting, kind: CandidateKind, event: EmailEvent): boolean {
  switch (setting.level) {
    case 'disabled': return false
    case 'custom': return setting.events[event] || kind === 'participating' || kind === 'mention'
    case 'watch': return !EXCLUDED_WATCHER_EVENTS.has(event)
    case 'participating': return !EXCLUDED_PARTICIPATING_EVENTS.has(event)
    case 'mention': return kind === 'mention'
  }
}

function assigneeIdsOf(target: NotifiedTarget): number[] {
  if (target.type === 'Issue') return [...target.assigneeIds]
  if (target.type === 'MergeRequest') return target.mergeRequest.assignee_id === null ? [] : [target.mergeRequest.assignee_id]
  return []
}

function textsOf(target: NotifiedTarget): (string | null)[] {
  if (target.type === 'Issue') return [target.issue.title, target.issue.description]
  if (target.type === 'MergeRequest') return [target.mergeRequest.title, target.mergeRequest.description]
  return [target.snippet.title, target.snippet.description]
}

function targetRef(target: NotifiedTarget): { type: 'Issue' | 'MergeRequest' | 'Snippet'; id: number } {
  if (target.type === 'Issue') return { type: 'Issue', id: target.issue.id }
  if (target.type === 'MergeRequest') return { type: 'MergeRequest', id: target.mergeRequest.id }
  return { type: 'Snippet', id: target.snippet.id }
}

/** Author, assignees, authors of user notes, and users mentioned in the text or the user notes. */
async function participantIds(db: Db, target: NotifiedTarget): Promise<Set<number>> {
  const ref = targetRef(target)
  const notes = await db.selectFrom('notes').select(['author_id', 'body'])
    .where('noteable_type', '=', ref.type).where('noteable_id', '=', ref.id).where('system', '=', 0)
    .execute()
  const authorId = target.type === 'Issue' ? target.issue.author_id
    : target.type === 'MergeRequest' ? target.mergeRequest.author_id : target.snippet.author_id
  const mentioned = await userIdsNamed(db, mentionedUsernames([...textsOf(target), ...notes.map((note) => note.body)]))
  return new Set([authorId, ...assigneeIdsOf(target), ...notes.map((note) => note.author_id), ...mentioned])
}

async function userIdsNamed(db: Db, usernames: ReadonlySet<string>): Promise<number[]> {
  if (usernames.size === 0) return []
  const rows = await db.selectFrom('users').select('id').where('username_lower', 'in', [...usernames]).execute()
  return rows.map((row) => row.id)
}

/**
 * Subscribers of the target (and of its labels, for a new issue or merge request; label
 * subscriptions made in this project or on the label itself), and the users who unsubscribed
 * from the target explicitly.
 */
async function subscriptionsOf(
  db: Db, subject: NotificationSubject, withLabels: boolean,
): Promise<{ subscribed: Set<number>; unsubscribed: Set<number> }> {
  const ref = targetRef(subject.target)
  const subscribed = new Set<number>()
  const unsubscribed = new Set<number>()
  if (ref.type === 'Snippet') return { subscribed, unsubscribed }
  const rows = await db.selectFrom('subscriptions').select(['user_id', 'subscribed'])
    .where('subscribable_type', '=', ref.type).where('subscribable_id', '=', ref.id)
    .execute()
  for (const row of rows) (row.subscribed === 1 ? subscribed : unsubscribed).add(row.user_id)
  if (withLabels) {
    const labelRows = await db.selectFrom('label_links')
      .innerJoin('subscriptions', (join) => join.on('subscriptions.subscribable_type', '=', 'Label').onRef('subscriptions.subscribable_id', '=', 'label_links.label_id'))
      .select('subscriptions.user_id')
      .where('label_links.target_type', '=', ref.type).where('label_links.target_id', '=', ref.id)
      .where('subscriptions.subscribed', '=', 1)
      .where((eb) => eb.or([eb('subscriptions.project_id', '=', subject.project.id), eb('subscriptions.project_id', 'is', null)]))
      .execute()
    for (const row of labelRows) if (!unsubscribed.has(row.user_id)) subscribed.add(row.user_id)
  }
  return { subscribed, unsubscribed }
}

/** The users' access to the project (direct, through its groups, through shares), in one query. */
export async function accessOf(db: Db, projectId: number, userIds: readonly number[]): Promise<Map<number, ProjectAccess>> {
  const rows = await findAllMembers(db, { type: 'project', id: projectId })
    .where('users.id', 'in', userIds)
    .execute()
  const result = new Map<number, ProjectAccess>()
  for (const row of rows) {
    const access = result.get(row.id) ?? { projectAccess: null, groupAccess: null, level: 0 }
    access.level = Math.max(access.level, row.member_access_level)
    result.set(row.id, access)
  }
  return result
}

function canReadTarget(user: UserRow, subject: NotificationSubject, access: ProjectAccess | undefined): boolean {
  const actor: Actor = { user, token: null, sudoFrom: null }
  const projectSubject: ProjectSubject = { project: subject.project, namespace: subject.namespace, access: access ?? { projectAccess: null, groupAccess: null, level: 0 } }
  const { target } = subject
  switch (target.type) {
    case 'Issue': return canReadIssue(actor, projectSubject, target.issue, target.assigneeIds)
    case 'MergeRequest': return canOnProject(actor, projectSubject, 'read_merge_request')
    case 'Snippet': {
      if (!canOnProject(actor, projectSubject, 'read_snippet')) return false
      const visibility = target.snippet.visibility_level
      return visibility >= PUBLIC || user.admin === 1 || projectSubject.access.level > 0
        || (visibility >= INTERNAL && user.external === 0)
    }
  }
}
