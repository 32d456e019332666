// Making a project, for signed-in users, at the original's URLs: `/projects/new` (a blank project:
// name, path, the namespace among those the user may create projects in, description, visibility,
// a README first commit; POST `/projects` through the API's project creation service) and
// `/import/gitlab_project/new` (an export archive uploaded as multipart to POST
// `/import/gitlab_project`, streamed into blob storage as the API's POST /projects/import streams
// it (api/multipart-upload.ts) and handed to the same import service; its size limit and its
// refusals are the form's 422 messages). Both then go to the project, whose page shows the import's
// progress until it is done.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { abandonUpload, declaredTooLarge, multipartBodyOf, multipartBodyParsers, receiveUploadForm } from '../api/multipart-upload.js'
import { mustAcceptTerms } from '../auth/sessions.js'
import { ApiError } from '../common/errors.js'
import type { NamespaceRow, ProjectRow } from '../db/schema.js'
import { findProjectCreationNamespaces } from '../finders/namespaces-finder.js'
import type { Visibility } from '../policies/access-levels.js'
import { importArchiveKey, maxImportBytes, projectImportEnabled } from '../services/import-export/import-project.js'
import { importUploadedArchive } from '../services/import-export/import-upload.js'
import { createProjectIn } from '../services/projects/create-project.js'
import { csrfField, errorExplanation, html, page, type SafeHtml } from './html.js'
import { SIGN_IN_PATH, TERMS_PATH, rejectedPage } from './pages.js'
import { encodePath } from './projects/context.js'
import { VISIBILITY_CHOICES } from './projects/settings.js'
import {
  WEB, actorOf, csrfVerified, forSignedIn, formOf, redirect, refusalOf, rememberReturnTo, sendNotFound, sendPage, tokenOf, visitOf,
  type SignedInVisit,
} from './visit.js'

const NEW_PROJECT_PATH = '/projects/new'
const IMPORT_PATH = '/import/gitlab_project'

interface BlankProjectValues {
  name: string
  path: string
  namespaceId: string
  description: string
  visibility: Visibility
  withReadme: boolean
}

interface ImportValues {
  name: string
  path: string
  namespaceId: string
}

function projectPath(project: ProjectRow, namespace: NamespaceRow): string {
  return `/${encodePath(`${namespace.full_path}/${project.path}`)}`
}

/** The two ways to start a project, the current one marked. */
function newProjectTabs(current: string, imports: boolean): SafeHtml {
  const tabs = [[NEW_PROJECT_PATH, 'Blank project'], ...(imports ? [[`${IMPORT_PATH}/new`, 'Import project']] : [])]
  return html`<nav aria-label="New project"><ul class="actions state-tabs">${tabs.map(([href, label]) => html`<li><a href="${href}"${href === current ? html` aria-current="page"` : ''}>${label}</a></li>`)}</ul></nav>`
}

/** The namespace choice of both forms; the user's own first. */
function namespaceSelect(namespaces: readonly NamespaceRow[], chosen: string, name: string): SafeHtml {
  return html`<label for="namespace_id">Namespace</label><select id="namespace_id" name="${name}">${namespaces.map((namespace) => html`<option value="${namespace.id}"${String(namespace.id) === chosen ? html` selected` : ''}>${namespace.full_path}</option>`)}</select>`
}

async function blankProjectPage(req: FastifyRequest, reply: FastifyReply, visit: SignedInVisit, values: BlankProjectValues, errors: readonly string[] = [], status = 200): Promise<FastifyReply> {
  const namespaces = await findProjectCreationNamespaces(req.ingot.db, actorOf(visit))
  const token = tokenOf(visit)
  return sendPage(reply, visit, status, page({ title: 'New project', user: visit.session.user, csrfToken: token }, html`<h1>New project</h1>
${newProjectTabs(NEW_PROJECT_PATH, await projectImportEnabled(req.ingot))}
${errorExplanation(errors)}
<form class="issuable-form" method="post" action="/projects">${csrfField(token)}
<label for="project_name">Project name</label><input type="text" id="project_name" name="project[name]" value="${values.name}" required>
${namespaceSelect(namespaces, values.namespaceId, 'project[namespace_id]')}
<label for="project_path">Project path (in the URL; taken from the name when blank)</label><input type="text" id="project_path" name="project[path]" value="${values.path}">
<label for="project_description">Description (optional)</label><textarea id="project_description" name="project[description]" rows="3">${values.description}</textarea>
<fieldset><legend>Visibility</legend>${VISIBILITY_CHOICES.map((v) => html`<label class="checkbox"><input type="radio" name="project[visibility]" value="${v.value}"${v.value === values.visibility ? html` checked` : ''}> ${v.label}</label>`)}</fieldset>
<label class="checkbox"><input type="checkbox" name="project[initialize_with_readme]" value="1"${values.withReadme ? html` checked` : ''}> Initialize the repository with a README</label>
<button type="submit">Create project</button></form>`))
}

async function importPage(req: FastifyRequest, reply: FastifyReply, visit: SignedInVisit, values: ImportValues, errors: readonly string[] = [], status = 200): Promise<FastifyReply> {
  const [namespaces, max] = await Promise.all([findProjectCreationNamespaces(req.ingot.db, actorOf(visit)), maxImportBytes(req.ingot)])
  const token = tokenOf(visit)
  return sendPage(reply, visit, status, page({ title: 'Import an exported project', user: visit.session.user, csrfToken: token }, html`<h1>Import an exported project</h1>
${newProjectTabs(`${IMPORT_PATH}/new`, true)}
${errorExplanation(errors)}
<form class="issuable-form" method="post" action="${IMPORT_PATH}" enctype="multipart/form-data">${csrfField(token)}
<label for="name">Project name</label><input type="text" id="name" name="name" value="${values.name}">
${namespaceSelect(namespaces, values.namespaceId, 'namespace_id')}
<label for="path">Project path</label><input type="text" id="path" name="path" value="${values.path}" required>
<label for="file">Export archive (a .tar.gz from Ingot or GitLab${max === null ? '' : `, at most ${Math.round(max / 1024 / 1024)} MB`})</label><input type="file" id="file" name="file" accept=".gz,application/gzip" required>
<button type="submit">Import project</button></form>`))
}

function newBlankValues(visit: SignedInVisit, namespaceId = ''): BlankProjectValues {
  return { name: '', path: '', namespaceId, description: '', visibility: visit.settings.default_project_visibility, withReadme: false }
}

const IMPORT_DISABLED = 'Importing projects from an export archive is disabled on this instance.'
const NO_ARCHIVE = 'Choose an export archive to import.'

function tooLargeMessage(max: number | null): string {
  return `The file is larger than the ${max === null ? '' : `${Math.round(max / 1024 / 1024)} MB `}this instance takes.`
}

/** Why an upload was refused, as the form says it: the API's 413 in words, its 400s as they are. */
function importRefusal(err: unknown, max: number | null): string[] {
  return err instanceof ApiError && err.statusCode === 413 ? [tooLargeMessage(max)] : refusalOf(err)
}

const newProjectPages: FastifyPluginAsync = async (app) => {
  app.get(NEW_PROJECT_PATH, WEB, forSignedIn(async (req, reply, visit) => {
    const asked = (req.query as Record<string, unknown>).namespace_id
    return blankProjectPage(req, reply, visit, newBlankValues(visit, typeof asked === 'string' ? asked : ''))
  }))

  app.post('/projects', WEB, forSignedIn(async (req, reply, visit) => {
    const form = formOf(req, 'project')
    const visibility = VISIBILITY_CHOICES.find((v) => v.value === form.visibility)?.value ?? visit.settings.default_project_visibility
    const values: BlankProjectValues = {
      name: (form.name ?? '').trim(), path: (form.path ?? '').trim(), namespaceId: form.namespace_id ?? '', description: form.description ?? '',
      visibility, withReadme: form.initialize_with_readme === '1',
    }
    if (values.name === '' && values.path === '') return blankProjectPage(req, reply, visit, values, ['Name can\'t be blank'], 422)
    try {
      const { project, namespace } = await createProjectIn(req.ingot, actorOf(visit), {
        ...(values.name === '' ? {} : { name: values.name }), ...(values.path === '' ? {} : { path: values.path }),
        namespaceIdOrPath: values.namespaceId === '' ? undefined : values.namespaceId,
        description: values.description, visibility: values.visibility, withReadme: values.withReadme,
      })
      return redirect(reply, visit, projectPath(project, namespace))
    } catch (err) {
      return blankProjectPage(req, reply, visit, values, refusalOf(err), 422)
    }
  }))

  app.get(`${IMPORT_PATH}/new`, WEB, forSignedIn(async (req, reply, visit) => {
    if (!await projectImportEnabled(req.ingot)) return sendNotFound(reply, visit)
    const asked = (req.query as Record<string, unknown>).namespace_id
    return importPage(req, reply, visit, { name: '', path: '', namespaceId: typeof asked === 'string' ? asked : '' })
  }))

  // The upload is read as it streams, so the form's fields (its CSRF token too) are known only once it is stored.
  await app.register(async (uploads) => {
    multipartBodyParsers(uploads)
    uploads.post(IMPORT_PATH, WEB, async (req, reply) => {
      const ctx = req.ingot
      const body = multipartBodyOf(req)
      const visit = await visitOf(req)
      if (visit.session === null || mustAcceptTerms(visit.session.user, visit.settings)) {
        abandonUpload(reply, body)
        if (visit.session === null) rememberReturnTo(visit, `${IMPORT_PATH}/new`)
        return redirect(reply, visit, visit.session === null ? SIGN_IN_PATH : TERMS_PATH)
      }
      const signedIn = visit as SignedInVisit
      const max = await maxImportBytes(ctx)
      const empty: ImportValues = { name: '', path: '', namespaceId: '' }
      const refusal = !await projectImportEnabled(ctx) ? IMPORT_DISABLED : declaredTooLarge(req, max) ? tooLargeMessage(max) : body === undefined ? NO_ARCHIVE : null
      if (refusal !== null) {
        abandonUpload(reply, body)
        return importPage(req, reply, signedIn, empty, [refusal], 422)
      }
      let form
      try {
        form = await receiveUploadForm(ctx, req, body!, { fileField: 'file', max, key: importArchiveKey })
      } catch (err) {
        abandonUpload(reply, body)
        return importPage(req, reply, signedIn, empty, importRefusal(err, max), 422)
      }
      const archiveKey = form.fileKey
      const fields = Object.fromEntries(form.fields)
      req.body = fields
      const values: ImportValues = { name: (fields.name ?? '').trim(), path: (fields.path ?? '').trim(), namespaceId: fields.namespace_id ?? '' }
      const refused = async (errors: readonly string[]) => {
        if (archiveKey !== null) await ctx.blobs.delete(archiveKey)
        return importPage(req, reply, signedIn, values, errors, 422)
      }
      if (!csrfVerified(req, visit)) {
        if (archiveKey !== null) await ctx.blobs.delete(archiveKey)
        return sendPage(reply, visit, 422, rejectedPage())
      }
      if (values.path === '') return refused(['Path can\'t be blank'])
      if (archiveKey === null) return refused([NO_ARCHIVE])
      try {
        const { project, namespace } = await importUploadedArchive(ctx, actorOf(signedIn), {
          archiveKey, maxBytes: max, namespace: values.namespaceId, path: values.path, name: values.name === '' ? undefined : values.name,
          overwrite: false, settings: () => ({}), overrideParams: {},
        })
        return redirect(reply, visit, projectPath(project, namespace))
      } catch (err) {
        return refused(importRefusal(err, max))
      }
    })
  })
}

export default newProjectPages
