// The chat-webhook integration: a chat message, `{"text": "…"}` as chat webhooks take it, POSTed to
// the configured webhook for each event the integration has on — pushes and tag pushes (branches
// other than the default one left out under notify_only_default_branch), issues and merge requests
// opened, closed, reopened or merged (edits are not announced, as in the original), comments, and
// wiki pages, and pipelines that failed (or passed, without notify_only_broken_pipelines) under
// pipeline_events, as the original's PipelineMessage. Confidential issues and their comments go out only with the confidential flags. The
// listeners decide, render what the records say at that moment (a few indexed reads) and enqueue;
// the job (its kind is in jobs.ts) reads a push's commits from git, then sends.
import type { AppContext } from '../../context.js'
import type { IntegrationRow } from '../../db/schema.js'
import { findProjectByIdOrPath, type ProjectAndNamespace } from '../../finders/project-lookup.js'
import { commitIdsBetween } from '../../git/merge.js'
import { NULL_OID } from '../../git/repository.js'
import { commitTitle } from '../../entities/commit.js'
import type { CompletedPush } from '../push/after-push.js'
import { type RefUpdate } from '../push/check-push.js'
import { BRANCH_PREFIX, TAG_PREFIX, shortRefName } from '../../git/ref-names.js'
import type { Activity, IssueActivity, MergeRequestActivity, NoteActivity, WikiPageActivity } from '../activity/activity.js'
import { OutboundError, postJson } from '../outbound/outbound-http.js'
import { activeIntegrations, parseSettings } from './integrations.js'
import { POST_CHAT_MESSAGE } from './jobs.js'

const SLUG = 'chat-webhook'

/** How many commits a push message lists, newest last. */
const LISTED_COMMITS = 20

interface PushEvent {
  userId: number
  ref: string
  oldId: string
  newId: string
}

type ProjectActivity = IssueActivity | MergeRequestActivity | NoteActivity | WikiPageActivity

export interface ChatWebhookPayload {
  integrationId: number
  projectId: number
  /** A rendered message, or a push whose commits the job lists. */
  message: { text: string } | { push: PushEvent }
}

// ---- deciding -----------------------------------------------------------------------------------

/** Whether the integration announces this ref update. */
function announcesPush(ctx: AppContext, row: IntegrationRow, defaultBranch: string | null, update: RefUpdate): boolean {
  if (update.ref.startsWith(TAG_PREFIX)) return row.tag_push_events === 1
  if (!update.ref.startsWith(BRANCH_PREFIX) || row.push_events !== 1) return false
  return parseSettings(ctx.secrets, row).notify_only_default_branch !== true || shortRefName(update.ref) === defaultBranch
}

async function enqueue(ctx: AppContext, row: IntegrationRow, message: ChatWebhookPayload['message']): Promise<void> {
  const payload: ChatWebhookPayload = { integrationId: row.id, projectId: row.project_id, message }
  await ctx.jobs.enqueue(POST_CHAT_MESSAGE, payload)
}

export async function chatOnPush(ctx: AppContext, row: IntegrationRow, push: CompletedPush): Promise<void> {
  for (const update of push.updates) {
    if (!announcesPush(ctx, row, push.project.default_branch, update)) continue
    await enqueue(ctx, row, { push: { userId: push.actor.user.id, ref: update.ref, oldId: update.oldId, newId: update.newId } })
  }
}

async function issueIsConfidential(ctx: AppContext, issueId: number): Promise<boolean> {
  const issue = await ctx.db.selectFrom('issues').select('confidential').where('id', '=', issueId).executeTakeFirst()
  return issue?.confidential === 1
}

/** Whether the integration announces this activity (the event flag that covers it is on). */
async function announcesActivity(ctx: AppContext, row: IntegrationRow, activity: ProjectActivity): Promise<boolean> {
  switch (activity.kind) {
    case 'issue':
      if (activity.action === 'update') return false
      return (await issueIsConfidential(ctx, activity.issueId)) ? row.confidential_issues_events === 1 : row.issues_events === 1
    case 'merge_request':
      return activity.action !== 'update' && row.merge_requests_events === 1
    case 'note': {
      const note = await ctx.db.selectFrom('notes').select(['system', 'noteable_type', 'noteable_id']).where('id', '=', activity.noteId).executeTakeFirst()
      if (note === undefined || note.system === 1) return false
      const confidential = note.noteable_type === 'Issue' && note.noteable_id !== null && await issueIsConfidential(ctx, note.noteable_id)
      return confidential ? row.confidential_note_events === 1 : row.note_events === 1
    }
    case 'wiki_page':
      return row.wiki_page_events === 1
  }
}

export async function chatOnActivity(ctx: AppContext, activity: Activity): Promise<void> {
  if (activity.kind === 'system') return
  const [row] = await activeIntegrations(ctx.db, activity.projectId, [SLUG])
  if (row === undefined || !await announcesActivity(ctx, row, activity)) return
  const found = await findProjectByIdOrPath(ctx.db, String(activity.projectId))
  const text = found === null ? null : await activityText(ctx, placeOf(ctx, found), activity)
  if (text !== null) await enqueue(ctx, row, { text })
}

/**
 * A pipeline's status moved to `status`: announced when it failed, or passed and the integration
 * does not keep to broken pipelines, for a tag or (under notify_only_default_branch) the default branch.
 */
export async function chatOnPipeline(ctx: AppContext, projectId: number, pipelineId: number, status: string): Promise<void> {
  if (status !== 'failed' && status !== 'success') return
  const [row] = await activeIntegrations(ctx.db, projectId, [SLUG])
  if (row === undefined || row.pipeline_events !== 1) return
  const settings = parseSettings(ctx.secrets, row)
  if (status === 'success' && settings.notify_only_broken_pipelines !== false) return
  const [pipeline, found] = await Promise.all([
    ctx.db.selectFrom('ci_pipelines').select(['id', 'ref', 'tag', 'user_id', 'duration']).where('id', '=', pipelineId).executeTakeFirst(),
    findProjectByIdOrPath(ctx.db, String(projectId)),
  ])
  if (pipeline === undefined || found === null) return
  if (pipeline.tag !== 1 && settings.notify_only_default_branch === true && pipeline.ref !== found.project.default_branch) return
  const user = pipeline.user_id === null ? undefined
    : await ctx.db.selectFrom('users').select(['name', 'username']).where('id', '=', pipeline.user_id).executeTakeFirst()
  const place = placeOf(ctx, found)
  const refLink = link(`${place.projectUrl}/commits/${pipeline.ref}`, pipeline.ref)
  const pipelineLink = link(`${place.projectUrl}/pipelines/${pipeline.id}`, `#${pipeline.id}`)
  const who = user === undefined ? '' : `${user.name} (${user.username})`
  const seconds = pipeline.duration ?? 0
  const text = `${place.projectLink}: Pipeline ${pipelineLink} of ${pipeline.tag === 1 ? 'tag' : 'branch'} ${refLink} by ${who} ` +
    `${status === 'success' ? 'passed' : 'failed'} in ${seconds} ${seconds === 1 ? 'second' : 'seconds'}`
  await enqueue(ctx, row, { text })
}

// ---- rendering ----------------------------------------------------------------------------------

/** A link as chat webhooks render them: `<url|text>`. */
const link = (url: string, text: string) => `<${url}|${text.replace(/[<>|]/g, '')}>`

interface Place {
  projectUrl: string
  projectLink: string
}

async function userName(ctx: AppContext, userId: number): Promise<string> {
  const user = await ctx.db.selectFrom('users').select('name').where('id', '=', userId).executeTakeFirst()
  return user?.name ?? 'Someone'
}

async function pushText(ctx: AppContext, place: Place, projectId: number, event: PushEvent): Promise<string> {
  const who = await userName(ctx, event.userId)
  const isTag = event.ref.startsWith(TAG_PREFIX)
  const refType = isTag ? 'tag' : 'branch'
  const name = shortRefName(event.ref)
  const refLink = link(`${place.projectUrl}/${isTag ? 'tags' : 'commits'}/${name}`, name)
  if (event.newId === NULL_OID) return `${who} removed ${refType} ${name} from ${place.projectLink}`
  if (event.oldId === NULL_OID) return `${who} pushed new ${refType} ${refLink} to ${place.projectLink}`
  const compare = link(`${place.projectUrl}/compare/${event.oldId.slice(0, 8)}...${event.newId.slice(0, 8)}`, 'Compare changes')
  const header = `${who} pushed to ${refType} ${refLink} of ${place.projectLink} (${compare})`
  const repo = ctx.repositories.open(projectId)
  const ids = await commitIdsBetween(repo, [event.oldId], event.newId, { offset: 0, limit: LISTED_COMMITS })
  const commits = (await repo.readCommits(ids)).reverse()
  const lines = commits.map((commit) =>
    `${link(`${place.projectUrl}/commit/${commit.id}`, commit.id.slice(0, 8))}: ${commitTitle(commit.message)} - ${commit.author.name}`)
  return [header, ...lines].join('\n')
}

const PAST: Record<string, string> = { open: 'opened', close: 'closed', reopen: 'reopened', merge: 'merged', update: 'updated' }

async function issueText(ctx: AppContext, place: Place, activity: IssueActivity): Promise<string | null> {
  const issue = await ctx.db.selectFrom('issues').select(['iid', 'title', 'description']).where('id', '=', activity.issueId).executeTakeFirst()
  if (issue === undefined) return null
  const issueLink = link(`${place.projectUrl}/issues/${issue.iid}`, `#${issue.iid} ${issue.title}`)
  const header = `[${place.projectLink}] Issue ${issueLink} ${PAST[activity.action]} by ${await userName(ctx, activity.userId)}`
  // The description goes with a newly opened issue only, as the original attaches it.
  return activity.action === 'open' && issue.description ? `${header}\n${issue.description}` : header
}

async function mergeRequestText(ctx: AppContext, place: Place, activity: MergeRequestActivity): Promise<string | null> {
  const mr = await ctx.db.selectFrom('merge_requests').select(['iid', 'title']).where('id', '=', activity.mergeRequestId).executeTakeFirst()
  if (mr === undefined) return null
  const mrLink = link(`${place.projectUrl}/merge_requests/${mr.iid}`, `!${mr.iid} *${mr.title}*`)
  return `${await userName(ctx, activity.userId)} ${PAST[activity.action]} merge request ${mrLink} in ${place.projectLink}`
}

async function noteText(ctx: AppContext, place: Place, activity: NoteActivity): Promise<string | null> {
  const note = await ctx.db.selectFrom('notes').select(['body', 'noteable_type', 'noteable_id', 'commit_id']).where('id', '=', activity.noteId).executeTakeFirst()
  if (note === undefined) return null
  let target: { url: string; label: string; title: string } | null = null
  if (note.noteable_type === 'Issue' && note.noteable_id !== null) {
    const issue = await ctx.db.selectFrom('issues').select(['iid', 'title']).where('id', '=', note.noteable_id).executeTakeFirst()
    if (issue !== undefined) target = { url: `${place.projectUrl}/issues/${issue.iid}`, label: `issue #${issue.iid}`, title: issue.title }
  } else if (note.noteable_type === 'MergeRequest' && note.noteable_id !== null) {
    const mr = await ctx.db.selectFrom('merge_requests').select(['iid', 'title']).where('id', '=', note.noteable_id).executeTakeFirst()
    if (mr !== undefined) target = { url: `${place.projectUrl}/merge_requests/${mr.iid}`, label: `merge request !${mr.iid}`, title: mr.title }
  } else if (note.noteable_type === 'Commit' && note.commit_id !== null) {
    const commit = await ctx.repositories.open(activity.projectId).readCommit(note.commit_id)
    target = { url: `${place.projectUrl}/commit/${note.commit_id}`, label: `commit ${note.commit_id.slice(0, 8)}`, title: commit === null ? '' : commitTitle(commit.message) }
  } else if (note.noteable_type === 'Snippet' && note.noteable_id !== null) {
    const snippet = await ctx.db.selectFrom('snippets').select(['id', 'title']).where('id', '=', note.noteable_id).executeTakeFirst()
    if (snippet !== undefined) target = { url: `${place.projectUrl}/snippets/${snippet.id}`, label: `snippet $${snippet.id}`, title: snippet.title }
  }
  if (target === null) return null
  const header = `${await userName(ctx, activity.userId)} ${link(`${target.url}#note_${activity.noteId}`, `commented on ${target.label}`)} in ${place.projectLink}: *${target.title}*`
  return `${header}\n${note.body}`
}

async function wikiText(ctx: AppContext, place: Place, activity: WikiPageActivity): Promise<string> {
  const action = activity.action === 'create' ? 'created' : activity.action === 'delete' ? 'deleted' : 'edited'
  const page = link(`${place.projectUrl}/wikis/${activity.slug}`, 'wiki page')
  const header = `${await userName(ctx, activity.userId)} ${action} ${page} in ${place.projectLink}: *${activity.title}*`
  return activity.message.trim() === '' ? header : `${header}\n${activity.message}`
}

function placeOf(ctx: AppContext, found: ProjectAndNamespace): Place {
  const fullPath = `${found.namespace.full_path}/${found.project.path}`
  const projectUrl = `${ctx.config.externalUrl}/${fullPath}`
  return { projectUrl, projectLink: link(projectUrl, fullPath) }
}

function activityText(ctx: AppContext, place: Place, activity: ProjectActivity): Promise<string | null> {
  switch (activity.kind) {
    case 'issue': return issueText(ctx, place, activity)
    case 'merge_request': return mergeRequestText(ctx, place, activity)
    case 'note': return noteText(ctx, place, activity)
    case 'wiki_page': return wikiText(ctx, place, activity)
  }
}

// ---- sending ------------------------------------------------------------------------------------

/** The chat-message job: sends unless the integration is gone or off; throws (to be retried) when the receiver failed. */
export async function postChatMessage(ctx: AppContext, payload: ChatWebhookPayload, signal: AbortSignal): Promise<void> {
  const row = await ctx.db.selectFrom('integrations').selectAll().where('id', '=', payload.integrationId).executeTakeFirst()
  const found = await findProjectByIdOrPath(ctx.db, String(payload.projectId))
  if (row === undefined || row.active !== 1 || found === null) return
  const webhook = parseSettings(ctx.secrets, row).webhook
  if (typeof webhook !== 'string') return
  const { message } = payload
  const text = 'text' in message ? message.text : await pushText(ctx, placeOf(ctx, found), found.project.id, message.push)
  try {
    const response = await postJson(ctx, { url: webhook, body: { text }, signal })
    // A receiver in trouble may recover: retried. One that refuses the message will refuse it again.
    if (response.status >= 500) throw new Error(`the chat webhook answered ${response.status}`)
    if (response.status >= 400) ctx.log.warn({ integration: row.id, status: response.status }, 'the chat webhook refused a message')
  } catch (err) {
    if (err instanceof OutboundError && err.kind === 'blocked') {
      ctx.log.warn({ integration: row.id, reason: err.message }, 'chat webhook not sent')
      return
    }
    throw err
  }
}
