// The job kinds of notification email: one fan-out per event, which works out the recipients and
// enqueues one delivery per email (so a failed send is retried for that recipient alone), and the
// daily look for open issues due that day (register-notification-email.ts has the work).
import { defineJobKind } from '../../jobs/kind.js'
import type { MailMessage } from '../mail/mailer.js'
import { enqueueIssuesDue, sendEventEmails, type NotificationEventPayload } from './register-notification-email.js'
import { pipelineEmails } from './pipeline-email.js'

export const FAN_OUT_NOTIFICATION = defineJobKind<NotificationEventPayload>({
  name: 'notifications.fan_out',
  attempts: 5,
  // Reads the subject, its participants' settings and, for pushes, 20 commits from git.
  timeLimitMs: 5 * 60_000,
  concurrency: 2,
  run: (ctx, event) => sendEventEmails(ctx, event),
})

export const DELIVER_NOTIFICATION = defineJobKind<MailMessage>({
  name: 'notifications.deliver',
  // A mail server down for a while: the last try comes 20 to 40 minutes after the first.
  attempts: 8,
  timeLimitMs: 2 * 60_000,
  concurrency: 4,
  async run(ctx, message) {
    // Configuration may have lost its SMTP server since the email was enqueued.
    await ctx.mailer?.send(message)
  },
})

/** A pipeline failed or succeeded: its user's email and the pipelines-email integration's, each its own delivery. */
export const PIPELINE_EMAIL = defineJobKind<{ pipelineId: number }>({
  name: 'notifications.pipeline_email',
  attempts: 5,
  timeLimitMs: 2 * 60_000,
  concurrency: 2,
  async run(ctx, { pipelineId }) {
    await ctx.jobs.enqueueMany(DELIVER_NOTIFICATION, await pipelineEmails(ctx, pipelineId))
  },
})

export const REMIND_ISSUES_DUE = defineJobKind<null>({
  name: 'notifications.remind_issues_due',
  attempts: 3,
  timeLimitMs: 10 * 60_000,
  concurrency: 1,
  // As the original's daily issue-due mail, shortly after midnight UTC.
  cron: '50 0 * * *',
  run: (ctx) => enqueueIssuesDue(ctx),
})
