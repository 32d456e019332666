// The integrations that act: the listeners that decide, after a push or an activity, which of a
// project's active integrations have work to do and enqueue it (the job kinds are in jobs.ts).
import type { AppContext } from '../../context.js'
import type { CompletedPush } from '../push/after-push.js'
import { TAG_PREFIX } from '../../git/ref-names.js'
import { chatOnActivity, chatOnPush } from './chat-webhook.js'
import { recipientsOf, type PushEmailPayload } from './emails-on-push.js'
import { activeIntegrations, parseSettings } from './integrations.js'
import { SEND_PUSH_EMAIL } from './jobs.js'
import type { IntegrationRow } from '../../db/schema.js'

async function emailsOnPush(ctx: AppContext, row: IntegrationRow, push: CompletedPush): Promise<void> {
  // Without a mail server there is no one to hand an email to: no job.
  if (ctx.mailer === null) return
  const recipients = recipientsOf(parseSettings(ctx.secrets, row).recipients)
  for (const update of push.updates) {
    const wanted = update.ref.startsWith(TAG_PREFIX) ? row.tag_push_events : row.push_events
    if (wanted !== 1) continue
    for (const recipient of recipients) {
      const payload: PushEmailPayload = {
        integrationId: row.id, recipient, projectId: push.project.id, userId: push.actor.user.id,
        ref: update.ref, oldId: update.oldId, newId: update.newId,
      }
      await ctx.jobs.enqueue(SEND_PUSH_EMAIL, payload)
    }
  }
}

export function registerIntegrations(hooks: Pick<AppContext, 'activity' | 'pushListeners'>): void {
  hooks.pushListeners.add(async (push, ctx) => {
    for (const row of await activeIntegrations(ctx.db, push.project.id, ['emails-on-push', 'chat-webhook'])) {
      if (row.kind === 'emails-on-push') await emailsOnPush(ctx, row, push)
      else await chatOnPush(ctx, row, push)
    }
  })
  hooks.activity.add((activity, ctx) => chatOnActivity(ctx, activity))
}
