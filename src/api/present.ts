// The presentation context of a request: the caller and the base URLs entities build links from.
import type { FastifyRequest } from 'fastify'
import { presentContext, type PresentContext } from '../entities/common.js'
import { currentSshUrlPrefix } from '../services/git-access/ssh-url.js'

export function presentCtx(req: FastifyRequest): PresentContext {
  return presentContext(req.ingot.config.externalUrl, req.actor, { sshUrlPrefix: currentSshUrlPrefix(req.ingot), lfsEnabled: req.ingot.config.lfsEnabled })
}
