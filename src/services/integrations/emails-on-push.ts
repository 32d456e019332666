// The emails-on-push integration: one email per pushed branch or tag to each recipient, as the
// original's repository push email — subject `[Git][<full path>][<branch>] <N commits: title>`, the
// commits with their authors and messages, the changed files and, unless disable_diffs, the diff;
// an HTML part when the html_emails_enabled setting is on. It comes from the pusher's name at the
// instance's address, or at the pusher's own address with send_from_committer_email when that
// address is in the instance's domain (the original's rule: no mail that claims another domain).
import type { AppContext } from '../../context.js'
import type { ProjectAndNamespace } from '../../finders/project-lookup.js'
import { findProjectByIdOrPath } from '../../finders/project-lookup.js'
import { compareCommits, type Comparison } from '../../git/compare.js'
import type { DiffEntry } from '../../git/diff.js'
import { NULL_OID, signatureTime, type Commit } from '../../git/repository.js'
import { commitTitle } from '../../entities/commit.js'
import { TAG_PREFIX, shortRefName } from '../../git/ref-names.js'
import { getApplicationSettings } from '../settings.js'
import type { MailMessage } from '../mail/mailer.js'
import { parseSettings } from './integrations.js'

/** One job per recipient, so a failed delivery is retried for that recipient alone. */
export interface PushEmailPayload {
  integrationId: number
  recipient: string
  projectId: number
  userId: number
  ref: string
  oldId: string
  newId: string
}

type PushAction = 'create' | 'delete' | 'push'

/** What one ref update did, as the email tells it. */
interface PushStory {
  action: PushAction
  refType: 'branch' | 'tag'
  refName: string
  /** The commits compared (null for a created or deleted ref, which lists none). */
  comparison: Comparison | null
  /** A force push that only removed commits: they are listed as deleted. */
  reverse: boolean
}

export function recipientsOf(value: unknown): string[] {
  return typeof value === 'string' ? value.split(/\s+/).filter((address) => address !== '') : []
}

async function storyOf(ctx: AppContext, payload: PushEmailPayload): Promise<PushStory | null> {
  const refType = payload.ref.startsWith(TAG_PREFIX) ? 'tag' : 'branch'
  const refName = shortRefName(payload.ref)
  if (payload.oldId === NULL_OID) return { action: 'create', refType, refName, comparison: null, reverse: false }
  if (payload.newId === NULL_OID) return { action: 'delete', refType, refName, comparison: null, reverse: false }
  const repo = ctx.repositories.open(payload.projectId)
  // An email shows diffs as a page does before one expands them: large files' collapsed.
  const forward = await compareCommits(repo, payload.oldId, payload.newId, false, false)
  if (forward.commits.length > 0) return { action: 'push', refType, refName, comparison: forward, reverse: false }
  if (forward.same) return null
  // Nothing new: the push moved the ref back, so the commits it dropped are what happened.
  const backward = await compareCommits(repo, payload.newId, payload.oldId, false, false)
  return { action: 'push', refType, refName, comparison: backward, reverse: true }
}

const ACTION_NAMES: Record<PushAction, string> = { create: 'pushed new', delete: 'deleted', push: 'pushed to' }

function subjectOf(story: PushStory, fullPath: string): string {
  const commits = story.comparison?.commits ?? []
  const ref = story.action === 'push' ? `[${story.refName}]` : ''
  const head = `[Git][${fullPath}]${ref} `
  if (story.action === 'push' && commits.length > 0) {
    const title = commitTitle(commits[0]!.message)
    if (commits.length > 1) return `${head}${story.reverse ? 'Deleted ' : ''}${commits.length} commits: ${title}`
    return `${head}${story.reverse ? 'Deleted 1 commit: ' : ''}${title}`
  }
  const action = ACTION_NAMES[story.action]
  return `${head}${action[0]!.toUpperCase()}${action.slice(1)} ${story.refType} ${story.refName}`
}

function changedFileLine(diff: DiffEntry): string {
  if (diff.deleted_file) return `- − ${diff.old_path}`
  if (diff.renamed_file) return `- ${diff.old_path} → ${diff.new_path}`
  if (diff.new_file) return `- + ${diff.new_path}`
  return `- ${diff.new_path}`
}

/** A file's diff, or why it is left out. */
function diffText(diff: DiffEntry): string {
  if (diff.too_large) return 'The diff of this file is too large to show.'
  if (diff.collapsed) return 'The diff of this file is collapsed: see it on Ingot.'
  return diff.diff
}

function diffHeading(diff: DiffEntry): string {
  if (diff.deleted_file) return `${diff.old_path} deleted`
  if (diff.renamed_file) return `${diff.old_path} → ${diff.new_path}`
  return diff.new_path
}

interface EmailContent {
  story: PushStory
  pusherName: string
  projectName: string
  showDiffs: boolean
  /** The compare or commit page, for a push. */
  targetUrl: string | null
}

function commitLines(commit: Commit): string[] {
  return [`${commit.id.slice(0, 8)} by ${commit.author.name} at ${signatureTime(commit.committer)}`, commit.message.trimEnd(), '']
}

function textOf({ story, pusherName, projectName, showDiffs, targetUrl }: EmailContent): string {
  const lines = [`${pusherName} ${ACTION_NAMES[story.action]} ${story.refType} ${story.refName} at ${projectName}`]
  const comparison = story.comparison
  if (comparison !== null) {
    lines.push('')
    if (story.reverse) {
      lines.push('WARNING: The push did not contain any new commits, but force pushed to delete the commits and changes below.', '')
    }
    lines.push(story.reverse ? 'Deleted commits:' : 'Commits:')
    for (const commit of comparison.commits) lines.push(...commitLines(commit))
    if (comparison.diffs.length > 0) {
      const count = comparison.diffs.length
      lines.push('', `${count} changed file${count === 1 ? '' : 's'}:`, '', ...comparison.diffs.map(changedFileLine))
    }
    if (showDiffs && comparison.diffs.length > 0) {
      lines.push('', 'Changes:')
      if (comparison.overflow) lines.push('', 'The diff was not included because it is too large.')
      else for (const diff of comparison.diffs) lines.push('', '=====================================', diffHeading(diff), '=====================================', diffText(diff))
    }
  }
  if (targetUrl !== null) lines.push('', `View it on Ingot: ${targetUrl}`)
  return `${lines.join('\n')}\n`
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

function htmlOf({ story, pusherName, projectName, showDiffs, targetUrl }: EmailContent): string {
  const parts = [`<p>${escapeHtml(`${pusherName} ${ACTION_NAMES[story.action]} ${story.refType} ${story.refName} at ${projectName}`)}</p>`]
  const comparison = story.comparison
  if (comparison !== null) {
    if (story.reverse) parts.push('<p><strong>WARNING:</strong> The push did not contain any new commits, but force pushed to delete the commits and changes below.</p>')
    parts.push(`<h4>${story.reverse ? 'Deleted commits:' : 'Commits:'}</h4><ul>`)
    for (const commit of comparison.commits) {
      parts.push(`<li><strong>${commit.id.slice(0, 8)}</strong> by ${escapeHtml(commit.author.name)} at ${signatureTime(commit.committer)}<pre>${escapeHtml(commit.message.trimEnd())}</pre></li>`)
    }
    parts.push('</ul>')
    if (comparison.diffs.length > 0) {
      const count = comparison.diffs.length
      parts.push(`<h4>${count} changed file${count === 1 ? '' : 's'}:</h4><ul>`)
      for (const diff of comparison.diffs) parts.push(`<li>${escapeHtml(changedFileLine(diff).slice(2))}</li>`)
      parts.push('</ul>')
    }
    if (showDiffs && comparison.diffs.length > 0) {
      parts.push('<h4>Changes:</h4>')
      if (comparison.overflow) parts.push('<p>The diff was not included because it is too large.</p>')
      else for (const diff of comparison.diffs) parts.push(`<h5>${escapeHtml(diffHeading(diff))}</h5><pre>${escapeHtml(diffText(diff))}</pre>`)
    }
  }
  if (targetUrl !== null) parts.push(`<p><a href="${escapeHtml(targetUrl)}">View it on Ingot</a>.</p>`)
  return `<html><body>${parts.join('\n')}</body></html>`
}

/** The address part of a From such as `Ingot <ingot@example.com>`. */
function addressOf(from: string): string {
  return /<([^>]+)>/.exec(from)?.[1] ?? from.trim()
}

/** `"Display Name" <address>`, the name quoted and stripped of what could break the header. */
function mailbox(name: string, address: string): string {
  const clean = name.replace(/[\r\n]/g, ' ').replace(/["\\]/g, '')
  return `"${clean}" <${address}>`
}

function targetUrlOf(story: PushStory, projectUrl: string, payload: PushEmailPayload): string | null {
  const commits = story.comparison?.commits ?? []
  if (story.action !== 'push' || commits.length === 0) return null
  if (commits.length === 1 && !story.reverse) return `${projectUrl}/commit/${commits[0]!.id}`
  return `${projectUrl}/compare/${payload.oldId}...${payload.newId}`
}

async function buildMessage(ctx: AppContext, payload: PushEmailPayload, found: ProjectAndNamespace): Promise<MailMessage | null> {
  const integration = await ctx.db.selectFrom('integrations').selectAll().where('id', '=', payload.integrationId).executeTakeFirst()
  if (integration === undefined || integration.active !== 1) return null
  const settings = parseSettings(ctx.secrets, integration)
  // A recipient removed from the settings since the push gets nothing.
  if (!recipientsOf(settings.recipients).includes(payload.recipient)) return null
  const pusher = await ctx.db.selectFrom('users').select(['name', 'username', 'email']).where('id', '=', payload.userId).executeTakeFirst()
  if (pusher === undefined) return null
  const story = await storyOf(ctx, payload)
  if (story === null) return null
  const { project, namespace } = found
  const fullPath = `${namespace.full_path}/${project.path}`
  const projectUrl = `${ctx.config.externalUrl}/${fullPath}`
  const content: EmailContent = {
    story,
    pusherName: pusher.name,
    projectName: `${namespace.full_name} / ${project.name}`,
    showDiffs: settings.disable_diffs !== true,
    targetUrl: targetUrlOf(story, projectUrl, payload),
  }
  const instanceHost = new URL(ctx.config.externalUrl).hostname.toLowerCase()
  const ownAddress = settings.send_from_committer_email === true && pusher.email.split('@').pop()?.toLowerCase() === instanceHost
  const fromAddress = ownAddress ? pusher.email : addressOf(ctx.config.emailFrom)
  const html = (await getApplicationSettings(ctx.db)).html_emails_enabled ? htmlOf(content) : undefined
  return {
    to: payload.recipient,
    subject: subjectOf(story, fullPath),
    text: textOf(content),
    ...(html === undefined ? {} : { html }),
    from: mailbox(pusher.name, fromAddress),
    ...(ownAddress ? { replyTo: pusher.email } : {}),
    headers: {
      'X-Ingot-Project': project.name,
      'X-Ingot-Project-Id': String(project.id),
      'X-Ingot-Project-Path': fullPath,
      'X-Ingot-Author': pusher.username,
    },
  }
}

/** The push-email job: builds the email from git and sends it, unless the mail server or project is gone. */
export async function sendPushEmail(ctx: AppContext, payload: PushEmailPayload): Promise<void> {
  const mailer = ctx.mailer
  const found = await findProjectByIdOrPath(ctx.db, String(payload.projectId))
  if (mailer === null || found === null) return
  const message = await buildMessage(ctx, payload, found)
  if (message !== null) await mailer.send(message)
}
