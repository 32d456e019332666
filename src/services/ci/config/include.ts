// `include:` as the original 11.5 reads it: files of this repository (`local`, or a path) merged
// under the CI file, which wins over them, and each earlier file over later ones. The caller says
// how a local file is read (the repository at the pipeline's commit); without a reader, as in the
// lint that has no project, a local include is an error naming the file. Remote includes
// (`remote`, or a URL) are refused: Ingot fetches nothing from outside for a CI file. Included
// files' own `include` is not followed, as in 11.5.
import { deepMerge } from './deep-merge.js'
import { loadCiYaml } from './load.js'
import { isYamlHash, type YamlHash } from './types.js'

/** The text of a file of the repository (path relative to its root), or null when there is none. */
export type ReadLocalFile = (path: string) => Promise<string | null>

/** GitLab's later limit, so a file cannot make the caller read the repository without end. */
const MAX_INCLUDES = 100
/** All included files together, each being at most 1 MiB: what they expand to stays bounded too. */
const MAX_INCLUDED_BYTES = 4 * 1024 * 1024
const YAML_EXTENSION = /\.(yml|yaml)$/i

type IncludeLocation = { kind: 'local' | 'remote'; location: string }

function locations(include: unknown): IncludeLocation[] | string {
  const items = Array.isArray(include) ? include : [include]
  const found: IncludeLocation[] = []
  for (const item of items) {
    if (typeof item === 'string') {
      found.push({ kind: /^https?:\/\//i.test(item) ? 'remote' : 'local', location: item })
    } else if (isYamlHash(item) && Object.keys(item).length === 1 && (typeof item.local === 'string' || typeof item.remote === 'string')) {
      found.push(typeof item.local === 'string' ? { kind: 'local', location: item.local } : { kind: 'remote', location: item.remote as string })
    } else {
      return `Include \`${JSON.stringify(item)}\` needs to match exactly one accessor!`
    }
  }
  return found
}

async function readInclude({ kind, location }: IncludeLocation, readLocalFile: ReadLocalFile | undefined, read: { bytes: number }): Promise<YamlHash | string> {
  if (!YAML_EXTENSION.test(location)) return `Included file \`${location}\` does not have YAML extension!`
  if (kind === 'remote') return `Remote file \`${location}\` was not fetched: Ingot does not fetch remote includes`
  if (readLocalFile === undefined) return `Local file \`${location}\` does not have project!`
  const content = await readLocalFile(location.replace(/^\/+/, ''))
  if (content === null) return `Local file \`${location}\` does not exist!`
  if (content.trim() === '') return `Included file \`${location}\` is empty or does not exist!`
  read.bytes += Buffer.byteLength(content, 'utf8')
  if (read.bytes > MAX_INCLUDED_BYTES) return 'The parsed YAML is too big'
  const loaded = loadCiYaml(content)
  return loaded.ok ? loaded.value : `Included file \`${location}\` does not have valid YAML syntax!`
}

/** The CI file with its includes merged in, or the errors met reading them. */
export async function resolveIncludes(root: YamlHash, readLocalFile?: ReadLocalFile): Promise<{ ok: true; value: YamlHash } | { ok: false; errors: string[] }> {
  if (!Object.hasOwn(root, 'include')) return { ok: true, value: root }
  const { include, ...content } = root
  if (include === null) return { ok: true, value: content }
  const found = locations(include)
  if (typeof found === 'string') return { ok: false, errors: [found] }
  if (found.length > MAX_INCLUDES) return { ok: false, errors: [`Maximum of ${MAX_INCLUDES} includes are allowed`] }
  let merged: YamlHash = content
  const errors: string[] = []
  const read = { bytes: 0 }
  for (const location of found) {
    const file = await readInclude(location, readLocalFile, read)
    if (typeof file === 'string') errors.push(file)
    else {
      const { include: _nested, ...included } = file
      merged = deepMerge(included, merged)
    }
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: merged }
}
