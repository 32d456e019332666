// Badges of projects and groups (the original's Badges::CreateService, UpdateService, and the Badge
// model's validations and placeholders). Both URLs must be http or https URLs, as the original's
// UrlValidator (local addresses allowed: a browser fetches the image, never Ingot). A project shows
// its own badges and its groups'; a URL's placeholders are filled in with the project it is shown on.
import type { Db } from '../../db/index.js'
import type { BadgeRow } from '../../db/schema.js'
import { validationFailed } from '../../common/errors.js'
import { collectErrors } from '../validation.js'

/** Whose badge: a project's (ProjectBadge), or a group's (GroupBadge). */
export type BadgeOwner = { type: 'project'; id: number } | { type: 'group'; id: number }

export interface BadgeInput {
  link_url?: string | undefined
  image_url?: string | undefined
}

const ALLOWED_PROTOCOLS = ['http:', 'https:']

/** The original's UrlValidator with its defaults: problems of one URL, in its words. */
function urlProblems(value: string): string[] {
  if (value.trim() === '') return ['must be a valid URL']
  let url: URL
  try {
    url = new URL(value.trim())
  } catch {
    return ['is blocked: URI is invalid']
  }
  if (!ALLOWED_PROTOCOLS.includes(url.protocol)) return ['is blocked: Only allowed protocols are http, https']
  return []
}

function checkUrls(urls: { link_url: string; image_url: string }): void {
  const errors = collectErrors({ link_url: urlProblems(urls.link_url), image_url: urlProblems(urls.image_url) })
  if (errors !== null) throw validationFailed(errors)
}

/** A badge's URLs as given, or 400 with the problems of each. */
export function buildBadge(input: Required<BadgeInput>): { link_url: string; image_url: string } {
  const urls = { link_url: input.link_url.trim(), image_url: input.image_url.trim() }
  checkUrls(urls)
  return urls
}

export async function createBadge(db: Db, owner: BadgeOwner, input: Required<BadgeInput>): Promise<BadgeRow> {
  const urls = buildBadge(input)
  const now = Date.now()
  return db.insertInto('badges').values({
    ...urls,
    project_id: owner.type === 'project' ? owner.id : null,
    group_id: owner.type === 'group' ? owner.id : null,
    created_at: now,
    updated_at: now,
  }).returningAll().executeTakeFirstOrThrow()
}

export async function updateBadge(db: Db, badge: BadgeRow, input: BadgeInput): Promise<BadgeRow> {
  const urls = buildBadge({ link_url: input.link_url ?? badge.link_url, image_url: input.image_url ?? badge.image_url })
  return db.updateTable('badges').set({ ...urls, updated_at: Date.now() }).where('id', '=', badge.id).returningAll().executeTakeFirstOrThrow()
}

export async function deleteBadge(db: Db, badge: BadgeRow): Promise<void> {
  await db.deleteFrom('badges').where('id', '=', badge.id).execute()
}

/** What a project's placeholders stand for; the commit is looked up only when a URL names it. */
export interface BadgeProject {
  fullPath: string
  id: number
  defaultBranch: string | null
  commitSha: () => Promise<string | null>
}

const PLACEHOLDER = /%\{(project_path|project_id|default_branch|commit_sha)\}/g

/**
 * A URL with its placeholders filled in for the project it is shown on (`%{project_path}`,
 * `%{project_id}`, `%{default_branch}`, `%{commit_sha}`; one without a value becomes empty), or
 * the URL as it is without a project (a group's own list), as the original's build_rendered_url.
 */
export async function renderBadgeUrl(url: string, project: BadgeProject | null): Promise<string> {
  if (project === null) return url
  const sha = url.includes('%{commit_sha}') ? await project.commitSha() : null
  const values: Record<string, string | null> = {
    project_path: project.fullPath,
    project_id: String(project.id),
    default_branch: project.defaultBranch,
    commit_sha: sha,
  }
  return url.replace(PLACEHOLDER, (_match, name: string) => values[name] ?? '')
}
