// A file of a repository at a branch, tag or commit, as the files API shows it (spec: Repository
// files, File): the blob found through the long-lived cat-file readers, its SHA-256 and the last
// commit that touched its path, kept per commit and path (commits never change) so that a hot file
// costs its ref's resolution and one read. Small files come whole; a large one is hashed as it
// streams from git (once per blob: blobs never change) and its content streams again when sent.
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

/** What the files API says of a file at a commit besides its bytes: a commit's files never change. */
interface FileFacts {
  blobId: string
  size: number
  contentSha256: string
  lastCommitId: string
}

/**
 * Facts by repository, commit and path (null: no file there), so that a hot file costs one object
 * read after its ref is resolved, instead of a path lookup, a read, a digest and a history search.
 */
const fileFacts = new ImmutableMemo<FileFacts | null>()

async function factsOf(repo: GitRepository, commitId: string, path: string): Promise<FileFacts | null> {
  const info = await repo.info(`${commitId}:${path}`)
  if (info === null || info.type !== 'blob') return null
  const [contentSha256, lastCommitId] = await Promise.all([
    info.size <= INLINE_BLOB_LIMIT ? repo.read(info.oid).then((object) => object && createHash('sha256').update(object.data).digest('hex')) : largeBlobDigest(repo, info.oid),
    lastCommitForPath(repo, commitId, path),
  ])
  if (contentSha256 === null) return null
  // A file always has a commit that added it; the commit itself is the fallback all the same.
  return { blobId: info.oid, size: info.size, contentSha256, lastCommitId: lastCommitId ?? commitId }
}

/**
 * The file at `path` (already cleaned with cleanTreePath) of the commit `ref` names; which of the
 * two is missing otherwise.
 */
export async function findFileAtRef(repo: GitRepository, ref: string, path: string): Promise<FileLookup> {
  const commitId = await repo.resolveCommit(ref)
  if (commitId === null) return { missing: 'Commit' }
  const facts = path === '' ? null : await fileFacts.get(`${repo.gitDir}\0${commitId}\0${path}`, () => factsOf(repo, commitId, path))
  if (facts === null) return { missing: 'File' }
  const object = facts.size <= INLINE_BLOB_LIMIT ? await repo.read(facts.blobId) : null
  if (facts.size <= INLINE_BLOB_LIMIT && object === null) return { missing: 'File' }
  return { found: { ref, commitId, path, ...facts, data: object?.data ?? null } }
}
