// Starring and forking from a project's overview: POST `/toggle_star` stars the project for the
// visitor or takes their star back, POST `/forks` forks it into their personal namespace (or the
// namespace `namespace_key` names, where they may create projects), through the API's services;
// then the project, or the fork, is shown.
import type { FastifyReply } from 'fastify'
import { hasStarred as hasStarredProject } from '../../finders/projects-finder.js'
import { canOnProject } from '../../policies/project-policy.js'
import { forkProject } from '../../services/projects/fork-project.js'
import { starProject, unstarProject } from '../../services/projects/star-project.js'
import { csrfField, errorExplanation, html, page, type SafeHtml } from '../html.js'
import { redirect, refusalOf, sendNotFound, sendPage, tokenOf } from '../visit.js'
import { encodePath, projectUrl, type ProjectPage, type ProjectPageRequest } from './context.js'

/** The visitor's star of the project, for the button's label. */
export async function hasStarred(request: ProjectPageRequest): Promise<boolean> {
  return request.visit.session !== null && hasStarredProject(request.req.ingot.db, request.visit.session.user.id, request.loaded.project.id)
}

/** The overview's Star and Fork buttons, for a signed-in visitor. */
export function starAndForkButtons(request: ProjectPageRequest, starred: boolean): SafeHtml {
  if (request.visit.session === null) return html``
  const base = projectUrl(request.loaded)
  const token = tokenOf(request.visit)
  return html`<div class="actions"><form method="post" action="${base}/toggle_star">${csrfField(token)}<button type="submit">${starred ? 'Unstar' : 'Star'}</button></form>
${canOnProject(request.req.actor, request.loaded, 'download_code') ? html`<form method="post" action="${base}/forks">${csrfField(token)}<button type="submit">Fork</button></form>` : ''}</div>`
}

export const toggleStarForm: ProjectPage = async (request) => {
  const { req, reply, visit, loaded, rest } = request
  if (rest.length > 0) return sendNotFound(reply, visit)
  const userId = req.actor!.user.id
  if (await hasStarred(request)) await unstarProject(req.ingot.db, userId, loaded.project.id)
  else await starProject(req.ingot.db, userId, loaded.project.id)
  return redirect(reply, visit, projectUrl(loaded))
}

export const forkForm: ProjectPage = async (request): Promise<FastifyReply> => {
  const { req, reply, visit, loaded, rest } = request
  if (rest.length > 0 || !canOnProject(req.actor, loaded, 'download_code')) return sendNotFound(reply, visit)
  const key = (req.body as Record<string, unknown>).namespace_key
  try {
    const { project, namespace } = await forkProject(req.ingot, req.actor!, loaded, { namespace: typeof key === 'string' ? key : undefined })
    return redirect(reply, visit, `/${encodePath(`${namespace.full_path}/${project.path}`)}`)
  } catch (err) {
    return sendPage(reply, visit, 422, page({ title: `Fork ${loaded.project.name}`, user: visit.session?.user ?? null }, html`<h1>Fork ${loaded.project.name}</h1>
${errorExplanation(refusalOf(err))}<p><a href="${projectUrl(loaded)}">Back to the project</a></p>`))
  }
}
