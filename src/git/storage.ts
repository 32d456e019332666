// Where repositories live: bare repositories in the hashed layout
// `$INGOT_DATA_DIR/repositories/@hashed/ab/cd/<sha256 of the project id>.git`, so renames and
// transfers never move files and no user-chosen name ever becomes a path; a project's wiki is a
// second bare repository beside it (`….wiki.git`), made on its first write. open() and openWiki()
// hand out GitRepository objects sharing one pool of long-lived cat-file readers.
import { hash, randomUUID } from 'node:crypto'
import fsSync from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'
import { runGit } from './command.js'
import { CatFilePool } from './cat-file.js'
import { GitRepository } from './repository.js'
import { BRANCH_PREFIX, isValidRefName } from './ref-names.js'

/** Repositories made before their project's row is written (stageEmpty, stageFork); never a hashed path. */
export const STAGING_FOLDER = '@staging'

/** A directory or file of the empty repository `git init --bare` makes, relative to its top. */
interface LayoutEntry {
  path: string
  mode: number
  /** null for a directory. */
  content: Buffer | null
}

/** The branch the captured layout's HEAD names; each repository's HEAD is written anew. */
const LAYOUT_BRANCH = 'master'

/**
 * The directories and files of a directory tree, parents before children; null when it holds
 * anything else (a symbolic link: a template this code does not know how to copy).
 */
async function readLayout(top: string): Promise<LayoutEntry[] | null> {
  const layout: LayoutEntry[] = []
  const walk = async (relative: string): Promise<boolean> => {
    for (const entry of (await fs.readdir(path.join(top, relative), { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const entryPath = path.join(relative, entry.name)
      const full = path.join(top, entryPath)
      const { mode } = await fs.stat(full)
      if (entry.isDirectory()) {
        layout.push({ path: entryPath, mode: mode & 0o7777, content: null })
        if (!await walk(entryPath)) return false
      } else if (entry.isFile()) {
        layout.push({ path: entryPath, mode: mode & 0o7777, content: await fs.readFile(full) })
      } else {
        return false
      }
    }
    return true
  }
  return await walk('') ? layout : null
}

export class RepositoryStorage {
  readonly root: string
  readonly objects = new CatFilePool()
  /** What `git init --bare` writes here (see emptyLayout): learnt from git once, then written by us. */
  private emptyRepositoryLayout: Promise<LayoutEntry[] | null> | null = null

  constructor(dataDir: string) {
    this.root = path.join(dataDir, 'repositories')
  }

  open(projectId: number): GitRepository {
    return new GitRepository(this.repositoryPath(projectId), this.objects)
  }

  /** The hashed relative path of a project's repository, without `.git`. */
  static diskPath(projectId: number): string {
    const digest = hash('sha256', String(projectId))
    return path.join('@hashed', digest.slice(0, 2), digest.slice(2, 4), digest)
  }

  repositoryPath(projectId: number): string {
    return path.join(this.root, `${RepositoryStorage.diskPath(projectId)}.git`)
  }

  /** The project's wiki repository (which may not exist yet: see wikiExists, createWiki). */
  openWiki(projectId: number): GitRepository {
    return new GitRepository(this.wikiPath(projectId), this.objects)
  }

  wikiPath(projectId: number): string {
    return path.join(this.root, `${RepositoryStorage.diskPath(projectId)}.wiki.git`)
  }

  async wikiExists(projectId: number): Promise<boolean> {
    return fs.access(path.join(this.wikiPath(projectId), 'HEAD')).then(() => true, () => false)
  }

  /** Creates the wiki's empty bare repository on `master`, the original's wiki branch, unless it exists. */
  async createWiki(projectId: number): Promise<void> {
    if (await this.wikiExists(projectId)) return
    const dir = this.wikiPath(projectId)
    await fs.mkdir(path.dirname(dir), { recursive: true })
    // (Two first writes racing both run init: re-initialising an existing repository keeps it as it is.)
    await runGit(['init', '--bare', '--quiet', '--initial-branch=master', dir])
  }

  /**
   * Creates the project's empty bare repository, its HEAD naming `defaultBranch` (master when
   * null) so the first push of that branch becomes the default.
   */
  async create(projectId: number, defaultBranch: string | null = null): Promise<void> {
    await this.place(await this.stageEmpty(defaultBranch), projectId)
  }

  /** A fork's repository (see stageFork). */
  async fork(sourceProjectId: number, forkProjectId: number): Promise<void> {
    await this.place(await this.stageFork(sourceProjectId), forkProjectId)
  }

  /**
   * An empty bare repository made before its project has a row (and so an id): git runs before the
   * project's transaction, which only moves the repository into place (place), a rename.
   */
  async stageEmpty(defaultBranch: string | null): Promise<string> {
    const dir = await this.stagingPath()
    const branch = defaultBranch ?? 'master'
    // A name git would refuse goes to git, which refuses it in its own words.
    const layout = isValidRefName(branch) ? await this.emptyLayout() : null
    if (layout === null) {
      await runGit(['init', '--bare', '--quiet', `--initial-branch=${branch}`, dir])
      return dir
    }
    try {
      // Written synchronously: the thirty-odd small entries take well under a millisecond so, where
      // a round trip through libuv's thread pool for each made it 3–12 ms, more than `git init`.
      fsSync.mkdirSync(dir)
      // Directories in order (parents first), then the files.
      for (const entry of layout) if (entry.content === null) fsSync.mkdirSync(path.join(dir, entry.path), { mode: entry.mode })
      for (const entry of layout) {
        if (entry.content === null) continue
        const content = entry.path === 'HEAD' ? `ref: ${BRANCH_PREFIX}${branch}\n` : entry.content
        fsSync.writeFileSync(path.join(dir, entry.path), content, { mode: entry.mode, flag: 'wx' })
      }
    } catch (err) {
      await this.discard(dir)
      throw err
    }
    return dir
  }

  /**
   * The files and directories of a new empty bare repository, as this git makes them on this
   * filesystem: one `git init --bare` in the staging folder per process (its probes of the
   * filesystem, such as core.filemode, hold for every repository staged there), read back and
   * removed. Each later repository is the same entries written by us, its HEAD naming its own
   * branch: a project's creation starts no git process. Null (git init each time) when the
   * template holds what readLayout does not copy or HEAD is not as expected.
   */
  private emptyLayout(): Promise<LayoutEntry[] | null> {
    this.emptyRepositoryLayout ??= (async () => {
      const dir = await this.stagingPath()
      try {
        await runGit(['init', '--bare', '--quiet', `--initial-branch=${LAYOUT_BRANCH}`, dir])
        const layout = await readLayout(dir)
        const head = layout?.find((entry) => entry.path === 'HEAD')
        return head?.content?.toString('utf8') === `ref: ${BRANCH_PREFIX}${LAYOUT_BRANCH}\n` ? layout : null
      } finally {
        await this.discard(dir)
      }
    })()
    // A failed attempt (a full disk) is not remembered: the next creation asks git again.
    this.emptyRepositoryLayout.catch(() => { this.emptyRepositoryLayout = null })
    return this.emptyRepositoryLayout
  }

  /**
   * A fork's repository, staged like stageEmpty: the source's branches and tags, HEAD naming the
   * same branch.
   *
   * A local bare clone hard-links the source's object files instead of copying them, so a fork
   * costs next to no disk until either side repacks, and it is safe: git never rewrites an object
   * file in place (a repack or gc writes new files and unlinks old names), so deleting, repacking
   * or pruning the source later leaves every file the fork links intact. Alternates
   * (objects/info/alternates, `clone --shared`) would share more but leave the fork broken once the
   * source is deleted or prunes; the original's object pools avoid that with a third repository
   * that we do not need while forks are rare. Across filesystems git falls back to copying.
   */
  async stageFork(sourceProjectId: number): Promise<string> {
    const source = this.repositoryPath(sourceProjectId)
    const dir = await this.stagingPath()
    try {
      // A bare clone copies refs/heads/* and refs/tags/* as they are, and nothing else.
      await runGit(['clone', '--bare', '--local', '--quiet', '--', source, dir])
      // The fork does not track its source: no remote is left in its configuration.
      await runGit(['config', '--remove-section', 'remote.origin'], { gitDir: dir })
      const head = (await runGit(['symbolic-ref', 'HEAD'], { gitDir: source })).trim()
      await runGit(['symbolic-ref', 'HEAD', head], { gitDir: dir })
    } catch (err) {
      await this.discard(dir)
      throw err
    }
    return dir
  }

  /**
   * Moves a staged repository to the project's path. Whatever is there is a leftover of a project
   * row that never committed (an id handed out again after a rollback, on SQLite) and goes.
   */
  async place(stagedDir: string, projectId: number): Promise<void> {
    const dir = this.repositoryPath(projectId)
    this.objects.forget(dir)
    await fs.rm(dir, { recursive: true, force: true })
    await fs.mkdir(path.dirname(dir), { recursive: true })
    await fs.rename(stagedDir, dir)
  }

  /** Drops a staged repository that will not be placed. */
  async discard(stagedDir: string): Promise<void> {
    await fs.rm(stagedDir, { recursive: true, force: true })
  }

  /** A new path in the staging folder, on the repositories' filesystem so that place() is a rename. */
  private async stagingPath(): Promise<string> {
    const staging = path.join(this.root, STAGING_FOLDER)
    await fs.mkdir(staging, { recursive: true })
    return path.join(staging, `${randomUUID()}.git`)
  }

  /** Whether `branch` may become HEAD: it exists, or the repository has no branch yet. */
  async branchUsableAsHead(projectId: number, branch: string): Promise<boolean> {
    const gitDir = this.repositoryPath(projectId)
    const anyBranch = await runGit(['for-each-ref', '--count=1', '--format=%(refname)', BRANCH_PREFIX], { gitDir })
    if (anyBranch.trim() === '') return true
    const matching = await runGit(['for-each-ref', '--format=%(refname)', `${BRANCH_PREFIX}${branch}`], { gitDir })
    return matching.split('\n').includes(`${BRANCH_PREFIX}${branch}`)
  }

  /** Points HEAD at the branch (a name already checked with isValidRefName). */
  async setHead(projectId: number, branch: string): Promise<void> {
    await runGit(['symbolic-ref', 'HEAD', `${BRANCH_PREFIX}${branch}`], { gitDir: this.repositoryPath(projectId) })
  }

  /** Removes the project's repository and its wiki's. */
  async remove(projectId: number): Promise<void> {
    for (const dir of [this.repositoryPath(projectId), this.wikiPath(projectId)]) {
      this.objects.forget(dir)
      await fs.rm(dir, { recursive: true, force: true })
    }
  }

  /** Stops every cat-file reader (at shutdown). */
  close(): void {
    this.objects.closeAll()
  }
}
