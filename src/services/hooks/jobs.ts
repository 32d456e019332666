// The job kinds of web hooks and system hooks: one fan-out per event that some hook hears, which
// builds the payload once and enqueues one delivery per hook (deliveries.ts has both steps).
import { MAX_CONCURRENT_REQUESTS } from '../outbound/outbound-http.js'
import { defineJobKind } from '../../jobs/kind.js'
import { deliveriesOf, runDelivery, type Delivery, type FanOut } from './deliveries.js'

export const FAN_OUT_WEB_HOOKS = defineJobKind<FanOut>({
  name: 'web_hooks.fan_out',
  attempts: 3,
  // Reads a push's commits from git (20 at most) and the records the payloads name.
  timeLimitMs: 5 * 60_000,
  concurrency: 4,
  async run(ctx, fanOut) {
    await ctx.jobs.enqueueMany(DELIVER_WEB_HOOK, await deliveriesOf(ctx, fanOut))
  },
})

export const DELIVER_WEB_HOOK = defineJobKind<Delivery>({
  name: 'web_hooks.deliver',
  // The queue waits 10–20 s, 20–40 s, then 40–80 s between them.
  attempts: 4,
  // One request, bounded by the outbound timeout, and a few reads and writes around it.
  timeLimitMs: (config) => config.outboundTimeoutMs + 30_000,
  // Mostly waiting on receivers: as many as outbound-http lets the process have in flight.
  concurrency: MAX_CONCURRENT_REQUESTS,
  run: (ctx, delivery, job) => runDelivery(ctx, delivery, job.signal),
})
