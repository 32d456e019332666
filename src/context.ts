// The long-lived parts of a running Ingot, created once per process and handed to routes,
// services and jobs: configuration, database, repository storage and the job queue. Each request
// and each job sees them through a context of its own (contextFor), whose log lines and enqueued
// jobs carry the id of the request they act for.
import type { FastifyBaseLogger } from 'fastify'
import type { Config } from './config.js'
import { migrateToLatest, openDatabase, type Db, type Dialect } from './db/index.js'
import { RepositoryStorage } from './git/storage.js'
import { openSecretBox, type SecretBox } from './common/secret-box.js'
import { missingSecretKeys, resealSecrets } from './services/secrets/reseal-secrets.js'
import { openJobQueue, type JobQueue } from './jobs/queue.js'
import { ALL_JOB_KINDS } from './jobs/kinds.js'
import { PushListeners } from './services/push/after-push.js'
import { ActivityListeners } from './services/activity/activity.js'
import { createSmtpMailer, type Mailer } from './services/mail/mailer.js'
import { registerNotificationEmail } from './services/notifications/register-notification-email.js'
import { registerMergeRequestPushListener } from './services/merge-requests/merge-request-push-listener.js'
import { registerWebHooks } from './services/hooks/deliveries.js'
import { registerIntegrations } from './services/integrations/register-integrations.js'
import { registerRepositoryHousekeeping } from './services/projects/housekeeping.js'
import { registerPipelinePushListener } from './services/ci/pipeline-push-listener.js'
import { PendingJobsSignal } from './services/ci/pending-jobs-signal.js'
import { ThrottleCounters } from './services/throttles/counters.js'
import { SignInBans } from './services/throttles/sign-in-bans.js'
import type { BlobStorage } from './storage/blob-storage.js'
import { LocalBlobStorage, localBlobRoot } from './storage/local-blob-storage.js'

export interface AppContext {
  config: Config
  db: Db
  dialect: Dialect
  repositories: RepositoryStorage
  /** Files that are not git (storage/blob-storage.ts): CI traces and artifacts. */
  blobs: BlobStorage
  /** Background jobs (jobs/queue.ts): enqueue here; `ingot web` and `ingot worker` work them. */
  jobs: JobQueue
  /** The push hook point (services/push/after-push.ts). */
  pushListeners: PushListeners
  /** The hook point for issue, merge request, note, wiki and system changes (services/activity/activity.ts). */
  activity: ActivityListeners
  /** Outgoing email (services/mail/mailer.ts); null when INGOT_SMTP_URL is not set. */
  mailer: Mailer | null
  /** Seals and opens secrets kept in the database (common/secret-box.ts). */
  secrets: SecretBox
  /** Counters the request throttles count in (services/throttles/counters.ts), and sign-in bans. */
  throttles: { counters: ThrottleCounters; signInBans: SignInBans }
  /** Wakes runners' held job requests when CI jobs become pending in this process (services/ci/pending-jobs-signal.ts). */
  pendingJobs: PendingJobsSignal
  log: FastifyBaseLogger
  /**
   * The request this context acts for: the request itself, or the one whose change enqueued the job
   * (and so on down a chain of jobs); null for the process's own context.
   */
  requestId: string | null
  close(): Promise<void>
}

/** What a request's or a job's context has of its own. */
export interface ContextScope {
  requestId: string | null
  log: FastifyBaseLogger
}

/**
 * The process's context as one request or job sees it: `log` bound to it, and jobs enqueued through
 * it stamped with its request id, so that the jobs a request causes (and the jobs those cause) log
 * under the same id as the request. Everything else is the process's (a prototype, not a copy).
 */
export function contextFor(ctx: AppContext, scope: ContextScope): AppContext {
  // Made per request: Object.create with plain assignments keeps V8's fast path, where property
  // descriptors (Object.create's second argument) took a few per cent of a cached list's CPU.
  const scoped = Object.create(ctx) as { -readonly [K in keyof AppContext]: AppContext[K] }
  scoped.requestId = scope.requestId
  scoped.log = scope.log
  scoped.jobs = ctx.jobs.forRequest(scope.requestId)
  return scoped
}

/**
 * Opens the secret box and the database, brings its schema (and, on PostgreSQL, pg-boss's) up to
 * date, reseals secrets a key rotation left behind, and sets up storage and the job queue; jobs are
 * worked only once `ctx.jobs.start()` is called.
 */
export async function openContext(config: Config, log: FastifyBaseLogger): Promise<AppContext> {
  const secrets = openSecretBox(config)
  const database = await openDatabase({
    databaseUrl: config.databaseUrl, dataDir: config.dataDir,
    onConnectionError: (err) => log.error({ err }, 'a database connection failed; the next query opens another'),
  })
  let jobs: JobQueue
  try {
    const applied = await migrateToLatest(database.db, { secrets })
    if (applied.length > 0) log.info({ migrations: applied }, 'database migrated')
    const resealed = await resealSecrets(database.db, secrets)
    if (resealed > 0) log.info({ resealed }, 'secrets sealed with a previous key resealed with the current one')
    const missingKeys = await missingSecretKeys(database.db, secrets)
    if (missingKeys.length > 0) {
      log.error({ keys: missingKeys }, 'stored secrets are sealed with a key Ingot does not have: deliveries and integrations using them fail (see "Secrets at rest" in docs/operations.md)')
    }
    jobs = await openJobQueue({ config, db: database.db, dialect: database.dialect, log, kinds: ALL_JOB_KINDS, contextOf: (scope) => contextFor(ctx, scope) })
  } catch (err) {
    await database.close()
    throw err
  }
  const counters = new ThrottleCounters(database.db)
  const ctx: AppContext = {
    config,
    db: database.db,
    dialect: database.dialect,
    repositories: new RepositoryStorage(config.dataDir),
    blobs: new LocalBlobStorage(localBlobRoot(config.dataDir)),
    jobs,
    pushListeners: new PushListeners(),
    activity: new ActivityListeners(),
    mailer: config.smtpUrl === null ? null : createSmtpMailer(config.smtpUrl, config.emailFrom),
    secrets,
    throttles: { counters, signInBans: new SignInBans(database.db, counters, config.signInBan) },
    pendingJobs: new PendingJobsSignal(),
    log,
    requestId: null,
    async close() {
      await jobs.close()
      await ctx.mailer?.close()
      ctx.repositories.close()
      await database.close()
    },
  }
  registerMergeRequestPushListener(ctx)
  registerNotificationEmail(ctx)
  registerWebHooks(ctx)
  registerIntegrations(ctx)
  registerRepositoryHousekeeping(ctx)
  registerPipelinePushListener(ctx)
  return ctx
}
