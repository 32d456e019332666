// An LFS file lock as the locks API shows it (the original's LfsFileLockEntity): its id as a
// string, as the Git LFS locking API has it, and its owner's name.
import type { LfsFileLockRow } from '../db/schema.js'

export interface LfsFileLockEntity {
  id: string
  path: string
  locked_at: string
  owner: { name: string }
}

export interface LfsFileLockView {
  lock: LfsFileLockRow
  ownerName: string
}

export function presentLfsFileLock({ lock, ownerName }: LfsFileLockView): LfsFileLockEntity {
  return { id: String(lock.id), path: lock.path, locked_at: new Date(Number(lock.created_at)).toISOString(), owner: { name: ownerName } }
}
