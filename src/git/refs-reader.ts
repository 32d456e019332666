// The refs of a repository read from its files, as git's files backend reads them (`packed-refs`,
// then loose refs under refs/ overriding packed ones, `ref: <target>` symbolic refs), so that an
// answer listing them needs no git process. Only the plain layout Ingot's repositories have is
// read; anything else (a lock in flight, a name or file git would treat specially, a write racing
// the read) answers null, and the caller asks git. Objects are not looked at: git (since 2.36,
// GIT_REF_PARANOIA on by default) lists a ref to a missing object as it is.
// The files are read synchronously: a few small files of a local directory take microseconds,
// where each trip through libuv's thread pool cost 0.1 to 0.5 ms, a dozen of them one after
// another on every clone, fetch and push; MAX_LOOSE_REFS and MAX_PACKED_REFS_BYTES bound the rest.
import fs, { type BigIntStats } from 'node:fs'
import path from 'node:path'
import { isValidRefName } from './ref-names.js'

export interface Ref {
  /** `refs/heads/main` */
  name: string
  /** The object the ref names (a symbolic ref's: its target's), which may be missing. */
  oid: string
  /** The ref a symbolic ref names; null for a direct one. */
  symrefTarget: string | null
  /**
   * What packed-refs records of the object a packed ref names, as git reads it: the object an
   * annotated tag peels to, or null for no tag; undefined where it records nothing (a loose ref,
   * or a file not written with its refs peeled).
   */
  peeled: string | null | undefined
}

/** HEAD: the ref it names (null when detached) and the object it reaches (null when that ref is unborn). */
export interface Head {
  symrefTarget: string | null
  oid: string | null
}

export interface RefSnapshot {
  /** Every ref under refs/, in byte order of their names. */
  refs: Ref[]
  /** The repository's `config` file, for what depends on it (capabilities, hidden refs). */
  configText: string
  /** null when HEAD names a symbolic ref or a name git might read otherwise: git's to resolve. */
  head: Head | null
}

const OBJECT_ID = /^[0-9a-f]{40}$/
const LOOSE_OBJECT_ID = /^([0-9a-f]{40})\n$/
const LOOSE_SYMREF = /^ref: (refs\/[!-~]+)\n$/
const PACKED_HEADER = '# pack-refs with:'

/** A reason to leave the reading to git; never leaves this module. */
class AskGit extends Error {}

/** A reading raced a write: tried again this many times before leaving it to git. */
const ATTEMPTS = 2

/**
 * Past these, git is left to list the refs: reading and checking them here would block the event
 * loop longer than starting git does (measured on the 2-core VM: 1,000 packed refs 1.3–2 ms, 250
 * loose refs 2–2.8 ms, against 2.7–3.9 ms for the server's spawn of receive-pack).
 */
const MAX_PACKED_REFS_BYTES = 64 * 1024
const MAX_LOOSE_REFS = 256

/**
 * The refs under refs/ with the objects they name, or null when git must be asked: the
 * repository has alternates, is shallow, has a configuration that includes other files or names
 * extensions (another ref storage, another hash), holds a ref git would read otherwise than this
 * or leave out (a dangling symbolic ref), holds more refs than git lists faster, or changed while
 * read.
 */
export function readRefs(gitDir: string): RefSnapshot | null {
  try {
    const { configText, headText } = readConfig(gitDir)
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const refs = readRefsOnce(gitDir)
      if (refs !== null) return { refs, configText, head: headOf(headText, refs) }
    }
    return null
  } catch (err) {
    if (err instanceof AskGit || isNotFound(err)) return null
    throw err
  }
}

function isNotFound(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code
  return code === 'ENOENT' || code === 'ENOTDIR'
}

function exists(file: string): boolean {
  return fs.lstatSync(file, { throwIfNoEntry: false }) !== undefined
}

/** The configuration and HEAD, refused when they could change how refs or objects are read. */
function readConfig(gitDir: string): { configText: string; headText: string } {
  const configText = fs.readFileSync(path.join(gitDir, 'config'), 'utf8')
  const head = fs.readFileSync(path.join(gitDir, 'HEAD'), 'utf8')
  const alternates = exists(path.join(gitDir, 'objects', 'info', 'alternates'))
  const shallow = exists(path.join(gitDir, 'shallow'))
  const commonDir = exists(path.join(gitDir, 'commondir'))
  // git refuses a directory whose HEAD is neither a symbolic ref under refs/ nor an object id.
  if (!LOOSE_SYMREF.test(head) && !LOOSE_OBJECT_ID.test(head)) throw new AskGit()
  if (alternates || shallow || commonDir) throw new AskGit()
  // Section and key names are case-insensitive; a value that merely mentions them is refused too.
  if (/include|extensions|refstorage|worktree/i.test(configText)) throw new AskGit()
  return { configText, headText: head }
}

function headOf(headText: string, refs: readonly Ref[]): Head | null {
  const direct = LOOSE_OBJECT_ID.exec(headText)
  if (direct !== null) return { symrefTarget: null, oid: direct[1]! }
  const symrefTarget = LOOSE_SYMREF.exec(headText)![1]!
  if (!isReadableRefName(symrefTarget)) return null
  const target = refs.find((ref) => ref.name === symrefTarget)
  if (target?.symrefTarget != null) return null
  return { symrefTarget, oid: target?.oid ?? null }
}

type PackedRefsStat = Pick<BigIntStats, 'ino' | 'size' | 'mtimeNs' | 'ctimeNs'> | null

function statPackedRefs(gitDir: string): PackedRefsStat {
  return fs.statSync(path.join(gitDir, 'packed-refs'), { bigint: true, throwIfNoEntry: false }) ?? null
}

function sameFile(a: PackedRefsStat, b: PackedRefsStat): boolean {
  if (a === null || b === null) return a === b
  return a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs
}

/**
 * packed-refs, then the loose refs, then packed-refs' stat again (git rewrites packed-refs before
 * it removes the loose refs it packed, and deletes a ref from it first): null when it changed.
 */
function readRefsOnce(gitDir: string): Ref[] | null {
  const before = statPackedRefs(gitDir)
  if (before !== null && before.size > MAX_PACKED_REFS_BYTES) throw new AskGit()
  const packed = before === null ? new Map<string, PackedRef>() : readPackedRefs(gitDir)
  const loose = new Map<string, Ref>()
  readLooseRefs(gitDir, 'refs', loose, { files: 0 })
  if (!sameFile(before, statPackedRefs(gitDir))) return null
  // packed-refs being rewritten: git may be moving refs between it and the loose files.
  if (exists(path.join(gitDir, 'packed-refs.lock'))) throw new AskGit()
  const byName = new Map<string, Ref>()
  for (const [name, { oid, peeled }] of packed) byName.set(name, { name, oid, symrefTarget: null, peeled })
  for (const [name, ref] of loose) byName.set(name, ref)
  const refs = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  for (const ref of refs) {
    if (ref.symrefTarget === null) continue
    // A symbolic ref reaches its target's object; a dangling one, or one naming another, is git's to judge.
    const target = byName.get(ref.symrefTarget)
    if (target === undefined || target.symrefTarget !== null) throw new AskGit()
    ref.oid = target.oid
    ref.peeled = target.peeled
  }
  return refs
}

interface PackedRef {
  oid: string
  peeled: string | null | undefined
}

/**
 * `<oid> <name>` lines in strict name order, each with the `^<peeled>` line of a tag, after an
 * optional header whose traits say which refs' peeled objects the file records (git's
 * packed-backend.c): all (`fully-peeled`), tags' (`peeled`) or none.
 */
function readPackedRefs(gitDir: string): Map<string, PackedRef> {
  const text = fs.readFileSync(path.join(gitDir, 'packed-refs'), 'latin1')
  const packed = new Map<string, PackedRef>()
  if (text === '') return packed
  if (!text.endsWith('\n')) throw new AskGit()
  const lines = text.slice(0, -1).split('\n')
  const traits = lines[0]!.startsWith(PACKED_HEADER) ? lines[0]!.slice(PACKED_HEADER.length).split(' ') : []
  const peeledRecorded = (name: string) => traits.includes('fully-peeled') || (traits.includes('peeled') && name.startsWith('refs/tags/'))
  let previous: PackedRef | null = null
  let previousName = ''
  for (const line of lines.slice(traits.length === 0 ? 0 : 1)) {
    if (line.startsWith('^')) {
      // The peeled object of the record before it, a ref's only.
      if (previous === null || !OBJECT_ID.test(line.slice(1))) throw new AskGit()
      previous.peeled = line.slice(1)
      previous = null
      continue
    }
    const oid = line.slice(0, 40)
    const name = line.slice(41)
    if (!OBJECT_ID.test(oid) || line[40] !== ' ' || !isReadableRefName(name) || name <= previousName) throw new AskGit()
    previous = { oid, peeled: peeledRecorded(name) ? null : undefined }
    packed.set(name, previous)
    previousName = name
  }
  return packed
}

/** A name under refs/ git takes as it is, in printable ASCII (so that string order is byte order). */
function isReadableRefName(name: string): boolean {
  return name.startsWith('refs/') && /^[!-~]+$/.test(name) && isValidRefName(name)
}

function readLooseRefs(gitDir: string, dir: string, into: Map<string, Ref>, seen: { files: number }): void {
  for (const entry of fs.readdirSync(path.join(gitDir, dir), { withFileTypes: true })) {
    const name = `${dir}/${entry.name}`
    // Lock files (a write in flight), dot files and names git would not read as refs are git's to judge.
    if (!isReadableRefName(name)) throw new AskGit()
    if (entry.isDirectory()) {
      readLooseRefs(gitDir, name, into, seen)
      continue
    }
    if (!entry.isFile() || ++seen.files > MAX_LOOSE_REFS) throw new AskGit()
    const content = fs.readFileSync(path.join(gitDir, name), 'latin1')
    const direct = LOOSE_OBJECT_ID.exec(content)
    const symbolic = direct === null ? LOOSE_SYMREF.exec(content) : null
    if (direct !== null) into.set(name, { name, oid: direct[1]!, symrefTarget: null, peeled: undefined })
    else if (symbolic !== null && isReadableRefName(symbolic[1]!)) into.set(name, { name, oid: '', symrefTarget: symbolic[1]!, peeled: undefined })
    else throw new AskGit()
  }
}
