// Branches (spec: Branches): list and get (anonymous on public projects), HEAD of one branch as
// the original answers it (204/404), create and delete (Developer; the push rules decide, 400 with
// their sentence), delete of merged branches (202), and the deprecated protect/unprotect
// (Maintainer; idempotent). A name git could not hold is 400 "The branch refname is invalid", an
// unknown one 404 "Branch Not Found", as the original's find_branch!.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { Branch, presentBranch, type BranchView } from '../../entities/branch.js'
import { MessageBody } from '../../entities/common.js'
import { branchViewOf, listBranches } from '../../finders/branches-finder.js'
import { findBranchTip, type BranchTip } from '../../git/branches.js'
import type { GitRepository } from '../../git/repository.js'
import { canOnProject } from '../../policies/project-policy.js'
import { createBranch } from '../../services/branches/create-branch.js'
import { deleteBranch } from '../../services/branches/delete-branch.js'
import { deleteMergedBranches } from '../../services/branches/delete-merged-branches.js'
import { protectBranch, unprotectBranch } from '../../services/branches/protect-branch.js'
import { isCreatableRefName } from '../../services/push/move-refs.js'
import { apiError, notFound } from '../../common/errors.js'
import { authorize, loadProject, loadProjectFor, requireActor } from '../load.js'
import { setPaginationHeaders } from '../pagination.js'
import { BooleanParam, IdParams, Pagination, SearchParam } from '../params.js'
import { checkUnmodifiedSince } from '../preconditions.js'

const BranchParams = Type.Composite([IdParams, Type.Object({ branch: Type.String() })])
const ListQuery = Type.Composite([Pagination, Type.Object({ search: Type.Optional(SearchParam()) })])
const CreateBody = Type.Object({
  branch: Type.String({ description: 'The name of the new branch' }),
  ref: Type.String({ description: 'The branch name or commit SHA to create it from' }),
})
const ProtectBody = Type.Object({
  developers_can_push: Type.Optional(BooleanParam()),
  developers_can_merge: Type.Optional(BooleanParam()),
})

/** The branch named in the path: 400 for a name no branch can have, 404 for an unknown one. */
async function loadBranchTip(repo: GitRepository, name: string): Promise<BranchTip> {
  if (!isCreatableRefName(name)) throw apiError(400, 'The branch refname is invalid')
  const tip = await findBranchTip(repo, name)
  if (tip === null) throw notFound('Branch')
  return tip
}

function found(view: BranchView | null): BranchView {
  if (view === null) throw notFound('Branch')
  return view
}

const branches: FastifyPluginAsyncTypebox = async (app) => {
  const base = '/projects/:id/repository/branches'

  app.get(base, {
    schema: { params: IdParams, querystring: ListQuery, response: { 200: Type.Array(Branch) } },
    config: { auth: 'optional' },
  }, async (req, reply) => {
    const subject = await loadProjectFor(req, req.params.id, 'download_code')
    const page = await listBranches(req.ingot, subject, req.actor, { search: req.query.search }, req.query)
    setPaginationHeaders(req, reply, page)
    return page.items.map(presentBranch)
  })

  app.head(`${base}/:branch`, {
    schema: { params: BranchParams },
    config: { auth: 'optional' },
  }, async (req, reply) => {
    const subject = await loadProjectFor(req, req.params.id, 'download_code')
    const tip = await findBranchTip(req.ingot.repositories.open(subject.project.id), req.params.branch)
    return reply.code(tip === null ? 404 : 204).send()
  })

  app.get(`${base}/:branch`, {
    schema: { params: BranchParams, response: { 200: Branch } },
    config: { auth: 'optional' },
    exposeHeadRoute: false,
  }, async (req) => {
    const { ingot } = req.server
    const subject = await loadProjectFor(req, req.params.id, 'download_code')
    const tip = await loadBranchTip(ingot.repositories.open(subject.project.id), req.params.branch)
    return presentBranch(found(await branchViewOf(ingot, subject, req.actor, tip)))
  })

  app.post(base, {
    schema: { params: IdParams, body: CreateBody, response: { 201: Branch } },
  }, async (req, reply) => {
    const { ingot } = req.server
    const subject = await loadProjectFor(req, req.params.id, 'push_code')
    const tip = await createBranch(ingot, subject, requireActor(req), req.body.branch, req.body.ref)
    reply.code(201)
    return presentBranch(found(await branchViewOf(ingot, subject, req.actor, tip)))
  })

  app.delete(`${base}/:branch`, {
    schema: { params: BranchParams },
  }, async (req, reply) => {
    const { ingot } = req.server
    const subject = await loadProjectFor(req, req.params.id, 'push_code')
    const repo = ingot.repositories.open(subject.project.id)
    const tip = await loadBranchTip(repo, req.params.branch)
    const commit = await repo.readCommit(tip.commitId)
    if (commit !== null) checkUnmodifiedSince(req, commit.author.time * 1000)
    await deleteBranch(ingot, subject, requireActor(req), tip)
    return reply.code(204).send()
  })

  app.delete('/projects/:id/repository/merged_branches', {
    schema: { params: IdParams, response: { 202: MessageBody } },
  }, async (req, reply) => {
    const subject = await loadProjectFor(req, req.params.id, 'push_code')
    await deleteMergedBranches(req.ingot, subject, requireActor(req))
    return reply.code(202).send({ message: '202 Accepted' })
  })

  // The deprecated endpoints the protected branches API replaced.
  app.put(`${base}/:branch/protect`, {
    schema: { params: BranchParams, body: ProtectBody, response: { 200: Branch } },
  }, async (req) => {
    const { ingot } = req.server
    const subject = await loadProject(req, req.params.id)
    authorize(canOnProject(req.actor, subject, 'admin_project'))
    const tip = await loadBranchTip(ingot.repositories.open(subject.project.id), req.params.branch)
    await protectBranch(ingot.db, subject.project.id, tip.name, {
      developersCanPush: req.body.developers_can_push,
      developersCanMerge: req.body.developers_can_merge,
    })
    return presentBranch(found(await branchViewOf(ingot, subject, req.actor, tip)))
  })

  app.put(`${base}/:branch/unprotect`, {
    schema: { params: BranchParams, response: { 200: Branch } },
  }, async (req) => {
    const { ingot } = req.server
    const subject = await loadProject(req, req.params.id)
    authorize(canOnProject(req.actor, subject, 'admin_project'))
    const tip = await loadBranchTip(ingot.repositories.open(subject.project.id), req.params.branch)
    await unprotectBranch(ingot.db, subject.project.id, tip.name)
    return presentBranch(found(await branchViewOf(ingot, subject, req.actor, tip)))
  })
}

export default branches
