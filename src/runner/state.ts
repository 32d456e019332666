// What the runner keeps between starts, in its own directory (never shown to a job): the runner
// token it registered for, and the server it belongs to. Written with mode 0600 through a rename,
// so a crash leaves the old file or the new one, never half of one.
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
