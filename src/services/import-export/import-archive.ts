// Reading an import archive (format 0.2.4, research §1.1–1.2): a gzip'd tar whose member names may
// start with `./` or not. checkImportArchive is the request's quick look (gzip, tar, a VERSION
// member); extractImportArchive writes the members into a directory of the import's own, refusing
// what could leave it or is not a plain file (symlinks, hard links, devices, absolute names, `..`),
// up to a total size; checkVersion reads VERSION as the original's VersionChecker does.
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'
import { pipeline } from 'node:stream/promises'
import { Transform, type Readable } from 'node:stream'
import zlib from 'node:zlib'
import type tarStream from 'tar-stream'
import { lazyRequire } from '../../common/lazy-require.js'

const tar = lazyRequire<typeof tarStream>('tar-stream')

/** The only archive version 11.5 reads and writes. */
export const IMPORT_EXPORT_VERSION = '0.2.4'

/** An archive the import refuses; its message is the import_error users see (no server paths in it). */
export class ImportArchiveError extends Error {}

/** Most members one archive may have: uploads are many small files, never millions. */
const MAX_MEMBERS = 500_000

/**
 * A member's name inside the archive, `./` prefixes and `.` segments dropped; null for the archive's
 * root (`./`). Absolute names and `..` segments are refused.
 */
export function memberName(raw: string): string | null {
  if (raw.startsWith('/') || /^[A-Za-z]:[\\/]/.test(raw)) throw new ImportArchiveError(`The archive has a member with an absolute path: ${printable(raw)}`)
  const segments = raw.split('/').filter((segment) => segment !== '' && segment !== '.')
  if (segments.includes('..')) throw new ImportArchiveError(`The archive has a member outside of it: ${printable(raw)}`)
  return segments.length === 0 ? null : segments.join('/')
}

/** A member name as it may appear in an error message: short, no control characters. */
function printable(name: string): string {
  const clean = name.replace(/[\p{Cc}]/gu, '?')
  return clean.length > 100 ? `${clean.slice(0, 100)}…` : clean
}

/** Counts the bytes that pass and fails the stream past `limit`. */
function byteLimit(limit: number, error: () => Error): Transform {
  let seen = 0
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length
      if (seen > limit) done(error())
      else done(null, chunk)
    },
  })
}

/**
 * Whether the archive reads as one: gzip, then tar headers up to a VERSION member (the rest of the
 * archive, bodies included, is the job's to read). False for anything else.
 */
export async function checkImportArchive(archive: Readable, maxExtractedBytes: number): Promise<boolean> {
  const extract = tar().extract()
  let found = false
  const done = new Promise<boolean>((resolve) => {
    extract.on('entry', (header, stream, next) => {
      let name: string | null = null
      try {
        name = memberName(header.name)
      } catch { /* the job refuses it, with its message */ }
      stream.on('error', () => {})
      stream.resume()
      if (name === 'VERSION' && header.type === 'file') {
        found = true
        // Enough is known: the tar reads and holds a VERSION. Stop reading.
        extract.destroy()
        resolve(true)
        return
      }
      stream.on('end', next)
    })
    extract.on('finish', () => resolve(found))
    extract.on('error', () => resolve(found))
    extract.on('close', () => resolve(found))
  })
  const gunzip = zlib.createGunzip()
  pipeline(archive, gunzip, byteLimit(maxExtractedBytes, () => new Error('too large')), extract).catch(() => {})
  const result = await done
  archive.destroy()
  gunzip.destroy()
  return result
}

export interface ExtractedArchive {
  /** The directory the members were written into. */
  dir: string
  /** Every file written, by member name (`uploads/<secret>/<name>`, `avatar/<name>`, …). */
  files: string[]
}

/**
 * Writes the archive's members into `dir` (which exists and is empty, the import's own). Plain
 * files and directories only; anything else, a name that would leave `dir`, more than
 * `maxExtractedBytes` in all, or an archive that does not read fails with an ImportArchiveError.
 */
export async function extractImportArchive(archive: Readable, dir: string, maxExtractedBytes: number, signal?: AbortSignal): Promise<ExtractedArchive> {
  const files = new Set<string>()
  let total = 0
  let members = 0
  const extract = tar().extract()
  extract.on('entry', (header, stream, next) => {
    const fail = (err: Error) => {
      // The entry's stream is destroyed with the archive: its error is the archive's, told once.
      stream.on('error', () => {})
      stream.resume()
      next(err)
    }
    members += 1
    if (members > MAX_MEMBERS) return fail(new ImportArchiveError('The archive has too many members'))
    let name: string | null
    try {
      name = memberName(header.name)
    } catch (err) {
      return fail(err as Error)
    }
    if (header.type === 'symlink') return fail(new ImportArchiveError(`The archive has a symbolic link: ${printable(header.name)}`))
    if (header.type === 'link') return fail(new ImportArchiveError(`The archive has a hard link: ${printable(header.name)}`))
    if (header.type !== 'file' && header.type !== 'directory' && header.type !== 'contiguous-file') {
      return fail(new ImportArchiveError(`The archive has a member that is not a file or directory: ${printable(header.name)}`))
    }
    if (name === null) {
      stream.resume()
      stream.on('end', () => next())
      return
    }
    const target = path.join(dir, ...name.split('/'))
    if (header.type === 'directory') {
      fsp.mkdir(target, { recursive: true }).then(() => {
        stream.resume()
        stream.on('end', () => next())
      }, (err: Error) => fail(err))
      return
    }
    total += header.size ?? 0
    if (total > maxExtractedBytes) return fail(new ImportArchiveError('The archive is larger than an import may be once extracted'))
    fsp.mkdir(path.dirname(target), { recursive: true })
      .then(() => pipeline(stream, fs.createWriteStream(target, { mode: 0o600 })))
      .then(() => {
        files.add(name)
        next()
      }, (err: Error) => fail(err))
  })
  const gunzip = zlib.createGunzip()
  try {
    if (signal === undefined) await pipeline(archive, gunzip, extract)
    else await pipeline(archive, gunzip, extract, { signal })
  } catch (err) {
    if (err instanceof ImportArchiveError) throw err
    if (signal?.aborted === true) throw err
    throw new ImportArchiveError('The file is invalid')
  }
  return { dir, files: [...files] }
}

/** VERSION's first line must be 0.2.4, as the original's VersionChecker requires. */
export async function checkVersion(versionFile: string): Promise<void> {
  let text: string
  try {
    const handle = await fsp.open(versionFile, 'r')
    try {
      const buffer = Buffer.alloc(256)
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0)
      text = buffer.subarray(0, bytesRead).toString('utf8')
    } finally {
      await handle.close()
    }
  } catch {
    throw new ImportArchiveError('Incorrect VERSION format')
  }
  const version = (text.split('\n')[0] ?? '').trim()
  if (!/^\d+(\.\d+)*$/.test(version)) throw new ImportArchiveError('Incorrect VERSION format')
  // Gem::Version compares numerically: 0.2.4 and 0.2.4.0 are the same version.
  const parts = (v: string) => v.split('.').map(Number)
  const given = parts(version)
  const required = parts(IMPORT_EXPORT_VERSION)
  const length = Math.max(given.length, required.length)
  const equal = Array.from({ length }, (_, i) => (given[i] ?? 0) === (required[i] ?? 0)).every(Boolean)
  if (!equal) throw new ImportArchiveError(`Import version mismatch: Required ${IMPORT_EXPORT_VERSION} but was ${version}`)
}
