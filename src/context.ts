// The long-lived parts of a running Ingot, created once per process and handed to routes,
// services and jobs: configuration, database, repository storage and the job queue.
import type { FastifyBaseLogger } from 'fastify'
import type { Config } from './config.js'
import { migrateToLatest, openDatabase, type Db, type Dialect } from './db/index.js'
import { RepositoryStorage } from './git/storage.js'
import { JobQueue } from './jobs/queue.js'
import { defineHousekeeping } from './jobs/housekeeping.js'
import { PushListeners } from './services/push/after-push.js'
import { ActivityListeners } from './services/activity/activity.js'
import { defineStatisticsJob } from './services/projects/refresh-statistics.js'
import { createSmtpMailer, type Mailer } from './services/mail/mailer.js'
import { registerNotificationEmail } from './services/notifications/register-notification-email.js'
import { registerMergeRequestPushListener } from './services/merge-requests/merge-request-push-listener.js'
import { registerWebHooks } from './services/hooks/deliveries.js'
import { registerIntegrations } from './services/integrations/register-integrations.js'
import { registerRepositoryHousekeeping } from './services/projects/housekeeping.js'
import { registerSessions } from './services/sessions/register-sessions.js'

export interface AppContext {
  config: Config
  db: Db
  dialect: Dialect
  repositories: RepositoryStorage
  jobs: JobQueue
  /** The push hook point (services/push/after-push.ts). */
  pushListeners: PushListeners
  /** The hook point for issue, merge request, note, wiki and system changes (services/activity/activity.ts). */
  activity: ActivityListeners
  /** Outgoing email (services/mail/mailer.ts); null when INGOT_SMTP_URL is not set. */
  mailer: Mailer | null
  log: FastifyBaseLogger
  close(): Promise<void>
}

/** Opens the database, brings its schema up to date and sets up storage and jobs. */
export async function openContext(config: Config, log: FastifyBaseLogger): Promise<AppContext> {
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir })
  try {
    const applied = await migrateToLatest(database.db)
    if (applied.length > 0) log.info({ migrations: applied }, 'database migrated')
  } catch (err) {
    await database.close()
    throw err
  }
  const jobs = new JobQueue(database.db, log)
  const ctx: AppContext = {
    config,
    db: database.db,
    dialect: database.dialect,
    repositories: new RepositoryStorage(config.dataDir),
    jobs,
    pushListeners: new PushListeners(),
    activity: new ActivityListeners(),
    mailer: config.smtpUrl === null ? null : createSmtpMailer(config.smtpUrl, config.emailFrom),
    log,
    async close() {
      await jobs.stop()
      await ctx.mailer?.close()
      ctx.repositories.close()
      await database.close()
    },
  }
  defineHousekeeping(ctx)
  defineStatisticsJob(ctx)
  registerMergeRequestPushListener(ctx)
  registerNotificationEmail(ctx)
  registerWebHooks(ctx)
  registerIntegrations(ctx)
  registerRepositoryHousekeeping(ctx)
  registerSessions(ctx)
  return ctx
}
