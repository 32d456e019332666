// Impersonation, as the original's admin area does it (Admin::UsersController#impersonate and
// Admin::ImpersonationsController): an administrator's session is replaced by one as the user that
// remembers the administrator (sessions.impersonator_id); stopping replaces it by a new session of
// the administrator's own. Neither records a sign-in. Who is impersonated is the user to every page
// and to the API (auth/sessions.ts).
import type { ActiveSession } from '../../auth/sessions.js'
import type { Db } from '../../db/index.js'
import type { UserRow } from '../../db/schema.js'
import { apiError } from '../../common/errors.js'
import { getApplicationSettings } from '../settings.js'
import { insertSession, type NewSession } from './sign-in.js'

/** The original's refusals (a user who cannot log in), and impersonating oneself or from an impersonation. */
function impersonationRefusal(admin: ActiveSession, user: UserRow): string | null {
  if (admin.impersonator !== null) return 'You are impersonating a user already: stop impersonating first'
  if (user.id === admin.user.id) return 'You cannot impersonate yourself'
  if (user.state === 'blocked') return 'You cannot impersonate a blocked user'
  if (user.ghost === 1) return 'You cannot impersonate an internal user'
  return null
}

/** Ends the administrator's session and starts one as `user`; 403 with the reason when refused. */
export async function startImpersonation(db: Db, admin: ActiveSession, user: UserRow): Promise<NewSession> {
  if (admin.user.admin !== 1) throw apiError(403, 'Only administrators impersonate')
  const refusal = impersonationRefusal(admin, user)
  if (refusal !== null) throw apiError(403, refusal)
  const settings = await getApplicationSettings(db)
  return db.transaction().execute(async (trx) => {
    await trx.deleteFrom('sessions').where('id', '=', admin.session.id).execute()
    return insertSession(trx, settings, user.id, admin.user.id)
  })
}

/** Ends an impersonation: the administrator gets a session of their own back; null when `session` is no impersonation. */
export async function stopImpersonation(db: Db, session: ActiveSession): Promise<NewSession | null> {
  const { impersonator } = session
  if (impersonator === null) return null
  const settings = await getApplicationSettings(db)
  return db.transaction().execute(async (trx) => {
    await trx.deleteFrom('sessions').where('id', '=', session.session.id).execute()
    return insertSession(trx, settings, impersonator.id)
  })
}
