// A project's wiki over git smart HTTP (`<full_path>.wiki.git`) with the real `git` command line
// against Ingot on a real socket: the empty clone of a wiki nobody wrote yet, pages pushed and read
// back through the API (and API pages cloned), access as the project's (Guests read, Developers
// push), a disabled wiki hidden, and wiki pushes kept out of the project's push path (no push
// rules, no events). Runs on SQLite, and on PostgreSQL when INGOT_TEST_DATABASE_URL is set.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs/promises'
import path from 'node:path'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { startGitClient, type Credentials, type GitClient } from '../helpers/git-server.js'
import type { ProjectRow } from '../../src/db/schema.js'
import { DEVELOPER, GUEST, REPORTER } from '../../src/policies/access-levels.js'

/** The password makeUser gives every user. */
const PASSWORD = 'password1234'

const PROMPT_REFUSED = /could not read Username for 'http:\/\/127\.0\.0\.1:\d+': terminal prompts disabled/

describe('wiki over git smart HTTP', () => {
  let t: TestApp
  let client: GitClient
  let owner: TestUser
  let counter = 0

  const login = (user: TestUser): Credentials => ({ username: user.user.username, password: PASSWORD })
  const wikiUrl = async (project: ProjectRow, credentials?: Credentials) => {
    const namespace = await t.ctx.db.selectFrom('namespaces').select('full_path').where('id', '=', project.namespace_id).executeTakeFirstOrThrow()
    return client.url(`${namespace.full_path}/${project.path}.wiki`, credentials)
  }
  const workdir = () => path.join(client.dir, `wiki${(counter += 1)}`)
  const commitIn = async (dir: string, file: string, content: string, message = `Change ${file}`) => {
    await fs.mkdir(path.dirname(path.join(dir, file)), { recursive: true })
    await fs.writeFile(path.join(dir, file), content)
    await client.ok(['add', '--', file], { cwd: dir })
    await client.ok(['commit', '-q', '-m', message], { cwd: dir })
    return (await client.ok(['rev-parse', 'HEAD'], { cwd: dir })).trim()
  }
  const memberOf = async (project: ProjectRow, level: number) => {
    const user = await makeUser(t)
    await makeMember(t, { type: 'project', id: project.id }, user, level)
    return user
  }

  before(async () => {
    t = await buildTestApp()
    client = await startGitClient(t)
    owner = await makeUser(t)
  })
  after(async () => {
    await client.close()
    await t.close()
  })

  it('clones the empty wiki nobody wrote yet, and takes a Developer\'s first push past the project\'s branch rules', async () => {
    // A Developer's first push of the project's own master would be refused (default_branch_protection
    // makes it a Maintainer's); the project's push rules must not reach the wiki.
    const project = await makeProject(t, owner, { visibility: 'private' })
    const developer = await memberOf(project, DEVELOPER)
    const dir = workdir()
    const clone = await client.git(['clone', await wikiUrl(project, login(developer)), dir])
    assert.equal(clone.code, 0, clone.stderr)
    assert.match(clone.stderr, /cloned an empty repository/)

    const first = await commitIn(dir, 'Home.md', '# Welcome\n', 'Write the home page')
    await commitIn(dir, 'guides/Set up.rdoc', '= Set up\n')
    await commitIn(dir, 'uploads/logo.png', 'not really a png')
    await client.ok(['push', 'origin', 'master'], { cwd: dir })
    // A force push rewrites the wiki's master too: no protected branches there.
    await client.ok(['reset', '-q', '--hard', first], { cwd: dir })
    const rewritten = await commitIn(dir, 'guides/Set up.rdoc', '= Set up again\n')
    await client.ok(['push', '--force', 'origin', 'master'], { cwd: dir })
    assert.equal(await t.ctx.repositories.openWiki(project.id).resolveCommit('master'), rewritten)

    const pages = await t.api('GET', `/projects/${project.id}/wikis`, { token: developer.token, query: { with_content: true } })
    assert.equal(pages.status, 200, pages.text)
    assert.deepEqual(pages.body, [
      { format: 'markdown', slug: 'Home', title: 'Home', content: '# Welcome\n' },
      { format: 'rdoc', slug: 'guides/Set-up', title: 'Set up', content: '= Set up again\n' },
    ])
    // No push of the project: no pushed events, no default branch, its own repository untouched.
    const events = await t.api('GET', `/projects/${project.id}/events`, { token: owner.token, query: { action: 'pushed' } })
    assert.deepEqual(events.body, [])
    assert.equal((await t.api('GET', `/projects/${project.id}`, { token: owner.token })).body.default_branch, null)
    assert.equal(await t.ctx.repositories.open(project.id).isEmpty(), true)
  })

  it('serves pages written through the API, by their authors', async () => {
    const project = await makeProject(t, owner, { visibility: 'private' })
    const created = await t.api('POST', `/projects/${project.id}/wikis`, { token: owner.token, body: { title: 'API page', content: 'from the API' } })
    assert.equal(created.status, 201, created.text)
    const dir = workdir()
    await client.ok(['clone', '-q', await wikiUrl(project, login(owner)), dir])
    assert.equal(await fs.readFile(path.join(dir, 'API-page.md'), 'utf8'), 'from the API')
    const author = (await client.ok(['log', '-1', '--format=%an <%ae>|%s'], { cwd: dir })).trim()
    assert.equal(author, `${owner.user.name} <${owner.user.email}>|${owner.user.username} created page: API page`)
  })

  it('lets Guests of a private project clone but only Developers push, with the original\'s answers', async () => {
    const project = await makeProject(t, owner, { visibility: 'private' })
    await t.api('POST', `/projects/${project.id}/wikis`, { token: owner.token, body: { title: 'Home', content: 'x' } })
    const guest = await memberOf(project, GUEST)
    const reporter = await memberOf(project, REPORTER)
    const stranger = await makeUser(t)

    const dir = workdir()
    await client.ok(['clone', '-q', await wikiUrl(project, login(guest)), dir])
    await commitIn(dir, 'Guest.md', 'guest\n')
    for (const user of [guest, reporter]) {
      const refused = await client.git(['push', await wikiUrl(project, login(user)), 'master'], { cwd: dir })
      assert.notEqual(refused.code, 0)
      assert.match(refused.stderr, /remote: You are not allowed to write to this project's wiki\./)
      assert.match(refused.stderr, /returned error: 403/)
    }
    const hidden = await client.git(['clone', await wikiUrl(project, login(stranger)), workdir()])
    assert.match(hidden.stderr, /remote: The wiki you were looking for could not be found\./)
    const anonymous = await client.git(['clone', await wikiUrl(project), workdir()])
    assert.match(anonymous.stderr, PROMPT_REFUSED)
    const pages = await t.api('GET', `/projects/${project.id}/wikis`, { token: owner.token })
    assert.deepEqual(pages.body.map((page: { slug: string }) => page.slug), ['Home'])
  })

  it('lets anyone clone a public project\'s wiki, and hides a disabled wiki (404)', async () => {
    const project = await makeProject(t, owner, { visibility: 'public' })
    await t.api('POST', `/projects/${project.id}/wikis`, { token: owner.token, body: { title: 'Home', content: 'public' } })
    const dir = workdir()
    await client.ok(['clone', '-q', await wikiUrl(project), dir])
    assert.equal(await fs.readFile(path.join(dir, 'Home.md'), 'utf8'), 'public')

    assert.equal((await t.api('PUT', `/projects/${project.id}`, { token: owner.token, body: { wiki_enabled: false } })).status, 200)
    const byOwner = await client.git(['clone', await wikiUrl(project, login(owner)), workdir()])
    assert.match(byOwner.stderr, /remote: The wiki you were looking for could not be found\./)
    assert.match(byOwner.stderr, /returned error: 404|not found/)
    const info = await t.app.inject({ method: 'GET', url: `${new URL(await wikiUrl(project)).pathname}/info/refs?service=git-upload-pack` })
    assert.equal(info.statusCode, 401)
    // The project's own repository is still there for its readers.
    const code = await client.git(['ls-remote', client.url(new URL(await wikiUrl(project)).pathname.slice(1).replace(/\.wiki\.git$/, ''))])
    assert.equal(code.code, 0, code.stderr)
  })
})
