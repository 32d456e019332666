// An uploaded export archive made into a project (POST /projects/import and the web's import form):
// the stored archive checked (400 "The file is invalid"), the namespace resolved as the original's
// find_namespace! (404 when missing or hidden, 400 "Namespace is not valid" when closed to the
// caller), then the import scheduled, whose field errors answer as the original's first full
// message ("Path has already been taken").
import type { Actor } from '../../auth/actor.js'
import type { AppContext } from '../../context.js'
import type { NamespaceRow, ProjectRow } from '../../db/schema.js'
import { ApiError, apiError, type FieldErrors } from '../../common/errors.js'
import { findVisibleGroup } from '../../finders/groups-finder.js'
import { findNamespace, mayCreateProjectsIn, personalNamespace, type ProjectSettingsInput } from '../projects/create-project.js'
import { checkImportArchive } from './import-archive.js'
import { maxExtractedBytes, scheduleProjectImport } from './import-project.js'

export interface UploadedImport {
  /** The stored archive (importArchiveKey). */
  archiveKey: string
  /** The largest upload taken (maxImportBytes), which bounds the archive's extracted size. */
  maxBytes: number | null
  /** The namespace's id or full path; the caller's own when absent or blank. */
  namespace?: string | undefined
  path: string
  name?: string | undefined
  overwrite: boolean
  /** Read once the archive and the namespace passed, so the errors come in the original's order. */
  settings: () => ProjectSettingsInput
  /** override_params as given, for the tree restorer. */
  overrideParams: Record<string, unknown>
}

async function importNamespace(ctx: AppContext, actor: Actor, idOrPath: string | undefined): Promise<NamespaceRow> {
  if (idOrPath === undefined || idOrPath === '') return personalNamespace(ctx.db, actor.user)
  const namespace = await findNamespace(ctx.db, idOrPath)
  const visible = namespace === undefined ? false
    : namespace.kind === 'user' ? namespace.owner_id === actor.user.id || actor.user.admin === 1
      : await findVisibleGroup(ctx.db, actor, String(namespace.id)) !== null
  if (namespace === undefined || !visible) throw apiError(404, '404 Namespace Not Found')
  if (!await mayCreateProjectsIn(ctx.db, actor, namespace)) throw apiError(400, 'Namespace is not valid')
  return namespace
}

/** The first of the creation's field errors as the original's full message ("Path has already been taken"). */
function firstFullMessage(err: unknown): never {
  if (err instanceof ApiError && err.statusCode === 400 && typeof err.body.message === 'object' && err.body.message !== null) {
    const [field, messages] = Object.entries(err.body.message as FieldErrors)[0] ?? []
    if (field !== undefined && messages !== undefined && messages.length > 0) {
      const message = field === 'limit_reached' ? messages[0]! : `${field.charAt(0).toUpperCase()}${field.slice(1).replaceAll('_', ' ')} ${messages[0]}`
      throw apiError(400, message)
    }
  }
  throw err
}

/** Checks the archive and the namespace, then schedules the import; the caller removes the archive when this throws. */
export async function importUploadedArchive(ctx: AppContext, actor: Actor, upload: UploadedImport): Promise<{ project: ProjectRow; namespace: NamespaceRow }> {
  const archive = await ctx.blobs.get(upload.archiveKey)
  if (archive === null || !await checkImportArchive(archive, maxExtractedBytes(upload.maxBytes))) throw apiError(400, 'The file is invalid')
  const namespace = await importNamespace(ctx, actor, upload.namespace)
  const settings = upload.settings()
  const project = await scheduleProjectImport(ctx, actor, {
    namespace, path: upload.path, name: upload.name, overwrite: upload.overwrite, settings, overrideParams: upload.overrideParams, archiveKey: upload.archiveKey,
  }).catch(firstFullMessage)
  return { project, namespace }
}
