// The objects of a push that receive-pack still holds in quarantine, as its pre-receive hook sees
// them: git gives the hook GIT_OBJECT_DIRECTORY, the quarantine directory, where a small push
// (under receive.unpackLimit, 100 objects) lies as loose objects. Reading one of those is a file
// read and an inflate, where asking git is a process: the push check reads a pushed commit's
// parents this way (GitRepository.isAncestor) and leaves anything else to git.
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { inflate } from 'node:zlib'

const inflateAsync = promisify(inflate)

/** Larger loose objects are left to git: a commit is a few hundred bytes. */
const MAX_OBJECT_BYTES = 1024 * 1024

/** A SHA-1 or SHA-256 object id as git writes them out. */
const FULL_OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/

/** The loose object `id` of the object directory, its type and content; null when it is not there loose. */
export async function readLooseObject(objectDirectory: string, id: string): Promise<{ type: string; data: Buffer } | null> {
  if (!FULL_OBJECT_ID.test(id)) return null
  const compressed = await readFile(join(objectDirectory, id.slice(0, 2), id.slice(2))).catch(() => null)
  if (compressed === null) return null
  // Too large or not zlib: git answers instead (and says what is wrong with it).
  const object = await inflateAsync(compressed, { maxOutputLength: MAX_OBJECT_BYTES }).catch(() => null)
  if (object === null) return null
  // `<type> <size>\0<data>`
  const headerEnd = object.indexOf(0)
  const match = /^([a-z]+) (\d+)$/.exec(headerEnd === -1 ? '' : object.subarray(0, headerEnd).toString('latin1'))
  const data = object.subarray(headerEnd + 1)
  if (match === null || Number(match[2]) !== data.length) return null
  return { type: match[1]!, data }
}
