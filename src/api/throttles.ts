// The request throttles of the application settings, as the original's Rack::Attack throttles of
// 11.5 (config/initializers/rack_attack_global.rb): a request without a user counts against its
// address (throttle_unauthenticated_*), a request with one against the user, in /api/
// (throttle_authenticated_api_*) or anywhere else (throttle_authenticated_web_*). The user is a
// token's or a verified session's, whatever the route; git's Basic credentials are no user here,
// as there, so git over HTTP counts against the address. Over the limit: 429, `Retry-After` the
// period, the body `Retry later` in plain text, as Rack::Attack answers. Counts are kept by
// @fastify/rate-limit in the database (services/throttles/counters.ts), so every process on it
// counts together; settings are read on every request (cached), so a change applies at once.
// Addresses banned for failed sign-ins (services/throttles/sign-in-bans.ts) get 403 `Forbidden`
// to every request, as the original's blocklist answers them.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import rateLimit from '@fastify/rate-limit'
import type { AppContext } from '../context.js'
import { requestUserId } from '../auth/authenticate.js'
import { cachedApplicationSettings, getApplicationSettings, type ApplicationSettings } from '../services/settings.js'
import type { ThrottleCounters } from '../services/throttles/counters.js'

type ThrottleName = 'unauthenticated' | 'authenticated_api' | 'authenticated_web'

interface Counted {
  key: string
  max: number
  periodSeconds: number
}

/** @fastify/rate-limit's store over the database's counters. */
function storeOver(counters: ThrottleCounters) {
  return class CounterStore {
    incr(key: string, done: (error: Error | null, result?: { current: number; ttl: number }) => void, timeWindow: number): void {
      counters.increment(key, timeWindow).then((result) => done(null, result), (err: Error) => done(err))
    }

    child(): CounterStore {
      return new CounterStore()
    }
  }
}

function enabled(settings: ApplicationSettings, throttle: ThrottleName): boolean {
  return settings[`throttle_${throttle}_enabled`]
}

function anyEnabled(settings: ApplicationSettings): boolean {
  return enabled(settings, 'unauthenticated') || enabled(settings, 'authenticated_api') || enabled(settings, 'authenticated_web')
}

const isApiRequest = (req: FastifyRequest) => req.url.startsWith('/api')

export async function registerThrottles(app: FastifyInstance, ctx: AppContext): Promise<void> {
  await app.register(rateLimit, { global: false, store: storeOver(ctx.throttles.counters) })
  const counted = new WeakMap<FastifyRequest, Counted>()
  const limit = app.createRateLimit({
    keyGenerator: (req) => counted.get(req)!.key,
    max: (req) => counted.get(req)!.max,
    timeWindow: (req) => counted.get(req)!.periodSeconds * 1000,
  })

  /** Answers the request when it is banned or over its throttle's limit; true when it did. */
  const refused = async (req: FastifyRequest, reply: FastifyReply): Promise<boolean> => {
    if (await ctx.throttles.signInBans.addressBanned(req.ip)) {
      void reply.code(403).type('text/plain').send('Forbidden\n')
      return true
    }
    const settings = await getApplicationSettings(ctx.db)
    if (!anyEnabled(settings)) return false
    const userId = await requestUserId(ctx.db, req, reply)
    const throttle: ThrottleName = userId === null ? 'unauthenticated' : isApiRequest(req) ? 'authenticated_api' : 'authenticated_web'
    if (!enabled(settings, throttle)) return false
    const periodSeconds = settings[`throttle_${throttle}_period_in_seconds`]
    counted.set(req, {
      key: `throttle_${throttle}:${userId ?? req.ip}`,
      max: settings[`throttle_${throttle}_requests_per_period`],
      periodSeconds,
    })
    const result = await limit(req)
    if (result.isAllowed || !result.isExceeded) return false
    void reply.code(429).header('retry-after', String(periodSeconds)).type('text/plain').send('Retry later\n')
    return true
  }

  app.addHook('onRequest', (req, reply, done) => {
    // The common case, told from what is cached without waiting: not banned, every throttle off
    // (the default). It costs two map lookups; anything else takes the asynchronous path.
    const settings = cachedApplicationSettings(ctx.db)
    if (settings !== undefined && !anyEnabled(settings) && ctx.throttles.signInBans.addressBannedNow(req.ip) === false) {
      done()
      return
    }
    // (A hook that answers the request does not call done.)
    refused(req, reply).then((answered) => { if (!answered) done() }, done)
  })
}
