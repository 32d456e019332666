// A bare repository of its own in a temporary data directory, for tests of src/git alone (no
// database, no server): `storage` makes more beside it, close() removes them all.
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { RepositoryStorage } from '../../src/git/storage.js'
import type { GitRepository } from '../../src/git/repository.js'

export interface ScratchRepository {
  storage: RepositoryStorage
  /** Repository 1 of `storage`, empty. */
  repo: GitRepository
  close(): Promise<void>
}

export async function scratchRepository(prefix: string): Promise<ScratchRepository> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), prefix))
  const storage = new RepositoryStorage(dataDir)
  await storage.create(1)
  return {
    storage,
    repo: storage.open(1),
    async close() {
      storage.close()
      await fs.rm(dataDir, { recursive: true, force: true })
    },
  }
}
