// Upload files written aside and not yet renamed into place (attachments.ts, user-avatar.ts name
// them `.upload-*`) when their process died: removed once older than a threshold.
import fs from 'node:fs/promises'
import path from 'node:path'

export const UPLOAD_TEMPORARY_PREFIX = '.upload-'

/** Removes `.upload-*` files older than `before` (epoch ms) under `dir`, walking it one directory at a time. */
export async function sweepUploadLeftovers(dir: string, before: number, signal?: AbortSignal): Promise<string[]> {
  const removed: string[] = []
  const pending = [dir]
  for (let current = pending.pop(); current !== undefined; current = pending.pop()) {
    if (signal?.aborted === true) break
    const found = await fs.readdir(current, { withFileTypes: true }).catch(() => [])
    for (const entry of found) {
      const file = path.join(current, entry.name)
      if (entry.isDirectory()) pending.push(file)
      else if (entry.isFile() && entry.name.startsWith(UPLOAD_TEMPORARY_PREFIX)) {
        const stat = await fs.stat(file).catch(() => null)
        if (stat !== null && stat.mtimeMs < before) {
          await fs.rm(file, { force: true })
          removed.push(file)
        }
      }
    }
  }
  return removed
}
