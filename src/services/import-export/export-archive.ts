// The export archive of the original's format 0.2.4 (research §1.2): its files are written to a
// temporary directory (VERSION, project.json, the bundles), then packed with the project's uploads
// and avatar as a gzip'd tar whose member names start with `./` (as `tar -czf … -C <dir> .` names
// them), streamed file by file straight into blob storage, the project's LFS objects
// (`lfs-objects/<oid>`) read from blob storage as they are packed. Nothing is held whole in memory.
import { once } from 'node:events'
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import type { Readable } from 'node:stream'
import zlib from 'node:zlib'
import type tarStream from 'tar-stream'
import type { AppContext } from '../../context.js'
import { createBundle } from '../../git/bundle.js'
import { lfsExportMembers, type BlobMember } from '../lfs/lfs-import-export.js'
import { UPLOAD_SECRET, projectUploadsDir } from '../uploads/attachments.js'
import { UPLOAD_TEMPORARY_PREFIX } from '../uploads/sweep.js'
import { uploadsRoot } from '../uploads/user-avatar.js'
import { writeProjectTree, type ProjectTreeOptions } from './project-tree-writer.js'
import { lazyRequire } from '../../common/lazy-require.js'

const tar = lazyRequire<typeof tarStream>('tar-stream')

/** The archive format this export writes, the only one 11.5 reads. */
export const EXPORT_VERSION = '0.2.4'

/** Where exports are built: one directory per export, removed when it ends (leftovers swept hourly). */
export function exportsTmpRoot(dataDir: string): string {
  return path.join(dataDir, 'shared', 'tmp', 'project_exports')
}

/** A file of the archive: its name in the tar (without `./`) and where its bytes are on disk. */
interface ArchiveFile {
  name: string
  file: string
}

/** A member of the archive: a file on disk, or a blob (an LFS object). */
type ArchiveMember = ArchiveFile | BlobMember

export interface BuildArchiveOptions {
  description?: string | undefined
  signal?: AbortSignal
}

/** Builds the project's export archive into the blob `key`; its size in bytes. */
export async function buildExportArchive(ctx: AppContext, projectId: number, key: string, options: BuildArchiveOptions = {}): Promise<number> {
  const root = exportsTmpRoot(ctx.config.dataDir)
  await fsp.mkdir(root, { recursive: true })
  const dir = await fsp.mkdtemp(path.join(root, `${projectId}-`))
  try {
    const files = await writeExportFiles(ctx, projectId, dir, options)
    const stat = await ctx.blobs.put(key, packArchive(ctx, files, options.signal))
    return stat.size
  } finally {
    await fsp.rm(dir, { recursive: true, force: true })
  }
}

/** Writes the archive's own files into `dir`; every member of the archive in order, uploads, avatar and LFS objects included. */
async function writeExportFiles(ctx: AppContext, projectId: number, dir: string, options: BuildArchiveOptions): Promise<ArchiveMember[]> {
  const signal = options.signal === undefined ? {} : { signal: options.signal }
  const files: ArchiveMember[] = []
  const own = (name: string) => {
    const file = path.join(dir, name)
    files.push({ name, file })
    return file
  }
  // No newline: 11.5 writes the five bytes and reads the first line.
  await fsp.writeFile(own('VERSION'), EXPORT_VERSION)
  // The bundles are made by git while project.json is written: each waits on the other's disk
  // writes and pauses. Both are waited for, even when one fails, before the directory goes.
  const bundles = async (): Promise<ArchiveFile[]> => {
    const made: ArchiveFile[] = []
    const bundle = path.join(dir, 'project.bundle')
    if (await createBundle(ctx.repositories.open(projectId), bundle, signal)) made.push({ name: 'project.bundle', file: bundle })
    if (await ctx.repositories.wikiExists(projectId)) {
      const wikiBundle = path.join(dir, 'project.wiki.bundle')
      if (await createBundle(ctx.repositories.openWiki(projectId), wikiBundle, signal)) made.push({ name: 'project.wiki.bundle', file: wikiBundle })
    }
    return made
  }
  const [tree, made] = await Promise.allSettled([writeTreeFile(ctx, projectId, own('project.json'), { description: options.description, signal: options.signal }), bundles()])
  if (tree.status === 'rejected') throw tree.reason
  if (made.status === 'rejected') throw made.reason
  files.push(...made.value)
  files.push(...await projectUploads(ctx.config.dataDir, projectId))
  files.push(...await projectAvatar(ctx, projectId))
  files.push(...await lfsExportMembers(ctx.db, projectId))
  return files
}

/** Bytes of project.json buffered on their way to disk. */
const TREE_FILE_BUFFER = 1024 * 1024

async function writeTreeFile(ctx: AppContext, projectId: number, file: string, options: ProjectTreeOptions): Promise<void> {
  // A buffer of a megabyte: with the default 16 KiB every piece the writer hands over would wait
  // for its own disk write before the next batch is built.
  const out = fs.createWriteStream(file, { highWaterMark: TREE_FILE_BUFFER })
  const failed = new Promise<never>((_resolve, reject) => out.once('error', reject))
  try {
    await Promise.race([writeProjectTree(ctx, projectId, out, options), failed])
  } catch (err) {
    out.destroy()
    throw err
  }
  out.end()
  await Promise.race([once(out, 'finish'), failed])
}

/** The project's markdown uploads, `uploads/<secret>/<name>` as the original's FileUploader keeps them. */
async function projectUploads(dataDir: string, projectId: number): Promise<ArchiveFile[]> {
  const base = path.join(uploadsRoot(dataDir), projectUploadsDir(projectId))
  const secrets = await fsp.readdir(base, { withFileTypes: true }).catch(() => [])
  const files: ArchiveFile[] = []
  for (const secret of secrets) {
    if (!secret.isDirectory() || !UPLOAD_SECRET.test(secret.name)) continue
    const entries = await fsp.readdir(path.join(base, secret.name), { withFileTypes: true }).catch(() => [])
    for (const entry of entries) {
      // Files half written by a request still running are not uploads yet.
      if (!entry.isFile() || entry.name.startsWith(UPLOAD_TEMPORARY_PREFIX)) continue
      files.push({ name: `uploads/${secret.name}/${entry.name}`, file: path.join(base, secret.name, entry.name) })
    }
  }
  return files
}

/** The project's avatar, `avatar/<name>` (the original's restorer takes any first file there). */
async function projectAvatar(ctx: AppContext, projectId: number): Promise<ArchiveFile[]> {
  const project = await ctx.db.selectFrom('projects').select('avatar_path').where('id', '=', projectId).executeTakeFirst()
  const avatarPath = project?.avatar_path ?? null
  if (avatarPath === null) return []
  const root = uploadsRoot(ctx.config.dataDir)
  const file = path.resolve(root, avatarPath)
  if (!file.startsWith(`${root}${path.sep}`)) return []
  const stat = await fsp.stat(file).catch(() => null)
  return stat?.isFile() === true ? [{ name: `avatar/${path.basename(file)}`, file }] : []
}

/** The archive's gzip level (see packArchive). */
const ARCHIVE_GZIP_LEVEL = 1

/**
 * The gzip'd tar of `files`, produced as it is read: each file's header carries its size from the
 * disk and its bytes are copied from a file stream, so only a buffer's worth is in memory at once.
 * Directories get their own entries, as tar writes them.
 */
function packArchive(ctx: Pick<AppContext, 'blobs' | 'log'>, files: ArchiveMember[], signal?: AbortSignal): zlib.Gzip {
  const pack = tar().pack()
  // Level 1 rather than tar's default 6: the archive is mostly JSON and an already compressed
  // bundle, and level 6 of a few hundred megabytes cost as long as writing project.json itself
  // (the archive is about a fifth larger; any gzip reader takes it).
  const gzip = zlib.createGzip({ level: ARCHIVE_GZIP_LEVEL })
  pack.on('error', (err: Error) => gzip.destroy(err))
  pack.pipe(gzip)
  const mtime = new Date()
  const fill = async () => {
    const dirs = new Set<string>()
    const addDir = async (name: string) => {
      if (dirs.has(name)) return
      dirs.add(name)
      await addEntry(pack, { name, type: 'directory', mode: 0o755, mtime })
    }
    await addDir('./')
    const addDirsOf = async (name: string) => {
      const parts = name.split('/')
      for (let i = 1; i < parts.length; i++) await addDir(`./${parts.slice(0, i).join('/')}/`)
    }
    for (const member of files) {
      if (signal?.aborted === true) throw new Error('export aborted')
      if ('blob' in member) {
        const body = await openBlob(ctx, member.blob)
        if (body === null) continue
        await addDirsOf(member.name)
        await addStream(pack, `./${member.name}`, body.size, body.stream, mtime)
      } else {
        await addDirsOf(member.name)
        await addFile(pack, `./${member.name}`, member.file, mtime)
      }
    }
    pack.finalize()
  }
  fill().catch((err: unknown) => gzip.destroy(err instanceof Error ? err : new Error(String(err))))
  return gzip
}

function addEntry(pack: tarStream.Pack, header: Parameters<tarStream.Pack["entry"]>[0]): Promise<void> {
  return new Promise((resolve, reject) => {
    pack.entry(header, (err) => (err ? reject(err) : resolve()))
  })
}

async function addFile(pack: tarStream.Pack, name: string, file: string, mtime: Date): Promise<void> {
  const handle = await fsp.open(file, 'r')
  try {
    const { size } = await handle.stat()
    await addStream(pack, name, size, handle.createReadStream({ start: 0, end: Math.max(0, size - 1), autoClose: false }), mtime)
  } finally {
    await handle.close()
  }
}

/** A blob's bytes and size; null, logged, when it is gone (the export goes on without it). */
async function openBlob(ctx: Pick<AppContext, 'blobs' | 'log'>, key: string): Promise<{ size: number; stream: Readable } | null> {
  const stat = await ctx.blobs.stat(key)
  const stream = stat === null ? null : await ctx.blobs.get(key)
  if (stat === null || stream === null) {
    ctx.log.warn({ key }, 'an exported project names a blob that is gone; left out of the archive')
    return null
  }
  return { size: stat.size, stream }
}

/** A file entry of `size` bytes read from `input`, which has exactly that many. */
function addStream(pack: tarStream.Pack, name: string, size: number, input: Readable, mtime: Date): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const entry = pack.entry({ name, size, type: 'file', mode: 0o644, mtime }, (err) => (err ? reject(err) : resolve()))
    if (size === 0) {
      input.destroy()
      entry.end(undefined)
      return
    }
    input.on('error', (err) => { entry.destroy(err); reject(err) })
    input.on('data', (chunk) => {
      if (!entry.write(chunk)) {
        input.pause()
        entry.once('drain', () => input.resume())
      }
    })
    input.on('end', () => entry.end(undefined))
  })
}

/** Where a project's export archives are kept in blob storage (all of them go with the project). */
export function projectExportsPrefix(projectId: number): string {
  return `exports/projects/${projectId}/`
}

/** A blob key for a project's export archive. */
export function exportBlobKey(projectId: number): string {
  return `${projectExportsPrefix(projectId)}${Date.now()}-${randomBytes(8).toString('hex')}.tar.gz`
}
