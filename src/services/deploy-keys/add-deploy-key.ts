// Adds a deploy key to a project (POST /projects/:id/deploy_keys) the original's three ways: a key
// the project holds already is answered as it is; a key the user may enable (public, or on a
// project they maintain) is enabled with the given can_push; any other key is made anew, under
// the checks of users' keys, so a key some user or project holds already is refused (400
// "fingerprint has already been taken"). A key is the same key whatever its comment: it is found
// by its fingerprint. Errors are named deploy_key.<field>, as the original's nested model names them.
import type { Db } from '../../db/index.js'
import { validationFailed, type FieldErrors } from '../../common/errors.js'
import type { ProjectDeployKey } from '../../entities/deploy-key.js'
import { findEnableableDeployKey, findProjectDeployKeyByFingerprint } from '../../finders/deploy-keys-finder.js'
import { flag } from '../../db/values.js'
import { checkNewKey, fingerprintTaken, parseSshPublicKey } from '../ssh-keys/add-ssh-key.js'
import { linkDeployKey } from './enable-deploy-key.js'

export interface AddDeployKeyInput {
  title: string
  key: string
  can_push?: boolean
}

/** A deploy key's field errors, named as the original's nested attributes name them. */
export function deployKeyErrors(errors: FieldErrors): FieldErrors {
  return Object.fromEntries(Object.entries(errors).map(([field, messages]) => [`deploy_key.${field}`, messages]))
}

export async function addDeployKey(db: Db, projectId: number, userId: number, input: AddDeployKeyInput): Promise<ProjectDeployKey> {
  const canPush = input.can_push ?? false
  const parsed = await parseSshPublicKey(input.key)
  if (parsed !== null) {
    const held = await findProjectDeployKeyByFingerprint(db, projectId, parsed.fingerprint)
    if (held !== null) return held
    const enableable = await findEnableableDeployKey(db, userId, { fingerprint: parsed.fingerprint })
    if (enableable !== null) return linkDeployKey(db, enableable, projectId, canPush)
  }
  const check = await checkNewKey(db, input)
  if (!check.ok) throw validationFailed(deployKeyErrors(check.errors))
  const { parsed: key } = check
  const now = Date.now()
  try {
    return await db.transaction().execute(async (trx) => {
      const row = await trx.insertInto('deploy_keys').values({
        title: input.title,
        key: key.key,
        fingerprint: key.fingerprint,
        key_type: key.type,
        key_bits: key.bits,
        user_id: userId,
        created_at: now,
        updated_at: now,
      }).returningAll().executeTakeFirstOrThrow()
      const link = await trx.insertInto('deploy_keys_projects')
        .values({ deploy_key_id: row.id, project_id: projectId, can_push: flag(canPush), created_at: now, updated_at: now })
        .returningAll().executeTakeFirstOrThrow()
      return { key: row, link }
    })
  } catch (err) {
    // The same key added concurrently.
    if (await fingerprintTaken(db, key.fingerprint)) throw validationFailed(deployKeyErrors({ fingerprint: ['has already been taken'] }))
    throw err
  }
}
