// The job kinds of the integrations that act: one push email per recipient and pushed ref
// (emails-on-push.ts), one chat message per announced event (chat-webhook.ts).
import { defineJobKind } from '../../jobs/kind.js'
import { postChatMessage, type ChatWebhookPayload } from './chat-webhook.js'
import { sendPushEmail, type PushEmailPayload } from './emails-on-push.js'

export const SEND_PUSH_EMAIL = defineJobKind<PushEmailPayload>({
  name: 'integrations.send_push_email',
  attempts: 5,
  // Compares the pushed commits and renders their diff, then sends.
  timeLimitMs: 5 * 60_000,
  concurrency: 2,
  run: (ctx, payload) => sendPushEmail(ctx, payload),
})

export const POST_CHAT_MESSAGE = defineJobKind<ChatWebhookPayload>({
  name: 'integrations.post_chat_message',
  attempts: 3,
  // Lists a push's commits from git, then one request bounded by the outbound timeout.
  timeLimitMs: (config) => config.outboundTimeoutMs + 60_000,
  concurrency: 4,
  run: (ctx, payload, job) => postChatMessage(ctx, payload, job.signal),
})
