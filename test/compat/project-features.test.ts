// @gitbeaker/rest against a real Ingot socket: the per-project and instance features of issue 5 —
// wikis (pages and attachments), project hooks with a real delivery, system hooks, integrations
// (under the later `integrations` name gitbeaker uses), notification settings and application
// settings — each answer read through the client's own types.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { expectStatus, startCompatServer, type Client, type CompatServer } from './server.js'
import { makeProject, makeUser } from '../helpers/factories.js'
import { startHookReceiver, type HookReceiver } from '../helpers/hook-receiver.js'

describe('compat: wikis, hooks, integrations, notification and application settings', () => {
  let server: CompatServer
  let root: Client
  let projectId: number
  let receiver: HookReceiver

  before(async () => {
    server = await startCompatServer()
    root = server.client()
    projectId = (await makeProject(server.t, null, { visibility: 'private' })).id
    receiver = await startHookReceiver()
  })
  after(async () => {
    await receiver.close()
    await server.close()
  })

  it('writes and reads wiki pages and attachments', async () => {
    const page = await root.ProjectWikis.create(projectId, '# Welcome', 'Home Page')
    assert.deepEqual(page, { content: '# Welcome', format: 'markdown', slug: 'Home-Page', title: 'Home Page' })
    await root.ProjectWikis.create(projectId, 'Nested', 'guides/Setup', { format: 'rdoc' })
    const listed = await root.ProjectWikis.all(projectId)
    assert.deepEqual(listed.map((item) => item.slug).sort(), ['Home-Page', 'guides/Setup'])
    assert.equal((await root.ProjectWikis.show(projectId, 'guides/Setup')).format, 'rdoc')
    const edited = await root.ProjectWikis.edit(projectId, 'Home-Page', { content: 'Changed' })
    assert.equal(edited.content, 'Changed')
    const attachment = await root.ProjectWikis.uploadAttachment(projectId, { content: new Blob(['png bytes']), filename: 'shot.png' })
    assert.equal(attachment.file_name, 'shot.png')
    assert.match(attachment.file_path, /^uploads\/[0-9a-f]{32}\/shot\.png$/)
    assert.equal(attachment.link.markdown, `![shot](${attachment.file_path})`)
    await root.ProjectWikis.remove(projectId, 'guides/Setup')
    await expectStatus(root.ProjectWikis.show(projectId, 'guides/Setup'), 404)
  })

  it('manages project hooks, and the hook hears an issue opened through the client', async () => {
    await root.ApplicationSettings.edit({ allowLocalRequestsFromHooksAndServices: true })
    const hook = await root.ProjectHooks.add(projectId, `${receiver.url}/compat`, { issuesEvents: true, pushEvents: false, token: 'compat-secret' })
    assert.equal(hook.issues_events, true)
    assert.equal(hook.push_events, false)
    assert.equal('token' in hook, false)
    assert.deepEqual((await root.ProjectHooks.all(projectId)).map((item) => item.id), [hook.id])
    const edited = await root.ProjectHooks.edit(projectId, hook.id, `${receiver.url}/edited`, { issuesEvents: true, noteEvents: true })
    assert.equal(edited.note_events, true)

    receiver.clear()
    const issue = await root.Issues.create(projectId, 'Heard by the hook')
    while (await server.t.ctx.jobs.runDue() > 0) { /* deliver */ }
    const delivery = receiver.received.find((item) => item.path === '/edited')
    assert.ok(delivery !== undefined)
    assert.equal(delivery.headers['x-service-event'], 'Issue Hook')
    assert.equal(delivery.headers['x-service-token'], 'compat-secret')
    assert.equal(delivery.headers['x-gitlab-event'], 'Issue Hook')
    assert.equal(delivery.headers['x-gitlab-token'], 'compat-secret')
    assert.equal(delivery.body.object_attributes.iid, issue.iid)
    assert.equal(delivery.body.object_attributes.action, 'open')

    await root.ProjectHooks.remove(projectId, hook.id)
    await expectStatus(root.ProjectHooks.show(projectId, hook.id), 404)
  })

  it('manages system hooks as an administrator only', async () => {
    const hook = await root.SystemHooks.add(`${receiver.url}/system`)
    assert.equal(hook.url, `${receiver.url}/system`)
    assert.ok((await root.SystemHooks.all()).some((item) => item.id === hook.id))
    const user = await makeUser(server.t)
    await expectStatus(server.client(user.token).SystemHooks.all(), 403)
    await root.SystemHooks.remove(hook.id)
  })

  it('configures an integration under /integrations', async () => {
    type Slug = Parameters<Client['Integrations']['show']>[1]
    const slug = 'external-wiki' as Slug
    const configured = await root.Integrations.edit(projectId, slug, { externalWikiUrl: 'https://wiki.example.com/' })
    assert.equal(configured.active, true)
    assert.equal((await root.Integrations.show(projectId, slug)).active, true)
    await root.Integrations.disable(projectId, slug)
    assert.equal((await root.Integrations.show(projectId, slug)).active, false)
  })

  it('configures integrations under the original\'s product slugs the client names them by', async () => {
    const jira = await root.Integrations.edit(projectId, 'jira', {
      url: 'https://203.0.113.10/jira', projectKey: 'PRJ', username: 'bot', password: 'secret',
    } as never)
    const propertiesOf = (integration: object) => (integration as { properties: Record<string, unknown> }).properties
    assert.deepEqual([jira.slug, jira.active, propertiesOf(jira).project_key], ['jira', true, 'PRJ'])
    const bamboo = await root.Integrations.edit(projectId, 'bamboo', {
      bambooUrl: 'https://203.0.113.10/bamboo', buildKey: 'KEY', username: 'ci', password: 'secret',
    } as never)
    assert.equal(propertiesOf(bamboo).bamboo_url, 'https://203.0.113.10/bamboo')
    assert.equal((await root.Integrations.show(projectId, 'bamboo')).active, true)
    await root.Integrations.disable(projectId, 'jira')
    assert.equal((await root.Integrations.show(projectId, 'jira')).active, false)
  })

  it('reads and changes notification settings, globally and per project', async () => {
    const global = await root.NotificationSettings.show()
    assert.equal(global.level, 'participating')
    const watched = await root.NotificationSettings.edit({ projectId, level: 'watch' })
    assert.equal(watched.level, 'watch')
    const custom = await root.NotificationSettings.edit({ projectId, level: 'custom', newIssue: true })
    assert.equal(custom.level, 'custom')
    assert.equal((custom as { events?: Record<string, boolean> }).events?.new_issue, true)
    assert.equal((await root.NotificationSettings.show({ projectId })).level, 'custom')
  })

  it('reads and changes application settings', async () => {
    const settings = await root.ApplicationSettings.show()
    assert.equal(settings.default_projects_limit, 100000)
    const changed = await root.ApplicationSettings.edit({ defaultProjectsLimit: 42 })
    assert.equal(changed.default_projects_limit, 42)
  })
})
