// Tags and releases (spec: Tags and releases): list (`order_by` name|updated, `sort`) and get
// (anonymous on public projects), create (lightweight or annotated, with its release; errors
// answer 405 as the spec says) and delete (Developer; the push rules decide), and the release of a
// tag: POST (201, 409 when there is one) and PUT.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { Release, Tag, presentRelease, presentTag } from '../../entities/tag.js'
import { findTag, listTags } from '../../finders/tags-finder.js'
import { findTagRef } from '../../git/tags.js'
import { createTag } from '../../services/tags/create-tag.js'
import { deleteTag } from '../../services/tags/delete-tag.js'
import { createRelease, updateRelease } from '../../services/tags/releases.js'
import { apiError, notFound } from '../../common/errors.js'
import { loadProjectFor, requireActor } from '../load.js'
import { setPaginationHeaders } from '../pagination.js'
import { IdParams, OneOf, Pagination, SortParam } from '../params.js'
import { checkUnmodifiedSince } from '../preconditions.js'

const TagParams = Type.Composite([IdParams, Type.Object({ tag_name: Type.String() })])
const ListQuery = Type.Composite([Pagination, Type.Object({
  order_by: OneOf(['name', 'updated'] as const, { default: 'updated' }),
  sort: SortParam('desc'),
})])
const CreateBody = Type.Object({
  tag_name: Type.String(),
  ref: Type.String({ description: 'A commit SHA, tag name or branch name' }),
  message: Type.Optional(Type.String({ description: 'Makes an annotated tag' })),
  release_description: Type.Optional(Type.String()),
})
const ReleaseBody = Type.Object({ description: Type.String() })

const tagDoesNotExist = () => apiError(404, 'Tag does not exist')

const tags: FastifyPluginAsyncTypebox = async (app) => {
  const base = '/projects/:id/repository/tags'

  app.get(base, {
    schema: { params: IdParams, querystring: ListQuery, response: { 200: Type.Array(Tag) } },
    config: { auth: 'optional' },
  }, async (req, reply) => {
    const subject = await loadProjectFor(req, req.params.id, 'download_code')
    const page = await listTags(req.ingot, subject.project.id, {
      orderBy: req.query.order_by === 'name' ? 'name' : 'updated', sort: req.query.sort,
    }, req.query)
    setPaginationHeaders(req, reply, page)
    return page.items.map(presentTag)
  })

  app.get(`${base}/:tag_name`, {
    schema: { params: TagParams, response: { 200: Tag } },
    config: { auth: 'optional' },
  }, async (req) => {
    const subject = await loadProjectFor(req, req.params.id, 'download_code')
    const view = await findTag(req.ingot, subject.project.id, req.params.tag_name)
    if (view === null) throw notFound('Tag')
    return presentTag(view)
  })

  app.post(base, {
    schema: { params: IdParams, body: CreateBody, response: { 201: Tag } },
  }, async (req, reply) => {
    const { ingot } = req.server
    const subject = await loadProjectFor(req, req.params.id, 'push_code')
    const { tag_name: name, ref, message, release_description: releaseDescription } = req.body
    await createTag(ingot, subject, requireActor(req), {
      name, ref, ...(message === undefined ? {} : { message }), ...(releaseDescription === undefined ? {} : { releaseDescription }),
    })
    const view = await findTag(ingot, subject.project.id, name)
    if (view === null) throw notFound('Tag')
    reply.code(201)
    return presentTag(view)
  })

  app.delete(`${base}/:tag_name`, {
    schema: { params: TagParams },
  }, async (req, reply) => {
    const { ingot } = req.server
    const subject = await loadProjectFor(req, req.params.id, 'push_code')
    const repo = ingot.repositories.open(subject.project.id)
    const tag = await findTagRef(repo, req.params.tag_name)
    if (tag === null) throw notFound('Tag')
    const commit = tag.commitId === null ? null : await repo.readCommit(tag.commitId)
    if (commit !== null) checkUnmodifiedSince(req, commit.author.time * 1000)
    await deleteTag(ingot, subject, requireActor(req), tag)
    return reply.code(204).send()
  })

  app.post(`${base}/:tag_name/release`, {
    schema: { params: TagParams, body: ReleaseBody, response: { 201: Release } },
  }, async (req, reply) => {
    const { ingot } = req.server
    const subject = await loadProjectFor(req, req.params.id, 'push_code')
    const tag = await findTagRef(ingot.repositories.open(subject.project.id), req.params.tag_name)
    if (tag === null) throw tagDoesNotExist()
    const release = await createRelease(ingot.db, {
      projectId: subject.project.id, tag: tag.name, description: req.body.description, authorId: requireActor(req).user.id,
    })
    reply.code(201)
    return presentRelease(release)
  })

  app.put(`${base}/:tag_name/release`, {
    schema: { params: TagParams, body: ReleaseBody, response: { 200: Release } },
  }, async (req) => {
    const { ingot } = req.server
    const subject = await loadProjectFor(req, req.params.id, 'push_code')
    const tag = await findTagRef(ingot.repositories.open(subject.project.id), req.params.tag_name)
    if (tag === null) throw tagDoesNotExist()
    return presentRelease(await updateRelease(ingot.db, subject.project.id, tag.name, req.body.description))
  })
}

export default tags
