// Who may see and change a project snippet, as the original's ProjectSnippetPolicy: the project's
// snippets must be readable (snippets enabled), then a public snippet is seen by every reader of
// the project, an internal one by signed-in users who are not external, a private one by members
// only — its author and admins see it always. So a snippet is never seen more widely than its
// project. Reporters create snippets; their authors and Maintainers edit and delete them; an
// archived project's snippets are read-only.
import type { Actor } from '../../auth/actor.js'
import type { SnippetRow } from '../../db/schema.js'
import { INTERNAL, PUBLIC } from '../../policies/access-levels.js'
import { canOnProject, type ProjectSubject } from '../../policies/project-policy.js'

export function canReadSnippet(actor: Actor | null, subject: ProjectSubject, snippet: SnippetRow): boolean {
  if (!canOnProject(actor, subject, 'read_snippet')) return false
  if (snippet.visibility_level >= PUBLIC) return true
  if (actor === null) return false
  if (actor.user.admin === 1 || snippet.author_id === actor.user.id || subject.access.level > 0) return true
  return snippet.visibility_level >= INTERNAL && actor.user.external === 0
}

/** Whether the caller sees every snippet of the project, whatever its visibility. */
export function readsAllSnippets(actor: Actor | null, subject: ProjectSubject): boolean {
  return actor !== null && (actor.user.admin === 1 || subject.access.level > 0)
}

export function canCreateSnippet(actor: Actor | null, subject: ProjectSubject): boolean {
  return subject.project.archived === 0 && canOnProject(actor, subject, 'create_snippet')
}

/** Edit or delete. */
export function canAdminSnippet(actor: Actor | null, subject: ProjectSubject, snippet: SnippetRow): boolean {
  if (actor === null || subject.project.archived === 1 || !canReadSnippet(actor, subject, snippet)) return false
  return snippet.author_id === actor.user.id || canOnProject(actor, subject, 'admin_snippet')
}
