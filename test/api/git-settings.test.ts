// The application settings that govern git over HTTP, with the real `git` command line against
// Ingot on a real socket: password_authentication_enabled_for_git (passwords refused with the
// original's advice to use a token; tokens still work) and enabled_git_access_protocol (`ssh`
// refuses HTTP; `http` and nil allow it; the project's clone URLs stay as they are).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs/promises'
import path from 'node:path'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeProject, makeToken, makeUser, type TestUser } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import { startGitClient, type Credentials, type GitClient } from '../helpers/git-server.js'
import type { ProjectRow } from '../../src/db/schema.js'
import { acceptTerms } from '../../src/services/users/accept-terms.js'
import { projectFullPath } from '../helpers/projects.js'

/** The password makeUser gives every user. */
const PASSWORD = 'password1234'

/** The original's refusal, naming the page where tokens are made. */
const needsToken = (t: TestApp) => "HTTP Basic: Access denied\nYou must use a personal access token with 'api' scope for Git over HTTP.\n"
  + `You can generate one at ${t.ctx.config.externalUrl.replace(/\/+$/, '')}/profile/personal_access_tokens\n`

describe('git settings', () => {
  let t: TestApp
  let client: GitClient
  let owner: TestUser
  let counter = 0

  const workdir = () => path.join(client.dir, `work${(counter += 1)}`)
  const fullPathOf = (project: ProjectRow) => projectFullPath(t, project)
  const basic = (credentials: Credentials) => `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`
  const infoRefs = async (project: ProjectRow, credentials?: Credentials, service = 'git-upload-pack', repository = '') =>
    fetch(`${client.baseUrl}/${await fullPathOf(project)}${repository}.git/info/refs?service=${service}`, {
      headers: credentials === undefined ? {} : { authorization: basic(credentials) },
    })
  const setSettings = async (settings: Record<string, unknown>) => {
    const res = await t.api('PUT', '/application/settings', { body: settings })
    assert.equal(res.status, 200, res.text)
  }
  /** Pushes one new commit of `project` with `credentials`; git's result. */
  const pushCommit = async (project: ProjectRow, credentials: Credentials) => {
    const dir = workdir()
    await client.ok(['clone', client.url(await fullPathOf(project), { username: owner.user.username, password: owner.token }), dir])
    await fs.writeFile(path.join(dir, `file${counter}.txt`), `${counter}\n`)
    await client.ok(['add', '.'], { cwd: dir })
    await client.ok(['commit', '-q', '-m', 'Another'], { cwd: dir })
    return client.git(['push', client.url(await fullPathOf(project), credentials), 'HEAD:master'], { cwd: dir })
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

  describe('password_authentication_enabled_for_git', () => {
    it('refuses passwords when off, telling git users to use a token, and takes tokens still', async () => {
      const project = await makeProject(t, owner, { visibility: 'private' })
      await commitFiles(t, project.id, { 'README.md': '# readme\n' })
      const password = { username: owner.user.username, password: PASSWORD }
      await setSettings({ password_authentication_enabled_for_git: false })
      try {
        const clone = await client.git(['clone', client.url(await fullPathOf(project), password), workdir()])
        assert.notEqual(clone.code, 0)
        assert.match(clone.stderr, /remote: HTTP Basic: Access denied/)
        assert.match(clone.stderr, /remote: You must use a personal access token with 'api' scope for Git over HTTP\./)
        assert.match(clone.stderr, /remote: You can generate one at http:\/\/\S+\/profile\/personal_access_tokens/)

        // The original's answer: 401 without a challenge, also for a wrong password or token.
        for (const credentials of [password, { ...password, password: 'wrong-password' }, { username: 'x', password: 'not-a-token' }]) {
          const res = await infoRefs(project, credentials)
          assert.equal(res.status, 401)
          assert.equal(res.headers.get('www-authenticate'), null)
          assert.equal(await res.text(), needsToken(t))
        }
        // The project's wiki repository the same.
        const wiki = await infoRefs(project, password, 'git-upload-pack', '.wiki')
        assert.deepEqual([wiki.status, await wiki.text()], [401, needsToken(t)])
        // Without credentials git is still asked for them.
        const anonymous = await infoRefs(project)
        assert.equal(anonymous.status, 401)
        assert.equal(anonymous.headers.get('www-authenticate'), 'Basic realm="Ingot"')

        // Tokens clone and push as before.
        const readOnly = await makeToken(t, owner.user.id, ['read_repository'])
        await client.ok(['clone', client.url(await fullPathOf(project), { username: owner.user.username, password: readOnly.token }), workdir()])
        const push = await pushCommit(project, { username: 'anything', password: owner.token })
        assert.equal(push.code, 0, push.stderr)
        const refusedPush = await pushCommit(project, password)
        assert.notEqual(refusedPush.code, 0)
        assert.match(refusedPush.stderr, /You must use a personal access token/)
      } finally {
        await setSettings({ password_authentication_enabled_for_git: true })
      }
      // On again: the password clones.
      await client.ok(['clone', client.url(await fullPathOf(project), password), workdir()])
    })
  })

  describe('enforce_terms', () => {
    it('refuses git over HTTP to a user who has not accepted the terms, with the original\'s sentence', async () => {
      const project = await makeProject(t, owner, { visibility: 'private' })
      await commitFiles(t, project.id, { 'README.md': '# readme\n' })
      const credentials = { username: owner.user.username, password: owner.token }
      // Root sets the terms, and accepts them so as to go on using the API.
      await acceptTerms(t.ctx.db, t.root.user.id)
      await setSettings({ terms: 'Be kind.', enforce_terms: true })
      try {
        const refused = await infoRefs(project, credentials)
        assert.equal(refused.status, 403)
        assert.equal(await refused.text(),
          `You (@${owner.user.username}) must accept the Terms of Service in order to perform this action. Please access Ingot from a web browser to accept these terms.\n`)
        await acceptTerms(t.ctx.db, owner.user.id)
        const clone = await client.git(['clone', client.url(await fullPathOf(project), credentials), workdir()])
        assert.equal(clone.code, 0, clone.stderr)
      } finally {
        await setSettings({ enforce_terms: false })
      }
    })
  })

  describe('enabled_git_access_protocol', () => {
    it('refuses git over HTTP when only ssh is enabled: 403 for signed-in users, a challenge for anonymous ones', async () => {
      const project = await makeProject(t, owner, { visibility: 'public' })
      await commitFiles(t, project.id, { 'README.md': '# readme\n' })
      const token = { username: owner.user.username, password: owner.token }
      const password = { username: owner.user.username, password: PASSWORD }
      await setSettings({ enabled_git_access_protocol: 'ssh' })
      try {
        const anonymousClone = await client.git(['clone', client.url(await fullPathOf(project)), workdir()])
        assert.notEqual(anonymousClone.code, 0)
        const anonymous = await infoRefs(project)
        assert.equal(anonymous.status, 401)
        assert.equal(anonymous.headers.get('www-authenticate'), 'Basic realm="Ingot"')
        assert.equal(await anonymous.text(), 'HTTP Basic: Access denied\n')

        for (const credentials of [token, password]) {
          const clone = await client.git(['clone', client.url(await fullPathOf(project), credentials), workdir()])
          assert.notEqual(clone.code, 0)
          assert.match(clone.stderr, /remote: Git access over HTTP is not allowed/)
          for (const service of ['git-upload-pack', 'git-receive-pack']) {
            const res = await infoRefs(project, credentials, service)
            assert.equal(res.status, 403)
            assert.equal(await res.text(), 'Git access over HTTP is not allowed\n')
          }
          const wiki = await infoRefs(project, credentials, 'git-upload-pack', '.wiki')
          assert.deepEqual([wiki.status, await wiki.text()], [403, 'Git access over HTTP is not allowed\n'])
        }
        // Wrong credentials are still refused as such first.
        assert.equal((await infoRefs(project, { ...password, password: 'wrong-password' })).status, 401)

        // As in the original, the project still shows both clone URLs.
        const entity = await t.api('GET', `/projects/${project.id}`)
        assert.equal(entity.body.http_url_to_repo, `${t.ctx.config.externalUrl}/${await fullPathOf(project)}.git`)
        assert.match(entity.body.ssh_url_to_repo, /^ssh:\/\/git@.+\.git$/)
      } finally {
        await setSettings({ enabled_git_access_protocol: 'nil' })
      }
    })

    it('allows git over HTTP with `http` or nil (both)', async () => {
      const project = await makeProject(t, owner, { visibility: 'private' })
      await commitFiles(t, project.id, { 'README.md': '# readme\n' })
      const token = { username: owner.user.username, password: owner.token }
      try {
        for (const protocol of ['http', 'nil']) {
          await setSettings({ enabled_git_access_protocol: protocol })
          const settings = await t.api('GET', '/application/settings')
          assert.equal(settings.body.enabled_git_access_protocol, protocol === 'nil' ? null : protocol)
          await client.ok(['clone', client.url(await fullPathOf(project), token), workdir()])
          const push = await pushCommit(project, token)
          assert.equal(push.code, 0, push.stderr)
        }
      } finally {
        await setSettings({ enabled_git_access_protocol: 'nil' })
      }
    })
  })
})
