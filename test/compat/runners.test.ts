// @gitbeaker/rest against a real Ingot socket: a runner registers (Runners.create, with tags as
// today's runners send them), is listed as the caller's and in every runner's list, shown, edited,
// enabled on another project and disabled there, lists its jobs, and unregisters with its token.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { expectStatus, startCompatServer, untypedParams, type Client, type CompatServer } from './server.js'
import { makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import type { ProjectRow } from '../../src/db/schema.js'

describe('compat: runners', () => {
  let server: CompatServer
  let maintainer: TestUser
  let client: Client
  let project: ProjectRow
  let secondProject: ProjectRow

  before(async () => {
    server = await startCompatServer()
    maintainer = await makeUser(server.t)
    client = server.client(maintainer.token)
    project = await makeProject(server.t, maintainer)
    secondProject = await makeProject(server.t, maintainer)
  })
  after(async () => { await server.close() })

  it('registers, lists, shows, edits, enables, disables and unregisters a runner', async () => {
    const anonymous = server.client(null)
    const registered = await anonymous.Runners.create(project.runners_token, untypedParams({ description: 'gitbeaker', tagList: 'a,b', runUntagged: false }))
    assert.equal(typeof registered.token, 'string')
    const id = registered.id as number

    assert.deepEqual((await client.Runners.all({ owned: true })).map((runner) => runner.id), [id])
    await expectStatus(client.Runners.all(), 403)
    assert.ok((await server.client().Runners.all({ type: 'project_type' })).some((runner) => runner.id === id))
    assert.deepEqual((await client.Runners.all({ projectId: project.id })).map((runner) => runner.id), [id])

    const shown = await client.Runners.show(id)
    assert.equal(shown.description, 'gitbeaker')
    assert.deepEqual(shown.tag_list, ['a', 'b'])
    assert.equal(shown.status, 'not_connected')
    const edited = await client.Runners.edit(id, { description: 'renamed', tagList: ['c'] })
    assert.equal(edited.description, 'renamed')
    assert.deepEqual(edited.tag_list, ['c'])

    const enabled = await client.Runners.enable(secondProject.id, id)
    assert.equal(enabled.id, id)
    assert.deepEqual((await client.Runners.show(id)).projects.map((p: { id: number }) => p.id).sort(), [project.id, secondProject.id].sort())
    await client.Runners.disable(secondProject.id, id)
    assert.deepEqual((await client.Runners.all({ projectId: secondProject.id })).map((runner) => runner.id), [])
    assert.deepEqual(await client.Runners.allJobs(id), [])

    await anonymous.Runners.verify(untypedParams({ token: registered.token }))
    await anonymous.Runners.remove({ token: registered.token as string })
    await expectStatus(client.Runners.show(id), 404)
  })
})
