// What the runner keeps between starts, in its own directory (never shown to a job): the runner
// token it registered for, and the server it belongs to, written with mode 0600 through a rename,
// so a crash leaves the old file or the new one, never half of one; and a lock, so that two runner
// processes never share a directory (each empties its work directories at start).
import fsSync from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'

export interface SavedRunner {
  url: string
  id: number
  token: string
}

const STATE_FILE = 'runner.json'

export async function readSavedRunner(dir: string): Promise<SavedRunner | null> {
  let text: string
  try {
    text = await fs.readFile(path.join(dir, STATE_FILE), 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw err
  }
  const saved = JSON.parse(text) as Partial<SavedRunner>
  if (typeof saved.url !== 'string' || typeof saved.id !== 'number' || typeof saved.token !== 'string') return null
  return { url: saved.url, id: saved.id, token: saved.token }
}

export async function saveRunner(dir: string, runner: SavedRunner): Promise<void> {
  const file = path.join(dir, STATE_FILE)
  const temporary = `${file}.${process.pid}.tmp`
  await fs.writeFile(temporary, `${JSON.stringify(runner)}\n`, { mode: 0o600 })
  await fs.rename(temporary, file)
}

const LOCK_FILE = 'runner.pid'

/**
 * Takes the directory for this process: false when a live process holds it. A lock left by a
 * dead process is taken over (by one process only, when several try at once).
 */
export async function lockDirectory(dir: string): Promise<boolean> {
  const file = path.join(dir, LOCK_FILE)
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      await fs.writeFile(file, `${process.pid}\n`, { flag: 'wx', mode: 0o600 })
      process.once('exit', () => {
        try {
          fsSync.unlinkSync(file)
        } catch {
          // gone already
        }
      })
      return true
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
    }
    const holder = Number((await fs.readFile(file, 'utf8').catch(() => '')).trim())
    if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && processLives(holder)) return false
    await fs.rm(file, { force: true })
  }
  return false
}

function processLives(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}
