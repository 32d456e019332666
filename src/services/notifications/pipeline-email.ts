// The email about a finished pipeline, as the original's NotificationService#pipeline_finished and
// Emails::Pipelines: when a pipeline fails (failed_pipeline) or succeeds (success_pipeline), its user
// is told when their effective level lets the event through as a watcher's (participating and watch
// get failures, custom its own choice; successes only custom), and while they can read pipelines.
// One email, recipients in Bcc; subject "<project> | Failed | <ref> | <short sha>". The pipelines-email
// integration (PipelinesEmailService) sends the same email to its recipients: failures always,
// successes unless notify_only_broken_pipelines.
import type { AppContext } from '../../context.js'
import type { CiPipelineRow, NamespaceRow, ProjectRow } from '../../db/schema.js'
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
  const { html_emails_enabled: htmlEmails } = await getApplicationSettings(db)
  const compose = (recipients: string[]) =>
    composePipelineEmail(ctx, pipeline, `${namespace.full_path}/${project.path}`, project.name, kind.word, recipients, htmlEmails)
  const userEmail = await userRecipient(ctx, pipeline, project, namespace, kind.event)
  const integrationRecipients = await integrationRecipientsOf(ctx, pipeline)
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

/** Emails::Pipelines#pipeline_mail: one message to every recipient in Bcc, with an HTML part when html_emails_enabled. */
function composePipelineEmail(
  ctx: Pick<AppContext, 'config'>, pipeline: CiPipelineRow, projectPath: string, projectName: string, word: string, recipients: string[],
  htmlEmails: boolean,
): MailMessage {
  const projectUrl = `${ctx.config.externalUrl}/${projectPath}`
  const shortSha = pipeline.sha.slice(0, 8)
  const title = word.charAt(0).toUpperCase() + word.slice(1)
  const facts: Required<Paragraph>[] = [
    { text: `Project: ${projectName}`, url: projectUrl },
    { text: `${pipeline.tag === 1 ? 'Tag' : 'Branch'}: ${pipeline.ref}`, url: `${projectUrl}/commits/${pipeline.ref}` },
    { text: `Commit: ${shortSha}`, url: `${projectUrl}/commit/${pipeline.sha}` },
    { text: `Pipeline #${pipeline.id}`, url: `${projectUrl}/pipelines/${pipeline.id}` },
  ]
  const lead = `Your pipeline has ${word === 'failed' ? 'failed' : 'passed'}.`
  return {
    to: [],
    bcc: recipients,
    subject: `${projectName} | ${title} | ${pipeline.ref} | ${shortSha}`,
    text: `${[lead, '', ...facts.map((fact) => `${fact.text} ( ${fact.url} )`)].join('\n')}\n`,
    ...(htmlEmails ? { html: htmlOf([{ text: lead }, ...facts]) } : {}),
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
