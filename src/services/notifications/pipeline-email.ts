// The email about a finished pipeline, as the original's NotificationService#pipeline_finished and
// Emails::Pipelines: when a pipeline fails (failed_pipeline) or succeeds (success_pipeline), its user
// is told when their effective level lets the event through as a watcher's (participating and watch
// get failures, custom its own choice; successes only custom), and while they can read pipelines.
// One email, recipients in Bcc; subject "<project> | Failed | <ref> | <short sha>".
import type { AppContext } from '../../context.js'
import type { CiPipelineRow } from '../../db/schema.js'
import type { EmailEvent } from '../../entities/notification-setting.js'
import type { MailMessage } from '../mail/mailer.js'
import { canOnProject } from '../../policies/project-policy.js'
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

/** The email about the pipeline to its user, or null when nobody is to be told. */
export async function pipelineEmail(ctx: AppContext, pipelineId: number): Promise<MailMessage | null> {
  const { db } = ctx
  const pipeline = await db.selectFrom('ci_pipelines').selectAll().where('id', '=', pipelineId).executeTakeFirst()
  const kind = pipeline === undefined ? undefined : EVENTS[pipeline.status]
  if (pipeline === undefined || kind === undefined || pipeline.user_id === null) return null
  const [project, user] = await Promise.all([
    db.selectFrom('projects').selectAll().where('id', '=', pipeline.project_id).executeTakeFirst(),
    db.selectFrom('users').selectAll().where('id', '=', pipeline.user_id).executeTakeFirst(),
  ])
  if (project === undefined || user === undefined || user.state !== 'active' || user.ghost === 1) return null
  const namespace = await db.selectFrom('namespaces').selectAll().where('id', '=', project.namespace_id).executeTakeFirstOrThrow()
  const place = await projectPlace(db, project)
  const [rows, access] = await Promise.all([settingsAt(db, place, [user.id]), accessOf(db, project.id, [user.id])])
  const setting = effectiveSettings(place, rows, [user.id]).get(user.id)!
  if (!suitableLevel(setting, 'watch', kind.event)) return null
  const subject = { project, namespace, access: access.get(user.id) ?? { projectAccess: null, groupAccess: null, level: 0 } }
  if (!canOnProject({ user, token: null, sudoFrom: null }, subject, 'read_pipeline')) return null
  return composePipelineEmail(ctx, pipeline, `${namespace.full_path}/${project.path}`, project.name, kind.word, [notificationEmailOf(user, setting.global)])
}

/** Emails::Pipelines#pipeline_mail: one message to every recipient in Bcc. */
export function composePipelineEmail(
  ctx: Pick<AppContext, 'config'>, pipeline: CiPipelineRow, projectPath: string, projectName: string, word: string, recipients: string[],
): MailMessage {
  const projectUrl = `${ctx.config.externalUrl}/${projectPath}`
  const shortSha = pipeline.sha.slice(0, 8)
  const title = word.charAt(0).toUpperCase() + word.slice(1)
  const lines = [
    `Your pipeline has ${word === 'failed' ? 'failed' : 'passed'}.`,
    '',
    `Project: ${projectName} ( ${projectUrl} )`,
    `${pipeline.tag === 1 ? 'Tag' : 'Branch'}: ${pipeline.ref} ( ${projectUrl}/commits/${pipeline.ref} )`,
    `Commit: ${shortSha} ( ${projectUrl}/commit/${pipeline.sha} )`,
    `Pipeline #${pipeline.id} ( ${projectUrl}/pipelines/${pipeline.id} )`,
  ]
  return {
    to: [],
    bcc: recipients,
    subject: `${projectName} | ${title} | ${pipeline.ref} | ${shortSha}`,
    text: `${lines.join('\n')}\n`,
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
