// Mounts every resource of /api/v4: the whole API surface, readable in one file.
import type { FastifyPluginAsync } from 'fastify'
import customAttributes from './custom-attributes.js'
import events from './events.js'
import groups from './groups.js'
import impersonationTokens from './impersonation-tokens.js'
import members from './members.js'
import namespaces from './namespaces.js'
import projects from './projects.js'
import repository from './repository.js'
import users from './users.js'
import version from './version.js'

const apiV4: FastifyPluginAsync = async (app) => {
  await app.register(customAttributes)
  await app.register(events)
  await app.register(groups)
  await app.register(impersonationTokens)
  await app.register(members)
  await app.register(namespaces)
  await app.register(projects)
  await app.register(repository)
  await app.register(users)
  await app.register(version)
}

export default apiV4
