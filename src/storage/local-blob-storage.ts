// Blob storage in a local directory ($INGOT_DATA_DIR/shared/blobs): a key is a path below it. A put
// writes a temporary file in the root's `.tmp`, syncs it and renames it into place, so a blob is
// either whole or absent, even across a crash; a crash leaves at most a temporary file, which the
// leftover sweep removes.
import { randomBytes } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { checkBlobKey, checkBlobPrefix, type BlobStat, type BlobStorage, type ByteRange } from './blob-storage.js'

const TEMPORARY_DIR = '.tmp'

export function localBlobRoot(dataDir: string): string {
  return path.join(dataDir, 'shared', 'blobs')
}

function isMissing(err: unknown): boolean {
  return (err as NodeJS.ErrnoException).code === 'ENOENT'
}

export class LocalBlobStorage implements BlobStorage {
  constructor(readonly root: string) {}

  private pathOf(key: string): string {
    return path.join(this.root, ...checkBlobKey(key).split('/'))
  }

  async put(key: string, data: Readable | Buffer): Promise<BlobStat> {
    const target = this.pathOf(key)
    const temporaryDir = path.join(this.root, TEMPORARY_DIR)
    await fs.mkdir(temporaryDir, { recursive: true })
    const temporary = path.join(temporaryDir, randomBytes(12).toString('hex'))
    try {
      await pipeline(Buffer.isBuffer(data) ? Readable.from([data]) : data, createWriteStream(temporary, { flags: 'wx', mode: 0o600 }))
      // Synced before the rename, so that the name never points at bytes a crash could lose.
      const file = await fs.open(temporary, 'r')
      let size: number
      try {
        await file.sync()
        size = (await file.stat()).size
      } finally {
        await file.close()
      }
      await fs.mkdir(path.dirname(target), { recursive: true })
      await fs.rename(temporary, target)
      return { key, size }
    } catch (err) {
      await fs.rm(temporary, { force: true })
      throw err
    }
  }

  async get(key: string, range?: ByteRange): Promise<Readable | null> {
    let file: fs.FileHandle
    try {
      file = await fs.open(this.pathOf(key), 'r')
    } catch (err) {
      if (isMissing(err)) return null
      throw err
    }
    return file.createReadStream(range === undefined ? {} : { start: range.start, ...(range.end === undefined ? {} : { end: range.end }) })
  }

  async stat(key: string): Promise<BlobStat | null> {
    try {
      return { key, size: (await fs.stat(this.pathOf(key))).size }
    } catch (err) {
      if (isMissing(err)) return null
      throw err
    }
  }

  async delete(key: string): Promise<void> {
    await fs.rm(this.pathOf(key), { force: true })
  }

  async deletePrefix(prefix: string): Promise<void> {
    await fs.rm(this.pathOf(checkBlobPrefix(prefix).slice(0, -1)), { recursive: true, force: true })
  }

  async *list(prefix: string): AsyncIterable<BlobStat> {
    const start = checkBlobPrefix(prefix).slice(0, -1)
    const pending = [start]
    while (pending.length > 0) {
      const key = pending.pop()!
      let entries
      try {
        entries = await fs.readdir(this.pathOf(key), { withFileTypes: true })
      } catch (err) {
        if (isMissing(err)) continue
        throw err
      }
      for (const entry of entries) {
        const child = `${key}/${entry.name}`
        if (entry.isDirectory()) pending.push(child)
        else if (entry.isFile()) {
          const stat = await this.stat(child)
          if (stat !== null) yield stat
        }
      }
    }
  }

  async sweepLeftovers(before: number): Promise<string[]> {
    const temporaryDir = path.join(this.root, TEMPORARY_DIR)
    let names: string[]
    try {
      names = await fs.readdir(temporaryDir)
    } catch (err) {
      if (isMissing(err)) return []
      throw err
    }
    const removed: string[] = []
    for (const name of names) {
      const file = path.join(temporaryDir, name)
      const stat = await fs.stat(file).catch(() => null)
      if (stat === null || stat.mtimeMs >= before) continue
      await fs.rm(file, { force: true })
      removed.push(file)
    }
    return removed
  }
}
