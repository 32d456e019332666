// The hook point for what users do to a project's issues, merge requests, notes and wiki pages, and
// for the instance-level changes system hooks report: services publish an Activity after their
// transaction commits, and listeners (webhooks, integrations, notification email) decide whether it
// concerns them and enqueue jobs for the work. Listeners run one after another and must be quick:
// no delivery happens inside the request that caused it. Activities carry ids and plain values only,
// so that a listener can put one into a job's payload as it is.
import type { AppContext } from '../../context.js'

/** One field's value before and after a change, as the original's hook payloads carry `changes`. */
export interface FieldChange {
  previous: unknown
  current: unknown
}
export type Changes = Record<string, FieldChange>

export type IssueAction = 'open' | 'update' | 'close' | 'reopen'
export type MergeRequestAction = 'open' | 'update' | 'close' | 'reopen' | 'merge'
export type WikiPageAction = 'create' | 'update' | 'delete'

export interface IssueActivity {
  kind: 'issue'
  action: IssueAction
  projectId: number
  issueId: number
  /** Who acted. */
  userId: number
  /**
   * What changed (update, close, reopen): title, description, state, confidential,
   * discussion_locked, milestone_id, due_date, labels (titles), assignees (user ids), time_estimate,
   * total_time_spent, updated_at — only the fields that changed.
   */
  changes: Changes
}

export interface MergeRequestActivity {
  kind: 'merge_request'
  action: MergeRequestAction
  /** The target project. */
  projectId: number
  mergeRequestId: number
  userId: number
  /** As IssueActivity's, plus source_branch, target_branch, merge_status when they change. */
  changes: Changes
}

export interface NoteActivity {
  kind: 'note'
  projectId: number
  noteId: number
  userId: number
}

export interface WikiPageActivity {
  kind: 'wiki_page'
  action: WikiPageAction
  projectId: number
  userId: number
  slug: string
  title: string
  format: string
  /** The page's content after the change; empty for a deletion. */
  content: string
  /** The commit message of the change. */
  message: string
}

/**
 * An instance-level change for system hooks, with the payload the hook will carry (built before a
 * deletion, while the record still exists): `event_name` is `project_create`, `project_destroy`,
 * `user_create`, `user_destroy`, `group_create`, `group_destroy`, …
 */
export interface SystemActivity {
  kind: 'system'
  eventName: string
  payload: Record<string, unknown>
}

export type Activity = IssueActivity | MergeRequestActivity | NoteActivity | WikiPageActivity | SystemActivity

/**
 * A listener hears an activity with the context of whoever published it (a request's or a job's),
 * so that the jobs it enqueues carry that request's id.
 */
export type ActivityListener = (activity: Activity, ctx: AppContext) => Promise<void>

export class ActivityListeners {
  private readonly listeners: ActivityListener[] = []

  add(listener: ActivityListener): void {
    this.listeners.push(listener)
  }

  /** Tells every listener; one failing is logged and does not stop the others or the caller. */
  async publish(activity: Activity, ctx: AppContext): Promise<void> {
    for (const listener of this.listeners) {
      try {
        await listener(activity, ctx)
      } catch (err) {
        ctx.log.error({ err, activity: activity.kind }, 'an activity listener failed')
      }
    }
  }
}

/** The changes between two versions of a record in the given fields (those it has), skipping the equal ones. */
export function changesBetween(before: object, after: object, fields: readonly string[]): Changes {
  const changes: Changes = {}
  for (const field of fields) {
    if (!(field in after)) continue
    const previous = (before as Record<string, unknown>)[field]
    const current = (after as Record<string, unknown>)[field]
    if (JSON.stringify(previous) !== JSON.stringify(current)) changes[field] = { previous, current }
  }
  return changes
}

/** The row fields of issues and merge requests whose changes hooks and emails report (each has those it has). */
export const ISSUABLE_CHANGE_FIELDS = [
  'title', 'description', 'state', 'confidential', 'discussion_locked', 'milestone_id', 'due_date',
  'assignee_id', 'target_branch', 'updated_at',
] as const

/** A list-valued change (labels, assignees) when the list changed; sorted, so order alone is no change. */
export function listChange<T extends string | number>(previous: readonly T[], current: readonly T[]): FieldChange | null {
  const before = [...previous].sort()
  const after = [...current].sort()
  return JSON.stringify(before) === JSON.stringify(after) ? null : { previous: before, current: after }
}
