// What a runner says of itself with each request (`info`: name, version, revision, platform,
// architecture) and when and from where it last called: kept on its row for the runners' API, but
// written at most once a minute per runner, as a runner polls every few seconds (the original
// caches it and writes far less often too).
import type { Db } from '../../../db/index.js'
import type { CiRunnerRow } from '../../../db/schema.js'

const CONTACT_WRITE_INTERVAL_MS = 60_000
const INFO_FIELDS = ['name', 'version', 'revision', 'platform', 'architecture'] as const

/** `info` as runners send it: a hash of strings (anything else in it is left alone). */
export type RunnerInfo = Record<string, unknown>

export async function recordRunnerContact(db: Db, runner: CiRunnerRow, contact: { info: RunnerInfo | undefined; ipAddress: string }): Promise<void> {
  const now = Date.now()
  if (runner.contacted_at !== null && now - runner.contacted_at < CONTACT_WRITE_INTERVAL_MS) return
  const info: Partial<Record<typeof INFO_FIELDS[number], string>> = {}
  for (const field of INFO_FIELDS) {
    const value = contact.info?.[field]
    if (typeof value === 'string') info[field] = value.slice(0, 255)
  }
  await db.updateTable('ci_runners').set({ ...info, contacted_at: now, ip_address: contact.ipAddress })
    .where('id', '=', runner.id).execute()
}
