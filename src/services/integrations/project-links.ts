// What active integrations change about a project's own links: an external issue tracker (the
// named bug tracker or the custom one) provides the project's issue URLs — `issues_url` with `:id`
// replaced by the issue's iid, `new_issue_url`, and `project_url` for the list — and an external
// wiki is where the project's wiki link points.
import type { AppContext } from '../../context.js'
import { ISSUE_TRACKER_SLUGS } from './catalog.js'
import { activeIntegrations, parseSettings } from './integrations.js'

export interface IssueTrackerLinks {
  /** The tracker's page of the project's issues. */
  projectUrl: string
  newIssueUrl: string
  issueUrl(iid: number): string
}

/** The project's external issue tracker; with both kinds active, the one configured first. */
export async function externalIssueTracker(ctx: Pick<AppContext, 'db' | 'secrets'>, projectId: number): Promise<IssueTrackerLinks | null> {
  const [row] = await activeIntegrations(ctx.db, projectId, ISSUE_TRACKER_SLUGS)
  if (row === undefined) return null
  const settings = parseSettings(ctx.secrets, row)
  const text = (name: string) => (typeof settings[name] === 'string' ? settings[name] : '')
  const issuesUrl = text('issues_url')
  return {
    projectUrl: text('project_url'),
    newIssueUrl: text('new_issue_url'),
    issueUrl: (iid) => issuesUrl.replaceAll(':id', String(iid)),
  }
}

/** The external wiki's URL while the integration is active; null otherwise. */
export async function externalWikiUrl(ctx: Pick<AppContext, 'db' | 'secrets'>, projectId: number): Promise<string | null> {
  const [row] = await activeIntegrations(ctx.db, projectId, ['external-wiki'])
  const url = row === undefined ? undefined : parseSettings(ctx.secrets, row).external_wiki_url
  return typeof url === 'string' && url !== '' ? url : null
}
