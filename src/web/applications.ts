// OAuth applications on the web, at the original's URLs: a user's own (/oauth/applications, listed
// at /profile/applications with the applications they authorized; only while
// user_oauth_applications is on) and the administrator's instance-wide ones (/admin/applications).
// The two areas are one set of routes over the applications service: what differs is who may enter,
// whose applications they see (404 for anyone else's), and the Trusted box. The secret is shown in
// the answer to the create or renew that made it, never again (only its digest is kept).
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { OAUTH_SCOPES } from '../auth/actor.js'
import type { OauthApplicationRow } from '../db/schema.js'
import { grantableScopes } from '../policies/user-policy.js'
import {
  authorizedApplications, createApplication, deleteApplication, findApplicationById, listApplications,
  regenerateApplicationSecret, revokeAuthorization, updateApplication, type ApplicationInput,
} from '../services/oauth/applications.js'
import {
  BLANK_APPLICATION, adminApplicationsPage, applicationFormPage, applicationPage, profileApplicationsPage, valuesOf,
  type ApplicationArea, type ApplicationValues,
} from './application-pages.js'
import {
  WEB, formListOf, formMethod, formOf, forSignedIn, idParam, redirect, refusalOf, sendNotFound, sendPage, tokenOf,
  type SignedInHandler, type SignedInVisit,
} from './visit.js'

const PROFILE_AREA: ApplicationArea = { path: '/oauth/applications', listPath: '/profile/applications', admin: false }
const ADMIN_AREA: ApplicationArea = { path: '/admin/applications', listPath: '/admin/applications', admin: true }

/** Who may enter an area, and whose applications it holds. */
interface AreaRules {
  area: ApplicationArea
  open(visit: SignedInVisit): boolean
  /** The owner of the area's applications: the user, or null for the instance's. */
  ownerId(visit: SignedInVisit): number | null
}

const PROFILE_RULES: AreaRules = {
  area: PROFILE_AREA,
  open: (visit) => visit.settings.user_oauth_applications,
  ownerId: (visit) => visit.session.user.id,
}

const ADMIN_RULES: AreaRules = {
  area: ADMIN_AREA,
  open: (visit) => visit.session.user.admin === 1,
  ownerId: () => null,
}

/** The scopes the form offers to this user (sudo to administrators only). */
function offeredScopes(visit: SignedInVisit): readonly string[] {
  return grantableScopes(visit.session.user, OAUTH_SCOPES)
}

/** What the application form sent: a scope it does not offer counts as unticked, as does Trusted outside the admin's area. */
function sentValues(req: FastifyRequest, visit: SignedInVisit, area: ApplicationArea): ApplicationValues {
  const form = formOf(req, 'doorkeeper_application')
  const offered = offeredScopes(visit)
  return {
    name: form.name ?? '',
    redirectUri: form.redirect_uri ?? '',
    scopes: formListOf(req, 'doorkeeper_application', 'scopes').filter((scope) => offered.includes(scope)),
    trusted: area.admin && form.trusted === '1',
  }
}

function serviceInput(values: ApplicationValues, area: ApplicationArea): ApplicationInput & { trusted?: boolean } {
  const input = { name: values.name, redirectUri: values.redirectUri, scopes: values.scopes.join(' ') }
  return area.admin ? { ...input, trusted: values.trusted } : input
}

const applications: FastifyPluginAsync = async (app) => {
  const profileApplications = async (
    reply: FastifyReply, visit: SignedInVisit, form: { values?: ApplicationValues; errors?: string[] } = {},
  ) => {
    const { db } = app.ingot
    const { user } = visit.session
    const own = PROFILE_RULES.open(visit) ? {
      applications: await listApplications(db, { ownerId: user.id }),
      form: { scopes: offeredScopes(visit), values: form.values ?? BLANK_APPLICATION, errors: form.errors },
    } : null
    return sendPage(reply, visit, 200, profileApplicationsPage({
      user, csrfToken: tokenOf(visit), area: PROFILE_AREA, own, authorized: await authorizedApplications(db, user.id),
    }))
  }
  const showProfileApplications = forSignedIn(async (_req, reply, visit) => profileApplications(reply, visit))
  app.get('/profile/applications', WEB, showProfileApplications)
  app.get('/oauth/applications', WEB, showProfileApplications)

  app.post('/oauth/authorized_applications/:id', WEB, forSignedIn(async (req, reply, visit) => {
    const id = idParam(req)
    if (formMethod(req) !== 'DELETE' || id === null) return sendNotFound(reply, visit)
    await revokeAuthorization(app.ingot.db, visit.session.user.id, id)
    return redirect(reply, visit, PROFILE_AREA.listPath)
  }))

  app.get(ADMIN_AREA.listPath, WEB, forSignedIn(async (_req, reply, visit) => {
    if (!ADMIN_RULES.open(visit)) return sendNotFound(reply, visit)
    const applications = await listApplications(app.ingot.db, { ownerId: null })
    return sendPage(reply, visit, 200, adminApplicationsPage({ user: visit.session.user, csrfToken: tokenOf(visit), area: ADMIN_AREA, applications }))
  }))

  registerApplicationPages(app, PROFILE_RULES, (reply, visit, values, errors) => profileApplications(reply, visit, { values, errors }))
  registerApplicationPages(app, ADMIN_RULES)
}

export default applications

type RefusedCreation = (reply: FastifyReply, visit: SignedInVisit, values: ApplicationValues, errors: string[]) => Promise<FastifyReply>

/**
 * new, create, show, edit, update, destroy and renew under the area's path. A refused new
 * application is shown again on the new page, or by `refusedCreation` (a user's, on their list).
 */
function registerApplicationPages(app: FastifyInstance, rules: AreaRules, refusedCreation?: RefusedCreation): void {
  const { area } = rules
  /** The area's page, for a visitor allowed in: everyone else is answered 404. */
  const inArea = (handler: SignedInHandler) => forSignedIn(async (req, reply, visit) =>
    rules.open(visit) ? handler(req, reply, visit) : sendNotFound(reply, visit))
  /** The area's application the path names, for a visitor allowed in: anything else is answered 404. */
  type ApplicationHandler = (req: FastifyRequest, reply: FastifyReply, visit: SignedInVisit, application: OauthApplicationRow) => Promise<FastifyReply>
  const withApplication = (handler: ApplicationHandler) =>
    inArea(async (req, reply, visit) => {
      const id = idParam(req)
      const application = id === null ? null : await findApplicationById(app.ingot.db, id)
      if (application === null || application.owner_id !== rules.ownerId(visit)) return sendNotFound(reply, visit)
      return handler(req, reply, visit, application)
    })
  const show = (reply: FastifyReply, visit: SignedInVisit, application: OauthApplicationRow, extra: { secret?: string; notice?: string } = {}) =>
    sendPage(reply, visit, 200, applicationPage({ user: visit.session.user, csrfToken: tokenOf(visit), area, application, ...extra }))
  const formPage = (
    reply: FastifyReply, visit: SignedInVisit, values: ApplicationValues, application?: OauthApplicationRow, errors?: string[],
  ) => sendPage(reply, visit, 200, applicationFormPage({
      user: visit.session.user, csrfToken: tokenOf(visit), area, scopes: offeredScopes(visit), values, errors, application,
    }))

  app.get(`${area.path}/new`, WEB, inArea(async (_req, reply, visit) => formPage(reply, visit, BLANK_APPLICATION)))

  app.post(area.path, WEB, inArea(async (req, reply, visit) => {
    const values = sentValues(req, visit, area)
    try {
      const { application, secret } = await createApplication(app.ingot.db, { ...serviceInput(values, area), ownerId: rules.ownerId(visit) })
      return await show(reply, visit, application, { secret, notice: 'The application was created.' })
    } catch (err) {
      const errors = refusalOf(err)
      return refusedCreation === undefined
        ? formPage(reply, visit, values, undefined, errors)
        : refusedCreation(reply, visit, values, errors)
    }
  }))

  app.get(`${area.path}/:id`, WEB, withApplication(async (_req, reply, visit, application) => show(reply, visit, application)))

  app.get(`${area.path}/:id/edit`, WEB, withApplication(async (_req, reply, visit, application) =>
    formPage(reply, visit, valuesOf(application), application)))

  app.post(`${area.path}/:id`, WEB, withApplication(async (req, reply, visit, application) => {
    const method = formMethod(req)
    if (method === 'DELETE') {
      await deleteApplication(app.ingot.db, application)
      return redirect(reply, visit, area.listPath)
    }
    if (method !== 'PUT' && method !== 'PATCH') return sendNotFound(reply, visit)
    const values = sentValues(req, visit, area)
    try {
      const updated = await updateApplication(app.ingot.db, application, serviceInput(values, area))
      return await show(reply, visit, updated, { notice: 'The application was updated.' })
    } catch (err) {
      return formPage(reply, visit, values, application, refusalOf(err))
    }
  }))

  app.post(`${area.path}/:id/renew`, WEB, withApplication(async (_req, reply, visit, application) => {
    const secret = await regenerateApplicationSecret(app.ingot.db, application)
    return show(reply, visit, application, { secret, notice: 'The secret was renewed.' })
  }))
}
