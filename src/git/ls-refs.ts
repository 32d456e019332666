// Protocol v2's `ls-refs` (git's ls-refs.c and serve.c, as `upload-pack --stateless-rpc` answers
// one request), answered from refs-reader.ts's reading of the refs: every clone and fetch over HTTP
// asks it first, and answering it here starts one git process fewer per clone, and none for a fetch
// that finds nothing new. Only requests as git's own clients send them are taken (the command, the
// capabilities `agent`, `object-format=sha1` and `server-option`, the arguments `peel`, `symrefs`,
// `unborn` and `ref-prefix`); anything else, a repository that hides refs, or refs refs-reader
// leaves to git, is git's to answer.
import type { ObjectInfo } from './cat-file.js'
import { firstPktLine, packetsIn, pktLine } from './pkt-line.js'
import { readRefs } from './refs-reader.js'

export interface LsRefsArguments {
  /** Each ref's peeled object, for annotated tags. */
  peel: boolean
  /** The target of symbolic refs. */
  symrefs: boolean
  /** HEAD even when the branch it names is unborn. */
  unborn: boolean
  /** Only refs starting with one of these (and HEAD only if one matches it); all when empty. */
  refPrefixes: string[]
}

/** What peeling reads: an object's type by id or by `<oid>^{}`. */
export interface ObjectReader {
  info(name: string): Promise<ObjectInfo | null>
}

const COMMAND = 'command=ls-refs'

/** More prefixes than this, and git lists every ref (ls-refs.c's TOO_MANY_PREFIXES): left to git. */
const MAX_REF_PREFIXES = 65_535

/** Whether a request body starting with `head` is an ls-refs request; null until its first pkt-line is all there. */
export function isLsRefsRequest(head: Buffer): boolean | null {
  const line = firstPktLine(head)
  return line === null ? null : chomp(line) === COMMAND
}

/** git's reader drops one newline from the end of each line (PACKET_READ_CHOMP_NEWLINE). */
function chomp(line: string): string {
  return line.endsWith('\n') ? line.slice(0, -1) : line
}

/** A capability line of the request git would take and that changes nothing in the answer. */
function isNeutralCapability(line: string): boolean {
  return line === 'object-format=sha1' || /^(?:agent|server-option)(?:=|$)/.test(line)
}

/**
 * The arguments of a whole ls-refs request body (the command, capabilities, then a delim and
 * arguments or nothing, and a flush ending the body); null when anything in it is git's to judge.
 */
export function parseLsRefs(body: Buffer): LsRefsArguments | null {
  let packets
  try {
    packets = packetsIn(body)
  } catch {
    return null
  }
  if (packets.consumed !== body.length) return null
  const lines: (string | null)[] = []
  for (const packet of packets.packets) {
    if (packet === 'flush' || packet === 'delim') lines.push(packet === 'flush' ? null : '')
    else if (typeof packet === 'string') return null
    else {
      // Text git would read whole: printable ASCII (a NUL would end its C string early).
      const line = chomp(packet.toString('latin1'))
      if (!/^[ -~]+$/.test(line)) return null
      lines.push(line)
    }
  }
  // The command, its capabilities up to a delim ('') or the flush (null), arguments, the flush.
  if (lines[0] !== COMMAND || lines.at(-1) !== null) return null
  let at = 1
  while (typeof lines[at] === 'string' && lines[at] !== '' && isNeutralCapability(lines[at]!)) at += 1
  const args: LsRefsArguments = { peel: false, symrefs: false, unborn: false, refPrefixes: [] }
  if (lines[at] === null) return at === lines.length - 1 ? args : null
  if (lines[at] !== '') return null
  for (const line of lines.slice(at + 1, -1)) {
    if (line === 'peel') args.peel = true
    else if (line === 'symrefs') args.symrefs = true
    else if (line === 'unborn') args.unborn = true
    else if (line?.startsWith('ref-prefix ')) args.refPrefixes.push(line.slice('ref-prefix '.length))
    else return null
  }
  return args.refPrefixes.length > MAX_REF_PREFIXES ? null : args
}

/** One listed ref: its name, the object (null for an unborn HEAD), the symbolic ref's target. */
interface Listed {
  name: string
  oid: string | null
  symrefTarget: string | null
  peeled: string | null | undefined
}

/**
 * The answer to an ls-refs request on `gitDir` (its ref lines, then a flush), or null when git
 * must answer: HEAD first (or `unborn HEAD` when asked with `unborn` and `symrefs`), then the refs
 * in byte order of their names, each with `symref-target:` and `peeled:` as asked.
 */
export async function answerLsRefs(gitDir: string, args: LsRefsArguments, objects: ObjectReader): Promise<Buffer | null> {
  const snapshot = readRefs(gitDir)
  // Hidden refs (uploadpack.hideRefs, transfer.hideRefs) and `lsrefs.unborn` are git's to apply.
  if (snapshot === null || snapshot.head === null || /hiderefs|lsrefs/i.test(snapshot.configText)) return null
  const matches = (name: string) => args.refPrefixes.length === 0 || args.refPrefixes.some((prefix) => name.startsWith(prefix))
  const listed: Listed[] = []
  const { head } = snapshot
  const target = head.symrefTarget === null ? undefined : snapshot.refs.find((ref) => ref.name === head.symrefTarget)
  if ((head.oid !== null || (args.unborn && args.symrefs && head.symrefTarget !== null)) && matches('HEAD')) {
    listed.push({ name: 'HEAD', oid: head.oid, symrefTarget: head.symrefTarget, peeled: target?.peeled })
  }
  listed.push(...snapshot.refs.filter((ref) => matches(ref.name)))
  const peeled = args.peel ? await peeledObjects(listed, objects) : new Map<string, string | null>()
  if (peeled === null) return null
  const lines = listed.map((ref) => {
    let line = ref.oid === null ? `unborn ${ref.name}` : `${ref.oid} ${ref.name}`
    if (args.symrefs && ref.symrefTarget !== null) line += ` symref-target:${ref.symrefTarget}`
    const peeledTo = ref.oid === null ? null : ref.peeled ?? peeled.get(ref.oid)
    if (args.peel && peeledTo != null) line += ` peeled:${peeledTo}`
    return pktLine(`${line}\n`)
  })
  return Buffer.from(`${lines.join('')}0000`, 'latin1')
}

/** A tag git would peel otherwise than cat-file: one whose chain is broken. Never leaves this module. */
class BrokenTag extends Error {}

/**
 * The objects the listed refs' annotated tags peel to, for the refs packed-refs says nothing of;
 * null for a missing object or one that is no tag (git lists no `peeled:` for those), or for the
 * whole answer when a tag's chain is broken: git's peeling then names the missing object or none,
 * by rules of its object cache, so such a repository's answer is git's. Asked of the repository's
 * cat-file reader, all at once.
 */
async function peeledObjects(listed: readonly Listed[], objects: ObjectReader): Promise<Map<string, string | null> | null> {
  const unknown = [...new Set(listed.filter((ref) => ref.oid !== null && ref.peeled === undefined).map((ref) => ref.oid!))]
  try {
    const peeled = await Promise.all(unknown.map(async (oid) => {
      if ((await objects.info(oid))?.type !== 'tag') return null
      const target = await objects.info(`${oid}^{}`)
      if (target === null) throw new BrokenTag()
      return target.oid
    }))
    return new Map(unknown.map((oid, index) => [oid, peeled[index]!]))
  } catch (err) {
    if (err instanceof BrokenTag) return null
    throw err
  }
}
