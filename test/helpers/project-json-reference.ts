// The reference reader of project.json for the restorer's tests: the same events as
// src/services/import-export/restore-json-split.ts's splitTree, from stream-json, which tokenizes
// every byte (two to three times slower, so the restorer does not use it). The tests check that
// both readers agree, whatever the chunking.
import { createReadStream } from 'node:fs'
import { jsonParser } from 'stream-json/core/parser.js'
import { Assembler } from 'stream-json/core/assembler.js'
import { getManyValues, none } from 'stream-chain/defs.js'
import { TreeFormatError, type TreeEvent, type ValueMode } from '../../src/services/import-export/restore-json-split.js'

interface Token { name: string; value?: unknown }

const CHUNK_BYTES = 256 * 1024

/**
 * The top-level values of project.json in file order: `value` for a key read whole, `item` for each
 * element of a key read as items (then `end`), nothing for a skipped key. A key read as items whose
 * value is not an array comes whole. Malformed JSON throws TreeFormatError.
 */
export async function* readTree(path: string, modeOf: (key: string) => ValueMode, signal?: AbortSignal): AsyncGenerator<TreeEvent> {
  const parse = jsonParser({ packValues: true, streamValues: false })
  // depth counts the open containers; the top-level object is depth 1.
  let depth = 0
  let key: string | null = null
  let mode: ValueMode = 'skip'
  let inItems = false
  let assembler: Assembler | null = null
  let skipDepth = 0
  let seenTop = false
  const events: TreeEvent[] = []

  const take = (token: Token) => {
    const name = token.name
    if (assembler !== null) {
      assembler.consume(token as never)
      if (assembler.done) {
        const value = assembler.current
        assembler = null
        if (inItems) events.push({ kind: 'item', key: key!, item: value })
        else { events.push({ kind: 'value', key: key!, value }); key = null }
      }
      return
    }
    if (skipDepth > 0) {
      if (name === 'startObject' || name === 'startArray') skipDepth += 1
      else if (name === 'endObject' || name === 'endArray') skipDepth -= 1
      if (skipDepth === 0) key = null
      return
    }
    if (depth === 0) {
      if (name !== 'startObject' || seenTop) throw new TreeFormatError('project.json is not one JSON object')
      seenTop = true
      depth = 1
      return
    }
    if (inItems) {
      // Inside a streamed array (depth 2): each element is assembled alone.
      if (name === 'endArray') {
        events.push({ kind: 'end', key: key! })
        inItems = false
        key = null
        depth = 1
        return
      }
      if (mode === 'skip') return
      startValue(token)
      return
    }
    // depth 1: a key, or the value of the key just read.
    if (name === 'keyValue') {
      key = String(token.value)
      mode = modeOf(key)
      return
    }
    if (name === 'endObject') {
      depth = 0
      return
    }
    if (key === null) throw new TreeFormatError('project.json: a value without a key')
    if (mode === 'items' && name === 'startArray') {
      inItems = true
      depth = 2
      return
    }
    if (mode === 'skip') {
      if (name === 'startObject' || name === 'startArray') skipDepth = 1
      else key = null
      return
    }
    startValue(token)
  }

  const startValue = (token: Token) => {
    const asm = new Assembler()
    asm.consume(token as never)
    if (asm.done) {
      if (inItems) events.push({ kind: 'item', key: key!, item: asm.current })
      else { events.push({ kind: 'value', key: key!, value: asm.current }); key = null }
    } else {
      assembler = asm
    }
  }

  const feed = (out: unknown) => {
    if (out === none) return
    for (const token of getManyValues(out as never) as Token[]) take(token)
  }

  const input = createReadStream(path, { encoding: 'utf8', highWaterMark: CHUNK_BYTES })
  try {
    for await (const chunk of input) {
      if (signal?.aborted) throw signal.reason ?? new Error('aborted')
      try {
        feed(parse(chunk as string))
      } catch (err) {
        if (err instanceof TreeFormatError) throw err
        throw new TreeFormatError(`Incorrect JSON format: ${(err as Error).message}`)
      }
      if (events.length > 0) {
        yield* events.splice(0, events.length)
      }
    }
    try {
      feed(parse(none as never))
    } catch (err) {
      throw new TreeFormatError(`Incorrect JSON format: ${(err as Error).message}`)
    }
    yield* events.splice(0, events.length)
    if (!seenTop || depth !== 0) throw new TreeFormatError('Incorrect JSON format: project.json ends early')
  } finally {
    input.destroy()
  }
}
