// The email about a finished pipeline, as the original's NotificationService#pipeline_finished and
// Emails::Pipelines: when a pipeline fails (failed_pipeline) or succeeds (success_pipeline), its user
// is told when their effective level lets the event through as a watcher's (participating and watch
// get failures, custom its own choice; successes only custom), and while they can read pipelines.
// One email, recipients in Bcc; subject "<project> | Failed | <ref> | <short sha>"; the body as the
// original's pipeline_success_email / pipeline_failed_email (the commit, who triggered the pipeline,
// and for a failure each failed job with the last lines of its trace). The pipelines-email
// integration (PipelinesEmailService) sends the same email to its recipients: failures always,
// successes unless notify_only_broken_pipelines.
import readline from 'node:readline'
import type { AppContext } from '../../context.js'
import type { CiBuildRow, CiPipelineRow, NamespaceRow, ProjectRow, UserRow } from '../../db/schema.js'
import type { Commit } from '../../git/repository.js'
import { openTrace } from '../ci/trace.js'
import type { EmailEvent } from '../../entities/notification-setting.js'
import type { MailMessage } from '../mail/mailer.js'
import { canOnProject } from '../../policies/project-policy.js'
import { activeIntegrations, parseSettings } from '../integrations/integrations.js'
import { getApplicationSettings } from '../settings.js'
import { htmlOf, type Paragraph } from './notification-email.js'
import { accessOf, suitableLevel } from './recipients.js'
import { effectiveSettings, notificationEmailOf, projectPlace, settingsAt } from './settings.js'

const EVENTS: Partial<Record<CiPipelineRow['status'], { event: EmailEvent; word: string }>> = {
  failed: { event: 'failed_pipeline', word: 'failed' },
  success: { event: 'success_pipeline', word: 'succeeded' },
}

/** Whether a pipeline that moved to `status` may be emailed about. */
export function isEmailedPipelineStatus(status: CiPipelineRow['status']): boolean {
  return EVENTS[status] !== undefined
}

/** The emails about a finished pipeline: to its user, and to the pipelines-email integration's recipients. */
export async function pipelineEmails(ctx: AppContext, pipelineId: number): Promise<MailMessage[]> {
  const { db } = ctx
  const pipeline = await db.selectFrom('ci_pipelines').selectAll().where('id', '=', pipelineId).executeTakeFirst()
  const kind = pipeline === undefined ? undefined : EVENTS[pipeline.status]
  if (pipeline === undefined || kind === undefined) return []
  const project = await db.selectFrom('projects').selectAll().where('id', '=', pipeline.project_id).executeTakeFirst()
  if (project === undefined) return []
  const namespace = await db.selectFrom('namespaces').selectAll().where('id', '=', project.namespace_id).executeTakeFirstOrThrow()
  const userEmail = await userRecipient(ctx, pipeline, project, namespace, kind.event)
  const integrationRecipients = await integrationRecipientsOf(ctx, pipeline)
  if (userEmail === null && integrationRecipients.length === 0) return []
  const { html_emails_enabled: htmlEmails } = await getApplicationSettings(db)
  const facts = await pipelineFacts(ctx, pipeline)
  const compose = (recipients: string[]) =>
    composePipelineEmail(ctx, pipeline, facts, `${namespace.full_path}/${project.path}`, project.name, kind.word, recipients, htmlEmails)
  return [
    ...userEmail === null ? [] : [compose([userEmail])],
    ...integrationRecipients.length === 0 ? [] : [compose(integrationRecipients)],
  ]
}

/** PipelinesEmailService: its recipients (split at commas, spaces and line ends) when it hears this pipeline. */
async function integrationRecipientsOf(ctx: AppContext, pipeline: CiPipelineRow): Promise<string[]> {
  const [integration] = await activeIntegrations(ctx.db, pipeline.project_id, ['pipelines-email'])
  if (integration === undefined || integration.pipeline_events !== 1) return []
  const settings = parseSettings(ctx.secrets, integration)
  if (pipeline.status === 'success' && settings.notify_only_broken_pipelines !== false) return []
  return typeof settings.recipients === 'string' ? settings.recipients.split(/[,\r\n ]+/).filter((address) => address !== '') : []
}

/** The pipeline's user's notification email, when their level and access let the event through. */
async function userRecipient(
  ctx: AppContext, pipeline: CiPipelineRow, project: ProjectRow, namespace: NamespaceRow, event: EmailEvent,
): Promise<string | null> {
  const { db } = ctx
  if (pipeline.user_id === null) return null
  const user = await db.selectFrom('users').selectAll().where('id', '=', pipeline.user_id).executeTakeFirst()
  if (user === undefined || user.state !== 'active' || user.ghost === 1) return null
  const place = await projectPlace(db, project)
  const [rows, access] = await Promise.all([settingsAt(db, place, [user.id]), accessOf(db, project.id, [user.id])])
  const setting = effectiveSettings(place, rows, [user.id]).get(user.id)!
  if (!suitableLevel(setting, 'watch', event)) return null
  const subject = { project, namespace, access: access.get(user.id) ?? { projectAccess: null, groupAccess: null, level: 0 } }
  if (!canOnProject({ user, token: null, sudoFrom: null }, subject, 'read_pipeline')) return null
  return notificationEmailOf(user, setting.global)
}

/** What the body tells besides the pipeline itself. */
interface PipelineFacts {
  commit: Commit | null
  /** The commit's author when an Ingot user has that email. */
  commitAuthor: UserRow | null
  /** Who triggered the pipeline; null for the API's (a trigger's or a schedule's owner is a user). */
  user: UserRow | null
  /** The jobs that count (retried ones do not), in stage order. */
  jobs: CiBuildRow[]
  /** The last lines of each failed job's trace, by job id. */
  traceTails: Map<number, string[]>
}

const TRACE_TAIL_LINES = 10
const COMMIT_MESSAGE_LENGTH = 50

async function pipelineFacts(ctx: AppContext, pipeline: CiPipelineRow): Promise<PipelineFacts> {
  const { db } = ctx
  const [commit, user, jobs] = await Promise.all([
    ctx.repositories.open(pipeline.project_id).readCommit(pipeline.sha).catch(() => null),
    pipeline.user_id === null ? undefined : db.selectFrom('users').selectAll().where('id', '=', pipeline.user_id).executeTakeFirst(),
    db.selectFrom('ci_builds').selectAll().where('pipeline_id', '=', pipeline.id).where('kind', '=', 'ci').where('retried', '=', 0)
      .orderBy('stage_idx').orderBy('id').execute(),
  ])
  const commitAuthor = commit === null ? undefined
    : await db.selectFrom('users').selectAll().where('email_lower', '=', commit.author.email.toLowerCase()).where('ghost', '=', 0).executeTakeFirst()
  const failed = jobs.filter((job) => job.status === 'failed')
  const tails = await Promise.all(failed.map(async (job) => [job.id, await traceTail(ctx, job.id)] as const))
  return { commit, commitAuthor: commitAuthor ?? null, user: user ?? null, jobs, traceTails: new Map(tails) }
}

/** The last lines of a job's trace without its terminal escapes, read as a stream (a trace may be large). */
async function traceTail(ctx: AppContext, jobId: number): Promise<string[]> {
  const tail: string[] = []
  for await (const line of readline.createInterface({ input: await openTrace(ctx, jobId), crlfDelay: Infinity })) {
    // eslint-disable-next-line no-control-regex
    const plain = line.replace(/section_(start|end):\d+:[\w.-]+\r?/g, '').replace(/\x1b\[[0-9;]*[A-Za-z]/g, '').replace(/\r/g, '')
    tail.push(plain)
    if (tail.length > TRACE_TAIL_LINES) tail.shift()
  }
  return tail
}

/** Emails::Pipelines#pipeline_mail: one message to every recipient in Bcc, with an HTML part when html_emails_enabled. */
function composePipelineEmail(
  ctx: Pick<AppContext, 'config'>, pipeline: CiPipelineRow, facts: PipelineFacts, projectPath: string, projectName: string, word: string,
  recipients: string[], htmlEmails: boolean,
): MailMessage {
  const base = ctx.config.externalUrl
  const projectUrl = `${base}/${projectPath}`
  const shortSha = pipeline.sha.slice(0, 8)
  const title = word.charAt(0).toUpperCase() + word.slice(1)
  const message = facts.commit === null ? '' : facts.commit.message.split('\n')[0]!
  const author = facts.commitAuthor
  const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`
  const failedJobs = facts.jobs.filter((job) => job.status === 'failed')
  const stages = new Set(facts.jobs.map((job) => job.stage_idx)).size
  const paragraphs: Paragraph[] = [
    { text: `Your pipeline has ${word === 'failed' ? 'failed' : 'passed'}.` },
    { text: `Project: ${projectName}`, url: projectUrl },
    { text: `${pipeline.tag === 1 ? 'Tag' : 'Branch'}: ${pipeline.ref}`, url: `${projectUrl}/commits/${pipeline.ref}` },
    { text: `Commit: ${shortSha}`, url: `${projectUrl}/commit/${pipeline.sha}` },
    { text: `Commit Message: ${message.length > COMMIT_MESSAGE_LENGTH ? `${message.slice(0, COMMIT_MESSAGE_LENGTH - 3)}...` : message}` },
    author === null
      ? { text: `Commit Author: ${facts.commit?.author.name ?? ''}` }
      : { text: `Commit Author: ${author.name}`, url: `${base}/${author.username}` },
    { text: `Pipeline #${pipeline.id}`, url: `${projectUrl}/pipelines/${pipeline.id}` },
    facts.user === null ? { text: 'triggered by API' } : { text: `triggered by ${facts.user.name}`, url: `${base}/${facts.user.username}` },
    word === 'failed'
      ? { text: `had ${plural(failedJobs.length, 'failed job')}.` }
      : { text: `successfully completed ${plural(facts.jobs.length, 'job')} in ${plural(stages, 'stage')}.` },
    ...failedJobs.flatMap((job): Paragraph[] => {
      const tail = facts.traceTails.get(job.id) ?? []
      return [
        { text: `Job #${job.id}`, url: `${projectUrl}/-/jobs/${job.id}` },
        { text: `Stage: ${job.stage}\nName: ${job.name}${tail.length === 0 ? '' : `\nTrace: ${tail.join('\n')}`}` },
      ]
    }),
  ]
  return {
    to: [],
    bcc: recipients,
    subject: `${projectName} | ${title} | ${pipeline.ref} | ${shortSha}`,
    text: `${paragraphs.map((p) => (p.url === undefined ? p.text : `${p.text} ( ${p.url} )`)).join('\n\n')}\n`,
    ...(htmlEmails ? { html: htmlOf(paragraphs) } : {}),
    headers: {
      'X-Service-Project': projectName,
      'X-Service-Project-Path': projectPath,
      'X-GitLab-Pipeline-Id': String(pipeline.id),
      'X-GitLab-Pipeline-Ref': pipeline.ref,
      'X-GitLab-Pipeline-Status': pipeline.status,
      'Auto-Submitted': 'auto-generated',
      'X-Auto-Response-Suppress': 'All',
    },
  }
}
