// A project's milestones, labels, boards, activity and members pages, and starring and forking
// from its overview: what the API's finders give the visitor (a confidential issue is in no count
// or column for an outsider), escaped, and the forms' effects checked through the API.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import { insertMilestone, makeIssue } from '../helpers/issues.js'
import type { ProjectRow } from '../../src/db/schema.js'
import { DEVELOPER } from '../../src/policies/access-levels.js'
import { Browser, formToken, signedInBrowser } from './browser.js'

describe('Web project lists: milestones, labels, boards, activity, members; star and fork', () => {
  let t: TestApp
  let owner: TestUser
  let developer: TestUser
  let outsider: TestUser
  let project: ProjectRow
  let base: string
  const signedIn = (user: TestUser) => signedInBrowser(t, user.user.username)
  before(async () => {
    t = await buildTestApp()
    ;[owner, developer, outsider] = await Promise.all([makeUser(t), makeUser(t), makeUser(t)])
    project = await makeProject(t, owner, { visibility: 'public' })
    await makeMember(t, { type: 'project', id: project.id }, developer, DEVELOPER)
    await commitFiles(t, project.id, { 'README.md': '# r\n' })
    await t.ctx.db.updateTable('projects').set({ default_branch: 'master' }).where('id', '=', project.id).execute()
    const milestone = await insertMilestone(t, { projectId: project.id }, 'v1 <release>')
    await makeIssue(t, project, owner, { title: 'Doing', labels: ['doing'], milestoneId: milestone.id })
    await makeIssue(t, project, owner, { title: 'Done', milestoneId: milestone.id, closed: true })
    await makeIssue(t, project, owner, { title: 'Secret work', confidential: true, milestoneId: milestone.id })
    const board = await t.api('POST', `/projects/${project.id}/boards`, { token: owner.token, body: { name: 'Development' } })
    assert.equal(board.status, 201, board.text)
    const labels = await t.api('GET', `/projects/${project.id}/labels`, { token: owner.token })
    const doing = (labels.body as { id: number; name: string }[]).find((l) => l.name === 'doing')!
    const list = await t.api('POST', `/projects/${project.id}/boards/${board.body.id}/lists`, { token: owner.token, body: { label_id: doing.id } })
    assert.equal(list.status, 201, list.text)
    base = `/${owner.user.username}/${project.path}`
  })
  after(async () => { await t.close() })

  it('shows milestones with their progress, counting only the issues the visitor may see', async () => {
    const list = await (await signedIn(outsider)).get(`${base}/milestones`)
    assert.equal(list.status, 200, list.text)
    assert.ok(list.text.includes('v1 &lt;release&gt;'))
    assert.ok(list.text.includes('1 of 2 issues closed'), 'the confidential issue is not counted for an outsider')
    const one = await (await signedIn(owner)).get(`${base}/milestones/1`)
    assert.equal(one.status, 200)
    assert.ok(one.text.includes('1 of 3 issues closed') && one.text.includes('Secret work'))
    assert.equal((await new Browser(t).get(`${base}/milestones/99`)).status, 404)
  })

  it('lists labels, and the board\'s columns: open issues, a label\'s list, closed issues', async () => {
    const labels = await new Browser(t).get(`${base}/labels`)
    assert.equal(labels.status, 200)
    assert.ok(labels.text.includes('doing'))
    const boards = await new Browser(t).get(`${base}/boards`)
    assert.equal(boards.status, 200, boards.text)
    assert.match(boards.text, /<h3>doing<\/h3><\/header><ul class="issuable-list"><li><a href="[^"]+\/issues\/1">Doing<\/a>/)
    assert.match(boards.text, /<h3>Closed<\/h3><\/header><ul class="issuable-list"><li><a href="[^"]+\/issues\/2">Done<\/a>/)
    assert.ok(!boards.text.includes('Secret work'))
  })

  it('shows the project\'s activity and members', async () => {
    const activity = await new Browser(t).get(`${base}/activity`)
    assert.equal(activity.status, 200)
    assert.ok(activity.text.includes('opened') && activity.text.includes('Doing'))
    assert.ok(!activity.text.includes('Secret work'), 'events of a confidential issue are hidden from anonymous visitors')
    const members = await new Browser(t).get(`${base}/project_members`)
    assert.equal(members.status, 200)
    assert.ok(members.text.includes(developer.user.username) && members.text.includes('Developer'))
  })

  it('stars and unstars, and forks into the visitor\'s namespace', async () => {
    const browser = await signedIn(outsider)
    const overview = await browser.get(base)
    assert.ok(overview.text.includes('>Star</button>'))
    const token = formToken(overview.text)
    assert.equal((await browser.post(`${base}/toggle_star`, { authenticity_token: token })).status, 302)
    assert.equal((await t.ctx.db.selectFrom('projects').select('star_count').where('id', '=', project.id).executeTakeFirstOrThrow()).star_count, 1)
    assert.ok((await browser.get(base)).text.includes('>Unstar</button>'))
    await browser.post(`${base}/toggle_star`, { authenticity_token: token })
    assert.equal((await t.ctx.db.selectFrom('projects').select('star_count').where('id', '=', project.id).executeTakeFirstOrThrow()).star_count, 0)

    const forked = await browser.post(`${base}/forks`, { authenticity_token: token })
    assert.equal(forked.status, 302, forked.text)
    assert.equal(forked.headers.location, `/${outsider.user.username}/${project.path}`)
    const fork = await t.api('GET', `/projects/${encodeURIComponent(`${outsider.user.username}/${project.path}`)}`, { token: outsider.token })
    assert.equal(fork.body.forked_from_project?.id, project.id)
    assert.ok(!(await new Browser(t).get(base)).text.includes('>Star</button>'), 'anonymous visitors see counts only')
  })
})
