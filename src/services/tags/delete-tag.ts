// DELETE /projects/:id/repository/tags/:tag_name (spec: Tags and releases): the push rules may
// refuse (a protected tag for non-Maintainers: 400 with the sentence); the tag's release goes with it.
import type { Actor } from '../../auth/actor.js'
import type { AppContext } from '../../context.js'
import { NULL_OID } from '../../git/repository.js'
import type { ProjectSubject } from '../../policies/project-policy.js'
import type { TagRef } from '../../git/tags.js'
import { TAG_PREFIX } from '../../git/ref-names.js'
import { badRequest } from '../../common/errors.js'
import { moveRef } from '../push/move-refs.js'
import { deleteRelease } from './releases.js'

export async function deleteTag(ctx: AppContext, subject: ProjectSubject, actor: Actor, tag: TagRef): Promise<void> {
  const outcome = await moveRef(ctx, subject, actor, { ref: `${TAG_PREFIX}${tag.name}`, oldId: tag.target, newId: NULL_OID })
  if (outcome.status === 'refused') throw badRequest(outcome.message)
  if (outcome.status === 'stale') throw badRequest('Failed to remove tag')
  await deleteRelease(ctx.db, subject.project.id, tag.name)
}
