// Keys an instance makes at its first start and keeps in the data directory (the secret box's key,
// the OpenID Connect signing key). Several processes starting at once agree on one file: each
// writes its own aside (mode 0600) and links it into place, which only the first one does.
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

/** The file's contents, written first with `make()` when the file does not exist yet. */
export function readOrCreateKeyFile(file: string, make: () => string): string {
  if (!fs.existsSync(file)) {
    fs.mkdirSync(path.dirname(file), { recursive: true })
    const aside = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`
    fs.writeFileSync(aside, make(), { mode: 0o600, flag: 'wx' })
    try {
      fs.linkSync(aside, file)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
    } finally {
      fs.unlinkSync(aside)
    }
  }
  return fs.readFileSync(file, 'utf8')
}
