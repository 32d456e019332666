// Tree listings as the repository tree endpoint shows them (spec: Repository, tree entry): the
// entries of a directory at a commit, one level read through the long-lived cat-file readers or the
// whole subtree through `git ls-tree -r -t`, with directories first, then files, then submodules,
// each group in git's own order, as the original lists them.
import type { GitRepository, TreeEntry } from './repository.js'

/**
 * A path inside a tree as users give it, without leading or trailing `/` ('' for the root); null when
 * it could escape the tree or be read as an option: a `.` or `..` segment, an empty segment, a
 * leading `-` or `/`, or a line break.
 */
export function cleanTreePath(path: string): string | null {
  if (path === '' || path === '/') return ''
  if (path.startsWith('-') || path.startsWith('/') || /[\n\r\0]/.test(path)) return null
  const trimmed = path.replace(/\/+$/, '')
  const segments = trimmed.split('/')
  if (segments.some((segment) => segment === '' || segment === '.' || segment === '..')) return null
  return trimmed
}

function typeOfMode(mode: string): TreeEntry['type'] {
  if (mode === '040000') return 'tree'
  if (mode === '160000') return 'commit'
  return 'blob'
}

/** A tree object's bytes (`<mode> <name>\0<binary oid>`…) as entries under `prefix`. */
export function parseTreeObject(data: Buffer, oidBytes: number, prefix: string): TreeEntry[] {
  const entries: TreeEntry[] = []
  let at = 0
  while (at < data.length) {
    const space = data.indexOf(0x20, at)
    const nul = data.indexOf(0, space)
    if (space === -1 || nul === -1 || nul + 1 + oidBytes > data.length) break
    const mode = data.toString('latin1', at, space).padStart(6, '0')
    const name = data.toString('utf8', space + 1, nul)
    const id = data.toString('hex', nul + 1, nul + 1 + oidBytes)
    entries.push({ mode, type: typeOfMode(mode), id, path: prefix === '' ? name : `${prefix}/${name}` })
    at = nul + 1 + oidBytes
  }
  return entries
}

const GROUP_ORDER: Record<TreeEntry['type'], number> = { tree: 0, blob: 1, commit: 2 }

/** Directories, then files, then submodules; the sort is stable, so git's order holds within each. */
export function sortTreeEntries(entries: TreeEntry[]): TreeEntry[] {
  return entries.sort((a, b) => GROUP_ORDER[a.type] - GROUP_ORDER[b.type])
}

/**
 * The entries under `path` (cleaned with cleanTreePath) of the tree of `commit` (a resolved commit
 * id); null when the path names no directory there.
 */
export async function readTree(repo: GitRepository, commit: string, path: string, recursive: boolean): Promise<TreeEntry[] | null> {
  const tree = await repo.info(path === '' ? `${commit}^{tree}` : `${commit}:${path}`)
  if (tree === null || tree.type !== 'tree') return null
  if (!recursive) {
    const object = await repo.read(tree.oid)
    if (object === null) return null
    return sortTreeEntries(parseTreeObject(object.data, tree.oid.length / 2, path))
  }
  const entries = await repo.listTree(tree.oid, '', true)
  if (path !== '') for (const entry of entries) entry.path = `${path}/${entry.path}`
  return sortTreeEntries(entries)
}
