// Impersonation at the original's URLs: POST `/admin/users/:username/impersonate` replaces the
// administrator's session by one as the user (refused, on the user's page, for a blocked user,
// yourself, or from an impersonation already), and the banner every page then shows (visit.ts)
// posts `_method=delete` to `/admin/impersonation`, which gives the administrator their own session
// back and shows them the user's admin page. The sessions are services/sessions/impersonate.ts'.
import type { FastifyPluginAsync } from 'fastify'
import { startImpersonation, stopImpersonation } from '../../services/sessions/impersonate.js'
import { SIGN_IN_PATH, rejectedPage } from '../pages.js'
import { WEB, csrfVerified, formMethod, redirect, refusalOf, sendNotFound, sendPage, signedIn, visitOf } from '../visit.js'
import { forAdmin, userOfPath } from './layout.js'
import { adminUserPage, adminUserPath } from './users.js'

const impersonationPages: FastifyPluginAsync = async (app) => {
  app.post('/admin/users/:username/impersonate', WEB, forAdmin(async (req, reply, visit) => {
    const user = await userOfPath(req)
    if (user === null) return sendNotFound(reply, visit)
    let session
    try {
      session = await startImpersonation(req.ingot.db, visit.session, user)
    } catch (err) {
      return adminUserPage(req, reply, visit, user, refusalOf(err).join(' '))
    }
    // As the original's AppLogger line: who acts as whom is on record.
    req.log.info({ impersonator: visit.session.user.username, user: user.username }, 'impersonation started')
    signedIn(visit, session.secret, session.expiresAt)
    return redirect(reply, visit, '/')
  }))

  // Taken from the impersonated user's session, which is no administrator's, and before the terms
  // that user may have to accept: only an impersonation may stop, and it always can.
  app.post('/admin/impersonation', WEB, async (req, reply) => {
    const visit = await visitOf(req)
    if (visit.session === null) return redirect(reply, visit, SIGN_IN_PATH)
    if (!csrfVerified(req, visit)) return sendPage(reply, visit, 422, rejectedPage())
    const impersonated = visit.session.user
    const session = formMethod(req) === 'DELETE' ? await stopImpersonation(req.ingot.db, visit.session) : null
    if (session === null) return sendNotFound(reply, visit)
    req.log.info({ impersonator: visit.session.impersonator?.username, user: impersonated.username }, 'impersonation stopped')
    signedIn(visit, session.secret, session.expiresAt)
    return redirect(reply, visit, adminUserPath(impersonated))
  })
}

export default impersonationPages
