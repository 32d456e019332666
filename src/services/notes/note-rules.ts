// Who may write notes, as the original's note and issuable policies decide, once the caller has been
// found to read the noteable (404 otherwise):
// - an archived project takes no notes, edits or resolutions (its notes are read-only);
// - a locked discussion takes notes only from members of the project (any level) and admins;
// - a note is edited and deleted by its author or a Maintainer; system notes by no one;
// - a resolvable note is resolved by its author, the noteable's author or a Developer.
import type { Actor } from '../../auth/actor.js'
import type { NoteRow } from '../../db/schema.js'
import { DEVELOPER } from '../../policies/access-levels.js'
import { canOnProject, type ProjectSubject } from '../../policies/project-policy.js'
import type { Noteable } from './noteable.js'

function isAdmin(actor: Actor): boolean {
  return actor.user.admin === 1
}

/** Signed in, the project not archived, and the discussion not locked to this caller. */
function mayTakePart(actor: Actor | null, subject: ProjectSubject, noteable: Noteable): actor is Actor {
  if (actor === null || subject.project.archived === 1) return false
  return !noteable.discussionLocked || isAdmin(actor) || subject.access.level > 0
}

export function canCreateNote(actor: Actor | null, subject: ProjectSubject, noteable: Noteable): boolean {
  return mayTakePart(actor, subject, noteable) && canOnProject(actor, subject, 'create_note')
}

/** Edit or delete. */
export function canAdminNote(actor: Actor | null, subject: ProjectSubject, noteable: Noteable, note: NoteRow): boolean {
  if (!mayTakePart(actor, subject, noteable) || note.system === 1) return false
  return note.author_id === actor.user.id || canOnProject(actor, subject, 'admin_note')
}

/** Resolve or unresolve a whole discussion: the noteable's author or a Developer. */
export function canResolveDiscussion(actor: Actor | null, subject: ProjectSubject, noteable: Noteable): boolean {
  if (!mayTakePart(actor, subject, noteable)) return false
  return isAdmin(actor) || noteable.authorId === actor.user.id || subject.access.level >= DEVELOPER
}

/** Resolve or unresolve one note: also its author. */
export function canResolveNote(actor: Actor | null, subject: ProjectSubject, noteable: Noteable, note: NoteRow): boolean {
  if (!mayTakePart(actor, subject, noteable)) return false
  return note.author_id === actor.user.id || canResolveDiscussion(actor, subject, noteable)
}
