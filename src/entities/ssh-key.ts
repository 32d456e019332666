// SSH key entity (spec: User, SSH key): id, title, key, created_at; deploy keys are shown with it too.
import { Type, type Static } from '@sinclair/typebox'
import type { SshKeyRow } from '../db/schema.js'
import { isoTime } from '../db/values.js'
import { IsoDateTime } from './common.js'

export const SshKey = Type.Object({
  id: Type.Integer(),
  title: Type.String(),
  key: Type.String(),
  created_at: IsoDateTime,
})
export type SshKeyEntity = Static<typeof SshKey>

export function presentSshKey(key: Pick<SshKeyRow, 'id' | 'title' | 'key' | 'created_at'>): SshKeyEntity {
  return { id: key.id, title: key.title, key: key.key, created_at: isoTime(key.created_at) }
}
