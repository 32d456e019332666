// Hook tests: a sample payload built from the project's real data, as the original's
// TestHooks::ProjectService builds it (the first issue, merge request or note, the latest three
// commits of the default branch, the wiki's first page, the first pipeline or job), delivered at once. When the project has
// nothing to show for the event, the answer says what it needs instead.
import type { AppContext } from '../../context.js'
import type { UserRow, WebHookRow } from '../../db/schema.js'
import { commitIdsPage, historyFrom } from '../../git/log.js'
import { BRANCH_PREFIX } from '../../git/ref-names.js'
import { apiError } from '../../common/errors.js'
import { listWikiPages, readPageContent, wikiTip } from '../../finders/wiki-pages-finder.js'
import { OutboundError } from '../outbound/outbound-http.js'
import { HOOK_EVENT_HEADERS, deliver } from './deliveries.js'
import { jobPayload, pipelinePayload } from './ci-payloads.js'
import {
  issuePayload, mergeRequestPayload, notePayload, pushPayload, wikiPagePayload, type HookPayload, type ProjectRef,
} from './payloads.js'
import type { ProjectHookEvent } from './web-hooks.js'

/** Why a test could not be sent: the original's sentence, answered as 422. */
const nothingToSend = (why: string) => apiError(422, why)

async function pushSample(ctx: AppContext, ref: ProjectRef, user: UserRow): Promise<HookPayload> {
  const repo = ctx.repositories.open(ref.project.id)
  const branch = ref.project.default_branch
  const head = branch === null ? null : await repo.resolveCommit(`${BRANCH_PREFIX}${branch}`)
  if (branch === null || head === null) throw nothingToSend('Ensure the project has at least one commit.')
  const commits = await repo.readCommits(await commitIdsPage(repo, historyFrom(head), 0, 3))
  return pushPayload(ctx, ref, user, {
    kind: 'push', before: commits[commits.length - 1]!.id, after: head, ref: `${BRANCH_PREFIX}${branch}`,
    checkoutSha: head, message: null, commits, totalCommits: commits.length,
  })
}

async function wikiSample(ctx: AppContext, ref: ProjectRef, user: UserRow): Promise<HookPayload> {
  const missing = nothingToSend('Ensure the wiki is enabled and has pages.')
  const tip = ref.project.wiki_enabled === 1 ? await wikiTip(ctx.repositories, ref.project.id) : null
  if (tip === null) throw missing
  const wiki = ctx.repositories.openWiki(ref.project.id)
  const first = (await listWikiPages(wiki, tip))[0]
  if (first === undefined) throw missing
  return wikiPagePayload(ctx, ref, {
    action: 'create', userId: user.id, slug: first.slug, title: first.title, format: first.format,
    content: await readPageContent(wiki, first), message: '',
  })
}

async function samplePayload(ctx: AppContext, ref: ProjectRef, user: UserRow, trigger: ProjectHookEvent): Promise<HookPayload> {
  const { db } = ctx
  const projectId = ref.project.id
  switch (trigger) {
    case 'push_events':
    case 'tag_push_events':
      return pushSample(ctx, ref, user)
    case 'issues_events':
    case 'confidential_issues_events': {
      const issue = await db.selectFrom('issues').select('id').where('project_id', '=', projectId).orderBy('id').limit(1).executeTakeFirst()
      const built = issue === undefined ? null : await issuePayload(ctx, { issueId: issue.id, userId: user.id, changes: {}, action: null })
      if (built === null) throw nothingToSend('Ensure the project has issues.')
      return built.payload
    }
    case 'merge_requests_events': {
      const mr = await db.selectFrom('merge_requests').select('id').where('target_project_id', '=', projectId).orderBy('id').limit(1).executeTakeFirst()
      const payload = mr === undefined ? null : await mergeRequestPayload(ctx, { mergeRequestId: mr.id, userId: user.id, changes: {}, action: null })
      if (payload === null) throw nothingToSend('Ensure the project has merge requests.')
      return payload
    }
    case 'note_events': {
      const note = await db.selectFrom('notes').select('id').where('project_id', '=', projectId).orderBy('id').limit(1).executeTakeFirst()
      const built = note === undefined ? null : await notePayload(ctx, note.id, user.id)
      if (built === null) throw nothingToSend('Ensure the project has notes.')
      return built.payload
    }
    case 'wiki_page_events':
      return wikiSample(ctx, ref, user)
    case 'job_events': {
      const job = await db.selectFrom('ci_builds').select('id').where('project_id', '=', projectId).where('kind', '=', 'ci').orderBy('id').limit(1).executeTakeFirst()
      const payload = job === undefined ? null : await jobPayload(ctx, job.id)
      if (payload === null) throw nothingToSend('Ensure the project has CI jobs.')
      return payload
    }
    case 'pipeline_events': {
      const pipeline = await db.selectFrom('ci_pipelines').select('id').where('project_id', '=', projectId).orderBy('id').limit(1).executeTakeFirst()
      const payload = pipeline === undefined ? null : await pipelinePayload(ctx, pipeline.id)
      if (payload === null) throw nothingToSend('Ensure the project has CI pipelines.')
      return payload
    }
  }
}

/** Sends the sample of `trigger` to the project hook; 422 with the reason (the receiver's status) unless it answered 2xx. */
export async function testProjectHook(ctx: AppContext, hook: WebHookRow, ref: ProjectRef, user: UserRow, trigger: ProjectHookEvent): Promise<void> {
  const payload = await samplePayload(ctx, ref, user, trigger)
  const response = await deliver(ctx, hook, HOOK_EVENT_HEADERS[trigger], payload).catch((err: unknown) => {
    if (err instanceof OutboundError) throw apiError(422, err.message)
    throw err
  })
  // Only the status, in the original's words: the receiver's body would hand whoever may add a hook
  // what any address the hook may reach answers.
  if (response.status < 200 || response.status >= 300) throw apiError(422, `Hook executed successfully but returned HTTP ${response.status}`)
}

/** The sample the original's GET /hooks/:id sends to a system hook (and answers with). */
export const SYSTEM_HOOK_SAMPLE: Readonly<HookPayload> = {
  event_name: 'project_create',
  name: 'Ruby',
  path: 'ruby',
  project_id: 1,
  owner_name: 'Someone',
  owner_email: 'example@gitlabhq.com',
}

/** Sends the sample to a system hook; the answer is the sample whatever the receiver said, as in the original. */
export async function testSystemHook(ctx: AppContext, hook: WebHookRow): Promise<HookPayload> {
  try {
    await deliver(ctx, hook, 'System Hook', SYSTEM_HOOK_SAMPLE)
  } catch (err) {
    if (!(err instanceof OutboundError)) throw err
    ctx.log.warn({ hook: hook.id, reason: err.message }, 'system hook test failed')
  }
  return SYSTEM_HOOK_SAMPLE
}
