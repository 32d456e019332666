// The admin area at the original's URLs, for administrators alone (everyone else gets the 404
// page, as a missing page; layout.ts): one module per area. OAuth applications are
// ../applications.ts (`/admin/applications`).
import type { FastifyPluginAsync } from 'fastify'
import backgroundJobPages from './background-jobs.js'
import hookPages from './hooks.js'
import impersonationPages from './impersonation.js'
import overviewPages from './overview.js'
import runnerPages from './runners.js'
import settingsPages from './settings.js'
import userPages from './users.js'

const adminPages: FastifyPluginAsync = async (app) => {
  await app.register(overviewPages)
  await app.register(userPages)
  await app.register(impersonationPages)
  await app.register(runnerPages)
  await app.register(backgroundJobPages)
  await app.register(hookPages)
  await app.register(settingsPages)
}

export default adminPages
