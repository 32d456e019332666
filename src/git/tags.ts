// Tags of a repository as git knows them: every tag with its target, commit, annotation and commit
// date in one `for-each-ref`, one tag through the cat-file reader, and the tag object of an
// annotated tag (checked by `git mktag`). Views with releases and their order are the finders'.
import { TAG_PREFIX, isValidRefName } from './ref-names.js'
import { parseCommit, type GitRepository } from './repository.js'
import type { Identity } from './write.js'

export interface TagRef {
  name: string
  /** The tag object of an annotated tag, else what the ref names. */
  target: string
  /** The commit behind the tag; null for a tag of a tree, a blob or another tag. */
  commitId: string | null
  /** The annotation; null for a lightweight tag. */
  message: string | null
  /** When the tagged commit was committed, in seconds (0 when unknown). */
  committedAt: number
}

const FIELDS = [
  '%(refname)', '%(objectname)', '%(objecttype)', '%(*objectname)', '%(*objecttype)',
  // The annotation only for annotated tags: a lightweight tag's commit message is not needed.
  '%(committerdate:unix)', '%(*committerdate:unix)', '%(if)%(*objectname)%(then)%(contents)%(end)',
]

/** The annotation as the API shows it: without the line end git keeps after it. */
function annotation(contents: string): string {
  return contents.replace(/\n$/, '')
}

/** Every tag in one for-each-ref. */
export async function tagRefs(repo: GitRepository): Promise<TagRef[]> {
  const out = await repo.run(['for-each-ref', `--format=${FIELDS.join('%00')}%1e`, TAG_PREFIX])
  const tags: TagRef[] = []
  for (const record of out.split('\x1e')) {
    const line = record.replace(/^\n/, '')
    if (line === '') continue
    const [ref = '', target = '', type = '', peeled = '', peeledType = '', date = '', peeledDate = '', ...rest] = line.split('\0')
    const annotated = type === 'tag'
    const [commitId, commitType] = annotated ? [peeled, peeledType] : [target, type]
    tags.push({
      name: ref.slice(TAG_PREFIX.length),
      target,
      commitId: commitType === 'commit' ? commitId : null,
      message: annotated ? annotation(rest.join('\0')) : null,
      committedAt: Number(annotated ? peeledDate : date) || 0,
    })
  }
  return tags
}

/** The annotation of a tag object's bytes: what follows the headers, without git's final line end. */
function tagObjectMessage(data: Buffer): string {
  const text = data.toString('utf8')
  const headerEnd = text.indexOf('\n\n')
  return headerEnd === -1 ? '' : annotation(text.slice(headerEnd + 2))
}

/** One tag by name through the cat-file reader; null when there is none. */
export async function findTagRef(repo: GitRepository, name: string): Promise<TagRef | null> {
  if (!isValidRefName(name)) return null
  const ref = `${TAG_PREFIX}${name}`
  // What the ref names, and the commit behind it (none for a tag of a tree or blob), pipelined.
  const [info, commit] = await Promise.all([repo.info(ref), repo.read(`${ref}^{commit}`)])
  if (info === null) return null
  const tagObject = info.type === 'tag' ? await repo.read(info.oid) : null
  return {
    name,
    target: info.oid,
    commitId: commit?.oid ?? null,
    message: tagObject === null ? null : tagObjectMessage(tagObject.data),
    committedAt: commit === null ? 0 : parseCommit(commit.oid, commit.data).committer.time,
  }
}

/** A name or email as a signature line can hold it: no angle brackets or line breaks. */
function identityPart(value: string): string {
  // eslint-disable-next-line no-control-regex
  return value.replace(/[<>\n\r\x00]/g, '').trim()
}

export interface NewTagObject {
  commitId: string
  name: string
  message: string
  tagger: Identity
}

/** Writes the tag object of an annotated tag, tagged now, and returns its id; no ref moves. */
export async function writeTagObject(repo: GitRepository, tag: NewTagObject): Promise<string> {
  const tagger = `${identityPart(tag.tagger.name)} <${identityPart(tag.tagger.email)}> ${Math.floor(Date.now() / 1000)} +0000`
  const object = `object ${tag.commitId}\ntype commit\ntag ${tag.name}\ntagger ${tagger}\n\n${tag.message}\n`
  return (await repo.run(['mktag'], { input: object })).trim()
}
