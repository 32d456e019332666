// Reads project.json of an archive (format 0.2.4) as a stream, never whole: the top-level object key
// by key, a relation array item by item, other values whole. A byte scan follows the top-level
// object and its relation arrays (strings skipped with indexOf, nesting counted, the grammar of
// those two levels checked), and each value or array item it cuts out is parsed alone with
// JSON.parse, which also checks it. Memory holds one read chunk and the item in hand. Values of
// skipped keys are only followed, not checked. A tokenizing reader (stream-json) is two to three
// times slower; the tests keep one as the reference this one must agree with
// (test/helpers/project-json-reference.ts). Items written one per line, as Ingot's exports are,
// skip the scan (itemOnItsLine).
import { createReadStream } from 'node:fs'

/** What the reader does with a top-level key's value. */
export type ValueMode = 'items' | 'whole' | 'skip'

export type TreeEvent =
  | { kind: 'value'; key: string; value: unknown }
  | { kind: 'item'; key: string; item: unknown }
  | { kind: 'end'; key: string }

export class TreeFormatError extends Error {}

const CHUNK_BYTES = 256 * 1024

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_OBJECT = 0x7b
const CLOSE_OBJECT = 0x7d
const OPEN_ARRAY = 0x5b
const CLOSE_ARRAY = 0x5d
const COMMA = 0x2c
const COLON = 0x3a

const STRUCTURAL = /["{}[\]]/g

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09
}

function fail(message: string): never {
  throw new TreeFormatError(`Incorrect JSON format: ${message}`)
}

/** What is expected next at the level being followed (the top-level object, or a streamed array). */
type Phase = 'key' | 'colon' | 'value' | 'comma' | 'first-key' | 'first-item' | 'item'

export async function* splitTree(
  path: string, modeOf: (key: string) => ValueMode, signal?: AbortSignal, chunkBytes = CHUNK_BYTES,
): AsyncGenerator<TreeEvent> {
  let depth = 0
  let started = false
  let ended = false
  let phase: Phase = 'first-key'
  let key: string | null = null
  let mode: ValueMode = 'skip'
  let inItems = false
  // A value being cut out (or followed, when skipped): the depth it started at and how it ends.
  let value: null | { level: number; kind: 'container' | 'string' | 'scalar'; keep: boolean; parts: Buffer[]; start: number } = null
  // Inside a string: whether it is a key being read at the top level.
  let inString = false
  let keyParts: Buffer[] | null = null
  let keyStart = 0
  let trailingBackslashes = 0
  const events: TreeEvent[] = []

  const finishValue = (chunk: Buffer, end: number) => {
    const v = value!
    value = null
    if (!v.keep) return
    v.parts.push(chunk.subarray(v.start, end))
    let parsed: unknown
    try {
      parsed = JSON.parse(Buffer.concat(v.parts).toString('utf8'))
    } catch (err) {
      fail((err as Error).message)
    }
    if (inItems) events.push({ kind: 'item', key: key!, item: parsed })
    else events.push({ kind: 'value', key: key!, value: parsed })
  }

  const startValue = (i: number, byte: number, level: number, keep: boolean) => {
    const kind = byte === OPEN_OBJECT || byte === OPEN_ARRAY ? 'container' : byte === QUOTE ? 'string' : 'scalar'
    value = { level, kind, keep, parts: [], start: i }
    if (kind === 'container') depth += 1
  }

  /** The end of a string from `from` (after its opening quote or at a chunk's start): the index of its closing quote, or -1. */
  const stringEnd = (chunk: Buffer, from: number): number => {
    let at = from
    for (;;) {
      const quote = chunk.indexOf(QUOTE, at)
      if (quote < 0) {
        // Count the backslashes the chunk ends with, for an escaped quote at the next chunk's start.
        let run = 0
        for (let j = chunk.length - 1; j >= from && chunk[j] === BACKSLASH; j--) run += 1
        trailingBackslashes = run === chunk.length - from ? trailingBackslashes + run : run
        return -1
      }
      let run = 0
      for (let j = quote - 1; j >= from && chunk[j] === BACKSLASH; j--) run += 1
      if (run === quote - from) run += trailingBackslashes
      trailingBackslashes = 0
      if (run % 2 === 0) return quote
      at = quote + 1
    }
  }

  // Ingot writes each item of a relation on a line of its own (export-tree-json.ts): such an item is
  // parsed straight from its line, without the byte scan. The first line that does not hold exactly
  // one item (the original writes everything on one line; other writers may indent) turns this off.
  let linePerItem = true
  /**
   * The object item starting at `at` parsed from the rest of its line (less the comma after it),
   * when the line is within the chunk and holds exactly that item: the index to go on from, or -1.
   */
  const itemOnItsLine = (chunk: Buffer, at: number): number => {
    const newline = chunk.indexOf(0x0a, at)
    if (newline < 0) return -1
    let end = newline
    while (end > at && isSpace(chunk[end - 1]!)) end -= 1
    const separated = chunk[end - 1] === COMMA
    if (separated) end -= 1
    let item: unknown
    try {
      item = JSON.parse(chunk.toString('utf8', at, end))
    } catch {
      linePerItem = false
      return -1
    }
    events.push({ kind: 'item', key: key!, item })
    phase = separated ? 'item' : 'comma'
    return newline + 1
  }

  const scan = (chunk: Buffer) => {
    let i = 0
    let text: string | undefined
    if (value !== null) value.start = 0
    if (keyParts !== null) keyStart = 0
    while (i < chunk.length) {
      if (inString) {
        const end = stringEnd(chunk, i)
        if (end < 0) {
          if (keyParts !== null) keyParts.push(chunk.subarray(keyStart))
          if (value !== null && value.keep) value.parts.push(chunk.subarray(value.start))
          if (value !== null) value.start = 0
          return
        }
        inString = false
        i = end + 1
        if (keyParts !== null) {
          keyParts.push(chunk.subarray(keyStart, end))
          try {
            key = JSON.parse(`"${Buffer.concat(keyParts).toString('utf8')}"`) as string
          } catch (err) {
            fail((err as Error).message)
          }
          keyParts = null
          mode = modeOf(key)
          phase = 'colon'
        } else if (value !== null && value.kind === 'string' && depth === value.level) {
          finishValue(chunk, i)
          phase = 'comma'
        }
        continue
      }
      if (value !== null && depth > value.level) {
        // Inside a container being cut out or followed: strings and nesting only, found by a
        // regular expression over the chunk's bytes as latin1 text (one character per byte).
        STRUCTURAL.lastIndex = i
        const found = STRUCTURAL.exec(text ??= chunk.toString('latin1'))
        if (found === null) break
        i = found.index
        const byte = chunk[i]!
        if (byte === QUOTE) inString = true
        else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) depth += 1
        else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
          depth -= 1
          if (depth === value.level) {
            finishValue(chunk, i + 1)
            phase = 'comma'
          }
        }
        i += 1
        continue
      }
      const byte = chunk[i]!
      if (value !== null && value.kind === 'scalar') {
        if (byte !== COMMA && byte !== CLOSE_OBJECT && byte !== CLOSE_ARRAY && !isSpace(byte)) { i += 1; continue }
        finishValue(chunk, i)
        phase = 'comma'
        // The byte that ended it is read again as the level's own.
        continue
      }
      if (isSpace(byte)) { i += 1; continue }
      if (!started) {
        if (byte !== OPEN_OBJECT) fail('project.json is not one JSON object')
        started = true
        depth = 1
        phase = 'first-key'
        i += 1
        continue
      }
      if (ended) fail('data after the end of the object')
      if (inItems) {
        // A streamed array at depth 2.
        if ((phase === 'first-item' || phase === 'comma') && byte === CLOSE_ARRAY) {
          events.push({ kind: 'end', key: key! })
          inItems = false
          key = null
          depth = 1
          phase = 'comma'
        } else if (phase === 'comma' && byte === COMMA) {
          phase = 'item'
        } else if (phase === 'first-item' || phase === 'item') {
          const next = byte === OPEN_OBJECT && mode === 'items' && linePerItem ? itemOnItsLine(chunk, i) : -1
          if (next >= 0) {
            i = next
            continue
          }
          startValue(i, byte, 2, mode !== 'skip')
          if (byte === QUOTE) inString = true
        } else {
          fail(`unexpected character at depth 2 of ${key}`)
        }
        i += 1
        continue
      }
      // The top-level object, depth 1.
      if ((phase === 'first-key' || phase === 'comma') && byte === CLOSE_OBJECT) {
        depth = 0
        ended = true
      } else if ((phase === 'first-key' || phase === 'key') && byte === QUOTE) {
        inString = true
        keyParts = []
        keyStart = i + 1
      } else if (phase === 'colon' && byte === COLON) {
        phase = 'value'
      } else if (phase === 'comma' && byte === COMMA) {
        phase = 'key'
      } else if (phase === 'value') {
        if (mode === 'items' && byte === OPEN_ARRAY) {
          inItems = true
          depth = 2
          phase = 'first-item'
        } else {
          startValue(i, byte, 1, mode !== 'skip')
          if (byte === QUOTE) inString = true
        }
      } else {
        fail('unexpected character in the top-level object')
      }
      i += 1
    }
    if (value !== null && value.keep) value.parts.push(chunk.subarray(value.start))
    if (keyParts !== null) keyParts.push(chunk.subarray(keyStart))
  }

  const input = createReadStream(path, { highWaterMark: chunkBytes })
  try {
    for await (const data of input) {
      if (signal?.aborted) throw signal.reason ?? new Error('aborted')
      scan(data as Buffer)
      if (events.length > 0) yield* events.splice(0, events.length)
    }
    if (!started || !ended || inString) fail('project.json ends early')
  } finally {
    input.destroy()
  }
}

/**
 * One top-level value of project.json, read alone (the members, which 11.5 writes after the issues
 * but which the user mapping needs first): every other value is only followed. Undefined when absent.
 */
export async function readTopLevelValue(path: string, wanted: string, signal?: AbortSignal): Promise<unknown> {
  for await (const event of splitTree(path, (key) => key === wanted ? 'whole' : 'skip', signal)) {
    if (event.kind === 'value') return event.value
  }
  return undefined
}
