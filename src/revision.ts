// Which Ingot this is: the API release it answers as, and the commit it runs from (short SHA), read
// once from its own checkout ("unknown" elsewhere).
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { checkedOutRevision } from './git/checkout.js'

/** The release of the original whose v4 API Ingot answers as (GET /version), so clients that gate features on it behave. */
export const COMPATIBLE_VERSION = '11.5.0'

const installDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

let revision: Promise<string> | null = null

export function ingotRevision(): Promise<string> {
  revision ??= checkedOutRevision(installDir).then((id) => id || 'unknown', () => 'unknown')
  return revision
}
