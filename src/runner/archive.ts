// The zip archives a runner moves: artifacts and caches are chosen from the build directory by the
// CI file's `paths` (globs, `**` included, a directory meaning all below it) and `untracked`,
// written with yazl as a stream, and read back with yauzl into a directory without ever leaving
// it: names that are absolute or climb with `..` are refused (yauzl's own check), symbolic links
// are kept only when they point inside, and nothing is written through a link or over one.
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'
import { pipeline } from 'node:stream/promises'
import type { Readable } from 'node:stream'
import yazl from 'yazl'
import yauzl from 'yauzl'

export class ArchiveError extends Error {}

/** A file, directory or link to archive, relative to the root with `/` separators. */
export interface ArchiveEntry { name: string; kind: 'file' | 'directory' | 'symlink' }

const S_IFMT = 0o170000
const S_IFLNK = 0o120000

/** `pattern` (the runner's glob: `*`, `?`, `[…]`, `**`) as a regular expression over relative paths. */
export function globToRegExp(pattern: string): RegExp {
  let source = ''
  for (let i = 0; i < pattern.length; i += 1) {
    const char = pattern[i]!
    if (char === '*' && pattern[i + 1] === '*') {
      // `**/` matches any number of directories, none included; `**` alone anything.
      if (pattern[i + 2] === '/') {
        source += '(?:.*/)?'
        i += 2
      } else {
        source += '.*'
        i += 1
      }
    } else if (char === '*') source += '[^/]*'
    else if (char === '?') source += '[^/]'
    else if (char === '[') {
      const end = pattern.indexOf(']', i + 2)
      if (end === -1) source += '\\['
      else {
        const inner = pattern.slice(i + 1, end).replace(/^!/, '^').replace(/\\/g, '\\\\')
        source += `[${inner}]`
        i = end
      }
    } else source += char.replace(/[.+^${}()|\\/]/g, '\\$&')
  }
  return new RegExp(`^${source}$`)
}

/** A `paths` entry as a relative glob, or why it is refused (outside the build directory). */
export function normalizePattern(pattern: string): string | { refused: string } {
  const trimmed = pattern.trim().replace(/^(\.\/)+/, '').replace(/\/+$/, '')
  if (trimmed === '' || trimmed === '.') return '**'
  if (path.posix.isAbsolute(trimmed) || trimmed.split('/').includes('..')) return { refused: `${pattern}: outside the build directory` }
  return trimmed
}

/**
 * What to archive below `root`: the entries matching `patterns` (and below matching directories),
 * plus, with `untracked`, every file not in `tracked` (outside .git). Sorted, parents first.
 */
export async function selectEntries(root: string, options: { patterns: readonly string[]; untracked: boolean; tracked: ReadonlySet<string> }): Promise<ArchiveEntry[]> {
  const matchers = options.patterns.map(globToRegExp)
  const chosen: ArchiveEntry[] = []
  async function walk(relativeDir: string, inherited: boolean): Promise<void> {
    const dirents = await fsp.readdir(path.join(root, relativeDir), { withFileTypes: true })
    dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    for (const dirent of dirents) {
      const name = relativeDir === '' ? dirent.name : `${relativeDir}/${dirent.name}`
      const matched = inherited || matchers.some((matcher) => matcher.test(name))
      if (dirent.isDirectory()) {
        if (matched) chosen.push({ name, kind: 'directory' })
        await walk(name, matched)
      } else if (dirent.isFile() || dirent.isSymbolicLink()) {
        const untracked = options.untracked && !options.tracked.has(name) && name !== '.git' && !name.startsWith('.git/')
        if (matched || untracked) chosen.push({ name, kind: dirent.isFile() ? 'file' : 'symlink' })
      }
    }
  }
  await walk('', false)
  return chosen
}

/** A zip of `entries` below `root`, as a stream; links that point outside `root` are left out (and named in `skipped`). */
export async function zipEntries(root: string, entries: readonly ArchiveEntry[], skipped: (name: string, why: string) => void = () => {}): Promise<Readable> {
  const zip = new yazl.ZipFile()
  for (const entry of entries) {
    const file = path.join(root, entry.name)
    if (entry.kind === 'directory') zip.addEmptyDirectory(entry.name)
    else if (entry.kind === 'file') zip.addFile(file, entry.name)
    else {
      const target = await fsp.readlink(file)
      if (!insideRoot(root, path.resolve(path.dirname(file), target))) {
        skipped(entry.name, `a link to ${target}, outside the build directory`)
        continue
      }
      zip.addBuffer(Buffer.from(target), entry.name, { mode: S_IFLNK | 0o777 })
    }
  }
  zip.end()
  return zip.outputStream as Readable
}

/** Writes `stream` to `file` (the archive of a dependency or a cache, to read back with random access). */
export async function saveStream(stream: Readable, file: string): Promise<void> {
  await pipeline(stream, fs.createWriteStream(file, { mode: 0o600 }))
}

/**
 * Extracts the zip `file` into `root`; the number of entries written. Throws ArchiveError on an
 * entry that would land outside `root` (an absolute or `..` name, a link pointing out, a path
 * through a link).
 */
export async function extractZip(file: string, root: string): Promise<number> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true, autoClose: true }, (err, opened) => (err ? reject(new ArchiveError(`not a zip archive: ${err.message}`)) : resolve(opened!)))
  })
  let written = 0
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on('error', (err: Error) => reject(new ArchiveError(err.message)))
      zip.on('end', () => resolve())
      zip.on('entry', (entry: yauzl.Entry) => {
        extractEntry(zip, entry, root).then(() => {
          written += 1
          zip.readEntry()
        }, reject)
      })
      zip.readEntry()
    })
  } finally {
    zip.close()
  }
  return written
}

async function extractEntry(zip: yauzl.ZipFile, entry: yauzl.Entry, root: string): Promise<void> {
  const name = entry.fileName.replace(/\/+$/, '')
  const target = path.join(root, name)
  if (name === '' || !insideRoot(root, target)) throw new ArchiveError(`refusing ${entry.fileName}: outside the directory`)
  const mode = (entry.externalFileAttributes >>> 16) & 0o177777
  if (entry.fileName.endsWith('/')) {
    await makeDirectories(root, name)
    return
  }
  await makeDirectories(root, path.posix.dirname(name))
  await fsp.rm(target, { force: true }) // never write through (or keep) a link in the way
  const content = await openEntry(zip, entry)
  if ((mode & S_IFMT) === S_IFLNK) {
    const chunks: Buffer[] = []
    for await (const chunk of content) chunks.push(chunk as Buffer)
    const linkTarget = Buffer.concat(chunks).toString('utf8')
    if (path.isAbsolute(linkTarget) || !insideRoot(root, path.resolve(path.dirname(target), linkTarget))) {
      throw new ArchiveError(`refusing ${entry.fileName}: a link to ${linkTarget}, outside the directory`)
    }
    await fsp.symlink(linkTarget, target)
    return
  }
  const permissions = (mode & 0o111) !== 0 ? 0o755 : 0o644
  await pipeline(content, fs.createWriteStream(target, { flags: 'wx', mode: permissions }))
}

function openEntry(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<Readable> {
  return new Promise<Readable>((resolve, reject) => {
    zip.openReadStream(entry, (err, opened) => (err ? reject(new ArchiveError(err.message)) : resolve(opened!)))
  })
}

/** Makes `relativeDir` below `root`, refusing to pass through a link or a file. */
async function makeDirectories(root: string, relativeDir: string): Promise<void> {
  let current = root
  for (const part of relativeDir.split('/').filter((segment) => segment !== '' && segment !== '.')) {
    current = path.join(current, part)
    const stat = await fsp.lstat(current).catch(() => null)
    if (stat === null) await fsp.mkdir(current)
    else if (!stat.isDirectory()) throw new ArchiveError(`refusing ${relativeDir}: ${path.relative(root, current)} is not a directory`)
  }
}

function insideRoot(root: string, target: string): boolean {
  const relative = path.relative(root, target)
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative))
}
