// The email one recipient gets about one event, shaped like the original's notification emails:
// subject "<project name> | <title> (#iid)" ("Re: " on every email after the one that starts the
// thread), From the acting user's name at the instance's address, threading headers that keep the
// emails about one issue or merge request together, the project headers mail filters use, a text
// part and (html_emails_enabled) an HTML part, and the author named in the body when
// email_author_in_body is on (for servers that rewrite the sender's name).
import type { MailMessage } from '../mail/mailer.js'
import type { EmailEvent } from '../../entities/notification-setting.js'
import type { NoteRow, UserRow } from '../../db/schema.js'
import type { NotificationReason, NotificationSubject } from './recipients.js'

export interface EmailContext {
  externalUrl: string
  /** INGOT_EMAIL_FROM. */
  emailFrom: string
  htmlEmails: boolean
  authorInBody: boolean
}

/** What happened, beyond the target itself. */
export interface EventDetails {
  event: EmailEvent
  actor: UserRow
  /** Names of the assignees now, and before a reassignment. */
  assigneeNames: readonly string[]
  previousAssigneeNames: readonly string[]
  note?: NoteRow
  /** new_issue, new_merge_request: the description, quoted in the body. */
  description?: string | null
  /** push_to_merge_request: the commits pushed, newest first (at most a page), and how many there were. */
  commits?: readonly { id: string; title: string }[]
  commitCount?: number
}

/** One paragraph of the body; `url` is shown after the text (a link in HTML). */
export interface Paragraph {
  text: string
  url?: string
}

/** The events whose email starts a thread; the others answer it. */
const THREAD_STARTERS: ReadonlySet<EmailEvent> = new Set(['new_issue', 'new_merge_request'])

export function composeNotificationEmail(
  context: EmailContext, subject: NotificationSubject, details: EventDetails, recipient: { email: string; reason: NotificationReason | null },
): MailMessage {
  const { project, namespace, target } = subject
  const host = new URL(context.externalUrl).hostname
  const projectPath = `${namespace.full_path}/${project.path}`
  const projectUrl = `${context.externalUrl}/${projectPath}`
  const thing = target.type === 'Issue'
    ? { title: target.issue.title, reference: `#${target.issue.iid}`, url: `${projectUrl}/issues/${target.issue.iid}`, threadId: `issue_${target.issue.id}`, idHeader: ['X-Service-Issue-ID', target.issue.id] as const }
    : target.type === 'MergeRequest'
      ? { title: target.mergeRequest.title, reference: `!${target.mergeRequest.iid}`, url: `${projectUrl}/merge_requests/${target.mergeRequest.iid}`, threadId: `merge_request_${target.mergeRequest.id}`, idHeader: ['X-Service-MergeRequest-ID', target.mergeRequest.id] as const }
      : { title: target.snippet.title, reference: `$${target.snippet.id}`, url: `${projectUrl}/snippets/${target.snippet.id}`, threadId: `snippet_${target.snippet.id}`, idHeader: ['X-Service-Snippet-ID', target.snippet.id] as const }

  const threadMessageId = `<${thing.threadId}@${host}>`
  const startsThread = THREAD_STARTERS.has(details.event)
  const headers: Record<string, string> = {
    'X-Service-Project': project.name,
    'X-Service-Project-Id': String(project.id),
    'X-Service-Project-Path': projectPath,
    'List-Id': `${projectPath} <${[...projectPath.split('/')].reverse().join('.').toLowerCase()}.${project.id}.${host}>`,
    [thing.idHeader[0]]: String(thing.idHeader[1]),
    'Auto-Submitted': 'auto-generated',
    'X-Auto-Response-Suppress': 'All',
  }
  if (recipient.reason !== null) headers['X-Service-NotificationReason'] = recipient.reason
  if (startsThread) {
    headers['Message-ID'] = threadMessageId
  } else {
    headers['In-Reply-To'] = threadMessageId
    headers.References = threadMessageId
  }

  const paragraphs = bodyOf(context, details, thing, target.type)
  paragraphs.push({ text: footerOf(recipient.reason, host) })
  const subjectLine = `${startsThread ? '' : 'Re: '}${project.name} | ${thing.title} (${thing.reference})`
  return {
    to: recipient.email,
    from: fromOf(context.emailFrom, details.actor.name),
    subject: subjectLine,
    text: paragraphs.map((p) => (p.url === undefined ? p.text : p.text === '' ? p.url : `${p.text} ${p.url}`)).join('\n\n') + '\n',
    ...(context.htmlEmails ? { html: htmlOf(paragraphs) } : {}),
    headers,
  }
}

function bodyOf(
  context: EmailContext, details: EventDetails, thing: { title: string; reference: string; url: string },
  type: 'Issue' | 'MergeRequest' | 'Snippet',
): Paragraph[] {
  const actor = details.actor.name
  const kind = type === 'Issue' ? 'Issue' : type === 'MergeRequest' ? 'Merge Request' : 'Snippet'
  const byline = (verb: string): Paragraph[] => (context.authorInBody ? [{ text: `${actor} ${verb}:` }] : [])
  const assignees = (names: readonly string[]) => (names.length === 0 ? 'Unassigned' : names.join(', '))
  switch (details.event) {
    case 'new_issue':
    case 'new_merge_request': {
      const description = details.description ?? ''
      return [
        ...byline(details.event === 'new_issue' ? 'created an issue' : 'created a merge request'),
        { text: `New ${kind} ${thing.reference} was created.` },
        { text: `${kind} ${thing.reference}:`, url: thing.url },
        ...(details.assigneeNames.length > 0 ? [{ text: `Assignee: ${assignees(details.assigneeNames)}` }] : []),
        ...(description === '' ? [] : [{ text: description }]),
      ]
    }
    case 'close_issue':
    case 'close_merge_request':
      return [{ text: `${kind} ${thing.reference} was closed by ${actor}` }, { text: `${kind} ${thing.reference}:`, url: thing.url }]
    case 'reopen_issue':
    case 'reopen_merge_request':
      return [{ text: `${kind} ${thing.reference} was reopened by ${actor}` }, { text: `${kind} ${thing.reference}:`, url: thing.url }]
    case 'merge_merge_request':
      return [{ text: `Merge Request ${thing.reference} was merged by ${actor}` }, { text: `Merge Request ${thing.reference}:`, url: thing.url }]
    case 'reassign_issue':
    case 'reassign_merge_request':
      return [
        { text: `Reassigned ${kind} ${thing.reference} by ${actor}` },
        { text: `Assignee changed from ${assignees(details.previousAssigneeNames)} to ${assignees(details.assigneeNames)}` },
        { text: `${kind} ${thing.reference}:`, url: thing.url },
      ]
    case 'issue_due':
      return [{ text: `Issue ${thing.reference} is due today.` }, { text: `Issue ${thing.reference}:`, url: thing.url }]
    case 'push_to_merge_request': {
      const commits = details.commits ?? []
      const more = (details.commitCount ?? commits.length) - commits.length
      return [
        { text: `${actor} pushed new commits to merge request ${thing.reference}`, url: thing.url },
        ...commits.map((commit) => ({ text: `* ${commit.id.slice(0, 8)} - ${commit.title}` })),
        ...(more > 0 ? [{ text: `… and ${more} more` }] : []),
      ]
    }
    case 'new_note': {
      const note = details.note
      return [
        ...byline('commented'),
        { text: note?.body ?? '' },
        { text: 'View it on Ingot:', url: note === undefined ? thing.url : `${thing.url}#note_${note.id}` },
      ]
    }
    case 'failed_pipeline':
    case 'success_pipeline':
      return [{ text: thing.title, url: thing.url }]
  }
}

function footerOf(reason: NotificationReason | null, host: string): string {
  const why = reason === 'assigned' ? 'You have been assigned an item. '
    : reason === 'mentioned' ? 'You have been mentioned. ' : ''
  return `—\n${why}You're receiving this email because of your account on ${host}.`
}

/** `"Actor Name" <address of INGOT_EMAIL_FROM>`: the original shows who acted as the sender's name. */
function fromOf(emailFrom: string, name: string): string {
  const address = /<([^>]+)>/.exec(emailFrom)?.[1] ?? emailFrom.trim()
  return `"${name.replace(/["\\\r\n]/g, '')}" <${address}>`
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c)

/** The HTML part of an email of these paragraphs (html_emails_enabled): every value escaped, links as links. */
export function htmlOf(paragraphs: readonly Paragraph[]): string {
  const body = paragraphs.map((p) => {
    const text = escapeHtml(p.text).replace(/\n/g, '<br>\n')
    const link = p.url === undefined ? '' : ` <a href="${escapeHtml(p.url)}">${escapeHtml(p.url)}</a>`
    return `<p>${text}${link}</p>`
  }).join('\n')
  return `<!DOCTYPE html>\n<html><head><meta charset="utf-8"></head><body>\n${body}\n</body></html>\n`
}
