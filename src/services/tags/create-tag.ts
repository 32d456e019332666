// POST /projects/:id/repository/tags (spec: Tags and releases): a lightweight tag, or with
// `message` an annotated one whose tagger is the caller, at a branch, tag or commit; with
// `release_description` its release too (replacing one a deleted tag of that name left behind).
// Failures carry the original's sentences (the route answers them 405, as the spec says).
import type { Actor } from '../../auth/actor.js'
import type { AppContext } from '../../context.js'
import { NULL_OID } from '../../git/repository.js'
import { writeTagObject } from '../../git/tags.js'
import type { ProjectSubject } from '../../policies/project-policy.js'
import { TAG_PREFIX } from '../../git/ref-names.js'
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

export type CreateTagResult = { ok: true } | { ok: false; message: string }

export async function createTag(ctx: AppContext, subject: ProjectSubject, actor: Actor, input: NewTag): Promise<CreateTagResult> {
  if (!isCreatableRefName(input.name)) return { ok: false, message: 'Tag name invalid' }
  const repo = ctx.repositories.open(subject.project.id)
  const commitId = await repo.resolveCommit(input.ref)
  if (commitId === null) return { ok: false, message: `Target ${input.ref} is invalid` }
  const alreadyExists = `Tag ${input.name} already exists`
  if (await repo.info(`${TAG_PREFIX}${input.name}`) !== null) return { ok: false, message: alreadyExists }
  const message = input.message?.trim() ?? ''
  const target = message === '' ? commitId : await writeTagObject(repo, { commitId, name: input.name, message, tagger: gitIdentityOf(actor.user) })
  const outcome = await moveRef(ctx, subject, actor, { ref: `${TAG_PREFIX}${input.name}`, oldId: NULL_OID, newId: target })
  if (outcome.status === 'refused') return { ok: false, message: outcome.message }
  if (outcome.status === 'stale') return { ok: false, message: alreadyExists }
  if (input.releaseDescription !== undefined && input.releaseDescription.trim() !== '') {
    await saveRelease(ctx.db, { projectId: subject.project.id, tag: input.name, description: input.releaseDescription, authorId: actor.user.id })
  }
  return { ok: true }
}
