// A file of a repository at a branch, tag or commit, as the files API shows it (spec: Repository
// files, File): the blob found through the long-lived cat-file readers, its SHA-256 and the last
// commit that touched its path. Small files come whole; a large one is hashed as it streams from
// git (once per blob: blobs never change) and its content streams again when sent.
import { createHash } from 'node:crypto'
import { pipeline } from 'node:stream/promises'
import { INLINE_BLOB_LIMIT, streamBlob } from '../../git/blob.js'
import { lastCommitForPath } from '../../git/log.js'
import { ImmutableMemo } from '../../git/memo.js'
import type { GitRepository } from '../../git/repository.js'

export interface RepositoryFileView {
  /** The ref as the caller named it. */
  ref: string
  commitId: string
  path: string
  blobId: string
  size: number
  contentSha256: string
  lastCommitId: string
  /** The bytes of a file up to INLINE_BLOB_LIMIT; null for a larger one, to stream with streamBlob. */
  data: Buffer | null
}

export type FileLookup = { found: RepositoryFileView } | { missing: 'Commit' | 'File' }

/** SHA-256 of large blobs by repository and blob id: a blob's content never changes. */
const largeBlobDigests = new ImmutableMemo<string>()

function largeBlobDigest(repo: GitRepository, blobId: string): Promise<string> {
  return largeBlobDigests.get(`${repo.gitDir}\0${blobId}`, async () => {
    const hash = createHash('sha256')
    await pipeline(streamBlob(repo, blobId), hash)
    return hash.digest('hex')
  })
}

/**
 * The file at `path` (already cleaned with cleanTreePath) of the commit `ref` names; which of the
 * two is missing otherwise.
 */
export async function findFileAtRef(repo: GitRepository, ref: string, path: string): Promise<FileLookup> {
  const commitId = await repo.resolveCommit(ref)
  if (commitId === null) return { missing: 'Commit' }
  const info = path === '' ? null : await repo.info(`${commitId}:${path}`)
  if (info === null || info.type !== 'blob') return { missing: 'File' }
  const small = info.size <= INLINE_BLOB_LIMIT
  const [object, lastCommitId] = await Promise.all([
    small ? repo.read(info.oid) : Promise.resolve(null),
    lastCommitForPath(repo, commitId, path),
  ])
  if (small && object === null) return { missing: 'File' }
  const contentSha256 = object !== null
    ? createHash('sha256').update(object.data).digest('hex')
    : await largeBlobDigest(repo, info.oid)
  return {
    found: {
      ref, commitId, path, blobId: info.oid, size: info.size, contentSha256,
      // A file always has a commit that added it; the commit itself is the fallback all the same.
      lastCommitId: lastCommitId ?? commitId,
      data: object?.data ?? null,
    },
  }
}
