// Repository file entities (spec: File (read), File write response) and the nine `X-Service-*`
// headers that carry the same metadata on HEAD, GET and raw reads.
import { Type, type Static } from '@sinclair/typebox'
import type { RepositoryFileView } from '../services/files/file-at-ref.js'

export const RepositoryFile = Type.Object({
  file_name: Type.String(),
  file_path: Type.String(),
  size: Type.Integer(),
  encoding: Type.Literal('base64'),
  content_sha256: Type.String(),
  ref: Type.String(),
  blob_id: Type.String(),
  commit_id: Type.String(),
  last_commit_id: Type.String(),
  content: Type.String(),
})
export type RepositoryFileEntity = Static<typeof RepositoryFile>

export const FileCommit = Type.Object({
  file_path: Type.String(),
  branch: Type.String(),
})
export type FileCommitEntity = Static<typeof FileCommit>

type FileMetadata = Omit<RepositoryFileEntity, 'content'>

/** Every field but the content, in the original's order (the content comes last). */
export function presentFileMetadata(file: RepositoryFileView): FileMetadata {
  return {
    file_name: file.path.slice(file.path.lastIndexOf('/') + 1),
    file_path: file.path,
    size: file.size,
    encoding: 'base64',
    content_sha256: file.contentSha256,
    ref: file.ref,
    blob_id: file.blobId,
    commit_id: file.commitId,
    last_commit_id: file.lastCommitId,
  }
}

/** The file with its content; only for files read whole (`data` set). */
export function presentRepositoryFile(file: RepositoryFileView & { data: Buffer }): RepositoryFileEntity {
  return { ...presentFileMetadata(file), content: file.data.toString('base64') }
}

/** Printable ASCII: a header value as it is (ids, digests and most paths). */
const PLAIN_HEADER_VALUE = /^[\x20-\x7e]*$/

/**
 * A header value as the bytes of its UTF-8 text (Node writes header strings as latin1, so each
 * character stands for one byte), the characters no header may hold replaced.
 */
function headerValue(value: string | number): string {
  const text = String(value)
  if (PLAIN_HEADER_VALUE.test(text)) return text
  // eslint-disable-next-line no-control-regex
  return Buffer.from(text, 'utf8').toString('latin1').replace(/[\x00-\x08\x0a-\x1f\x7f]/g, '_')
}

/** `file_name` → `X-Service-File-Name`, made once per field. */
const headerNames = new Map<string, string>()

function headerNameOf(field: string): string {
  let name = headerNames.get(field)
  if (name === undefined) {
    name = `X-Service-${field.split('_').map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('-')}`
    headerNames.set(field, name)
  }
  return name
}

/** The metadata as `X-Service-<Field-Name>` headers (the original's X-<product>-* headers renamed by the spec). */
export function fileHeaders(file: RepositoryFileView): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const [field, value] of Object.entries(presentFileMetadata(file))) headers[headerNameOf(field)] = headerValue(value)
  return headers
}
