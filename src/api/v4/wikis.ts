// Project wikis (spec: Wikis): pages of the wiki repository listed (with `with_content`; paginated,
// as every list, with only the page's contents read), read by
// slug (`dir%2Fpage` for pages in directories), created, updated (a new title moves the file),
// deleted, and attachments uploaded into it. Reading needs read_wiki, writing create_wiki
// (Developer), deleting admin_wiki (Maintainer), each 403 when the project is readable but the
// ability missing (a disabled wiki too, as the original's authorize!), 404 for unreadable projects.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { missingOneOf, notFound } from '../../common/errors.js'
import { loadProjectFor, requireActor } from '../load.js'
import { BooleanParam, FileParam, IdParams, OneOf, Pagination } from '../params.js'
import { pageParams } from '../../common/pages.js'
import { setPaginationHeaders } from '../pagination.js'
import {
  WIKI_FORMATS, type WikiFormat, findWikiPage, listWikiPages, readPageContent, wikiTip, withPageContents,
} from '../../finders/wiki-pages-finder.js'
import { createWikiPage, deleteWikiPage, updateWikiPage } from '../../services/wikis/write-wiki-page.js'
import { createWikiAttachment } from '../../services/wikis/create-wiki-attachment.js'
import {
  WikiAttachment, WikiPage, WikiPageListed, presentWikiAttachment, presentWikiPage, presentWikiPageListed,
} from '../../entities/wiki-page.js'

const SlugParams = Type.Composite([IdParams, Type.Object({ slug: Type.String({ minLength: 1 }) })])

const CreateBody = Type.Object({
  title: Type.String(),
  content: Type.String(),
  format: OneOf<WikiFormat>(WIKI_FORMATS, { default: 'markdown' }),
})

const UpdateBody = Type.Object({
  title: Type.Optional(Type.String()),
  content: Type.Optional(Type.String()),
  format: Type.Optional(OneOf<WikiFormat>(WIKI_FORMATS, { description: "Default: the page's current format" })),
})

const AttachmentBody = Type.Object({
  file: FileParam({ description: 'The file, as a multipart/form-data part' }),
  branch: Type.Optional(Type.String({ description: "Default: the wiki's default branch, master" })),
})

const wikis: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/projects/:id/wikis', {
    config: { auth: 'optional' },
    schema: {
      params: IdParams,
      querystring: Type.Composite([Type.Object({ with_content: BooleanParam({ default: false }) }), Pagination]),
      response: { 200: Type.Array(WikiPageListed) },
    },
  }, async (req, reply) => {
    const { project } = await loadProjectFor(req, req.params.id, 'read_wiki')
    const { repositories } = req.ingot
    const tip = await wikiTip(repositories, project.id)
    const wiki = repositories.openWiki(project.id)
    const pages = tip === null ? [] : await listWikiPages(wiki, tip)
    const { page, perPage } = pageParams(req.query)
    const items = pages.slice((page - 1) * perPage, page * perPage)
    setPaginationHeaders(req, reply, { items, total: pages.length, page, perPage })
    return (await withPageContents(wiki, items, req.query.with_content)).map(presentWikiPageListed)
  })

  app.get('/projects/:id/wikis/:slug', {
    config: { auth: 'optional' },
    schema: { params: SlugParams, response: { 200: WikiPage } },
  }, async (req) => {
    const { project } = await loadProjectFor(req, req.params.id, 'read_wiki')
    const { repositories } = req.ingot
    const tip = await wikiTip(repositories, project.id)
    const repo = repositories.openWiki(project.id)
    const page = tip === null ? null : await findWikiPage(repo, tip, req.params.slug)
    if (page === null) throw notFound('Wiki Page')
    return presentWikiPage({ ...page, content: await readPageContent(repo, page) })
  })

  app.post('/projects/:id/wikis', {
    schema: { params: IdParams, body: CreateBody, response: { 201: WikiPage } },
  }, async (req, reply) => {
    const loaded = await loadProjectFor(req, req.params.id, 'create_wiki')
    const page = await createWikiPage(req.ingot, loaded, requireActor(req), req.body)
    return reply.code(201).send(presentWikiPage(page))
  })

  app.post('/projects/:id/wikis/attachments', {
    // Who may attach is decided before the body is read: an outsider's file is never taken in.
    preParsing: async (req, _reply, body) => {
      await loadProjectFor(req, (req.params as { id: string }).id, 'create_wiki')
      return body
    },
    schema: { params: IdParams, body: AttachmentBody, response: { 201: WikiAttachment } },
  }, async (req, reply) => {
    const loaded = await loadProjectFor(req, req.params.id, 'create_wiki')
    const { file, branch } = req.body
    const attachment = await createWikiAttachment(req.ingot, loaded, requireActor(req), {
      file, ...(branch === undefined ? {} : { branch }),
    })
    return reply.code(201).send(presentWikiAttachment(attachment))
  })

  app.put('/projects/:id/wikis/:slug', {
    schema: { params: SlugParams, body: UpdateBody, response: { 200: WikiPage } },
  }, async (req) => {
    const { title, content, format } = req.body
    if (title === undefined && content === undefined) throw missingOneOf('content', 'title')
    const loaded = await loadProjectFor(req, req.params.id, 'create_wiki')
    const page = await updateWikiPage(req.ingot, loaded, requireActor(req), req.params.slug, {
      ...(title === undefined ? {} : { title }),
      ...(content === undefined ? {} : { content }),
      ...(format === undefined ? {} : { format }),
    })
    return presentWikiPage(page)
  })

  app.delete('/projects/:id/wikis/:slug', {
    schema: { params: SlugParams },
  }, async (req, reply) => {
    const loaded = await loadProjectFor(req, req.params.id, 'admin_wiki')
    await deleteWikiPage(req.ingot, loaded, requireActor(req), req.params.slug)
    return reply.code(204).send()
  })
}

export default wikis
