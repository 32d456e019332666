// The local blob storage: whole blobs or none (a failed stream leaves nothing, not even a temporary
// file after the sweep), ranges, stat, delete by key and by prefix, listing, and keys that cannot
// leave the root.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { Readable } from 'node:stream'
import { text } from 'node:stream/consumers'
import { InvalidBlobKeyError } from '../../src/storage/blob-storage.js'
import { LocalBlobStorage } from '../../src/storage/local-blob-storage.js'

describe('local blob storage', () => {
  let root: string
  let blobs: LocalBlobStorage

  before(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'ingot-blobs-'))
    blobs = new LocalBlobStorage(path.join(root, 'blobs'))
  })
  after(async () => { await fs.rm(root, { recursive: true, force: true }) })

  const read = async (key: string, range?: { start: number; end?: number }) => {
    const stream = await blobs.get(key, range)
    return stream === null ? null : text(stream)
  }

  it('puts from a buffer or a stream, gets whole or a range, stats', async () => {
    assert.deepEqual(await blobs.put('a/one', Buffer.from('hello world')), { key: 'a/one', size: 11 })
    assert.deepEqual(await blobs.put('a/two', Readable.from([Buffer.from('abc'), Buffer.from('def')])), { key: 'a/two', size: 6 })
    assert.equal(await read('a/one'), 'hello world')
    assert.equal(await read('a/one', { start: 6 }), 'world')
    assert.equal(await read('a/one', { start: 0, end: 4 }), 'hello')
    assert.deepEqual(await blobs.stat('a/two'), { key: 'a/two', size: 6 })
    assert.equal(await blobs.stat('a/none'), null)
    assert.equal(await blobs.get('a/none'), null)
  })

  it('replaces a blob only once the new one is whole; a failed stream leaves the old one', async () => {
    await blobs.put('b/file', Buffer.from('old'))
    const failing = new Readable({
      read() {
        this.push(Buffer.from('partial new bytes'))
        this.destroy(new Error('the client went away'))
      },
    })
    await assert.rejects(blobs.put('b/file', failing), /went away/)
    assert.equal(await read('b/file'), 'old')
    assert.deepEqual(await fs.readdir(path.join(root, 'blobs', '.tmp')), [])
    await blobs.put('b/file', Buffer.from('new'))
    assert.equal(await read('b/file'), 'new')
  })

  it('deletes by key and by prefix, lists by prefix', async () => {
    await blobs.put('c/x/1', Buffer.from('1'))
    await blobs.put('c/x/deep/2', Buffer.from('22'))
    await blobs.put('c/y/3', Buffer.from('333'))
    const listed = []
    for await (const blob of blobs.list('c/')) listed.push(blob)
    assert.deepEqual(listed.sort((p, q) => p.key.localeCompare(q.key)), [
      { key: 'c/x/1', size: 1 }, { key: 'c/x/deep/2', size: 2 }, { key: 'c/y/3', size: 3 },
    ])
    await blobs.delete('c/y/3')
    await blobs.delete('c/y/3')
    await blobs.deletePrefix('c/x/')
    const left = []
    for await (const blob of blobs.list('c/')) left.push(blob)
    assert.deepEqual(left, [])
    for await (const blob of blobs.list('nothing/')) assert.fail(`listed ${blob.key}`)
  })

  it('refuses keys that could leave the root or mean two things', async () => {
    for (const key of ['', '/abs', '../up', 'a/../b', 'a//b', 'a/./b', '.hidden', 'a/', 'a\\b', 'a b', '.tmp/x']) {
      await assert.rejects(blobs.put(key, Buffer.from('x')), InvalidBlobKeyError, key)
      await assert.rejects(blobs.get(key), InvalidBlobKeyError, key)
    }
    await assert.rejects(blobs.deletePrefix('a'), InvalidBlobKeyError)
    await assert.rejects(blobs.deletePrefix('../'), InvalidBlobKeyError)
  })

  it('sweeps temporary files older than asked', async () => {
    const temporary = path.join(root, 'blobs', '.tmp', 'left-by-a-crash')
    await fs.writeFile(temporary, 'x')
    assert.deepEqual(await blobs.sweepLeftovers(Date.now() - 60_000), [])
    assert.deepEqual(await blobs.sweepLeftovers(Date.now() + 1000), [temporary])
  })
})
