// POST /projects/:id/repository/tags (spec: Tags and releases): a lightweight tag, or with
// `message` an annotated one whose tagger is the caller, at a branch, tag or commit; with
// `release_description` its release too (replacing one a deleted tag of that name left behind).
// Failures carry the original's sentences, answered 405 as the spec says.
import type { Actor } from '../../auth/actor.js'
import type { AppContext } from '../../context.js'
import { NULL_OID } from '../../git/repository.js'
import { writeTagObject } from '../../git/tags.js'
import type { ProjectSubject } from '../../policies/project-policy.js'
import { TAG_PREFIX } from '../../git/ref-names.js'
import { apiError } from '../../common/errors.js'
import { isCreatableRefName, moveRef } from '../push/move-refs.js'
import { gitIdentityOf } from '../commits/identity.js'
import { saveRelease } from './releases.js'

export interface NewTag {
  name: string
  ref: string
  /** Makes the tag annotated, stripped of surrounding white space; a blank one makes it lightweight, as the original. */
  message?: string
  releaseDescription?: string
}

/** The spec answers every refusal of a new tag with 405 and the original's sentence. */
const refused = (message: string) => apiError(405, message)

export async function createTag(ctx: AppContext, subject: ProjectSubject, actor: Actor, input: NewTag): Promise<void> {
  if (!isCreatableRefName(input.name)) throw refused('Tag name invalid')
  const repo = ctx.repositories.open(subject.project.id)
  const commitId = await repo.resolveCommit(input.ref)
  if (commitId === null) throw refused(`Target ${input.ref} is invalid`)
  const alreadyExists = () => refused(`Tag ${input.name} already exists`)
  if (await repo.info(`${TAG_PREFIX}${input.name}`) !== null) throw alreadyExists()
  const message = input.message?.trim() ?? ''
  const target = message === '' ? commitId : await writeTagObject(repo, { commitId, name: input.name, message, tagger: gitIdentityOf(actor.user) })
  const outcome = await moveRef(ctx, subject, actor, { ref: `${TAG_PREFIX}${input.name}`, oldId: NULL_OID, newId: target })
  if (outcome.status === 'refused') throw refused(outcome.message)
  if (outcome.status === 'stale') throw alreadyExists()
  if (input.releaseDescription !== undefined && input.releaseDescription.trim() !== '') {
    await saveRelease(ctx.db, { projectId: subject.project.id, tag: input.name, description: input.releaseDescription, authorId: actor.user.id })
  }
}
