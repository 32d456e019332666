// Wiki attachments (spec: Wikis, `POST /projects/:id/wikis/attachments`): the uploaded file
// committed as `uploads/<32 random hex digits>/<file name>` on a branch of the wiki repository
// (default `master`) by the acting user, `Upload attachment <file name>`, as the original's
// Wikis::CreateAttachmentService does; name and size rules are those of project uploads.
import { randomBytes } from 'node:crypto'
import type { Actor } from '../../auth/actor.js'
import type { AppContext } from '../../context.js'
import type { ProjectSubject } from '../../policies/project-policy.js'
import type { UploadedFile } from '../../common/uploaded-file.js'
import { WIKI_BRANCH } from '../../finders/wiki-pages-finder.js'
import { apiError, badRequest, validationFailed } from '../../common/errors.js'
import { cleanFilePath } from '../commits/commit-changes.js'
import { isCreatableRefName } from '../push/move-refs.js'
import { MAX_UPLOAD_NAME_BYTES, maxAttachmentBytes, sanitizedUploadName } from '../uploads/attachments.js'
import { commitToWiki } from './wiki-commits.js'

export interface WikiAttachment {
  fileName: string
  filePath: string
  branch: string
}

const UPLOADS_DIR = 'uploads'

export async function createWikiAttachment(
  ctx: AppContext, subject: ProjectSubject, actor: Actor, input: { file: UploadedFile; branch?: string },
): Promise<WikiAttachment> {
  if (input.file.data.length > await maxAttachmentBytes(ctx.db)) throw apiError(413, '413 Request Entity Too Large')
  const fileName = sanitizedUploadName(input.file.filename)
  if (Buffer.byteLength(fileName) > MAX_UPLOAD_NAME_BYTES) {
    throw validationFailed({ file: [`name is too long (maximum is ${MAX_UPLOAD_NAME_BYTES} bytes)`] })
  }
  const target = cleanFilePath(`${UPLOADS_DIR}/${randomBytes(16).toString('hex')}/${fileName}`)
  if ('error' in target) throw badRequest(target.error)
  const branch = input.branch ?? WIKI_BRANCH
  if (!isCreatableRefName(branch)) throw badRequest(`Something went wrong when we tried to create '${branch}' for you: Branch name is invalid`)
  await commitToWiki(ctx, subject.project.id, actor, branch, async () => ({
    message: `Upload attachment ${fileName}`,
    changes: [{ path: target.path, content: input.file.data }],
  }))
  return { fileName, filePath: target.path, branch }
}
