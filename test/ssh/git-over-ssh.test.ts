// Git over SSH end to end (issue 17): the real OpenSSH client and git against Ingot's SSH server —
// clone, fetch, push and their refusals (protected branch, wrong key, blocked user, private
// project, deploy keys read-only and with can_push), wikis, `ssh -T`'s greeting, commands that are
// not git's, enabled_git_access_protocol on both transports, and ssh_url_to_repo.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs/promises'
import path from 'node:path'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { blockUser, makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import { startGitClient, type GitClient } from '../helpers/git-server.js'
import { projectFullPath } from '../helpers/projects.js'
import type { ProjectRow } from '../../src/db/schema.js'
import { DEVELOPER, REPORTER } from '../../src/policies/access-levels.js'
import { addDeployKey, addUserKey, startSshClient, type SshClient, type SshKeyPair } from './ssh-client.js'

describe('git over SSH', () => {
  let t: TestApp
  let client: SshClient
  let owner: TestUser
  let ownerKey: SshKeyPair
  let counter = 0

  const workdir = () => path.join(client.dir, `work${(counter += 1)}`)
  const fullPathOf = (project: ProjectRow) => projectFullPath(t, project)
  const setSettings = async (settings: Record<string, unknown>) => {
    const res = await t.api('PUT', '/application/settings', { body: settings })
    assert.equal(res.status, 200, res.text)
  }
  const projectWithReadme = async (visibility: 'private' | 'public' = 'private') => {
    const project = await makeProject(t, owner, { visibility })
    await commitFiles(t, project.id, { 'README.md': '# readme\n' })
    return project
  }
  /** Commits a file in a clone and pushes `refspec` with `key`. */
  const commitAndPush = async (key: SshKeyPair, dir: string, file: string, refspec = 'HEAD:master') => {
    await fs.writeFile(path.join(dir, file), `${file}\n`)
    await client.ok(key, ['add', file], { cwd: dir })
    await client.ok(key, ['commit', '-m', `Add ${file}`], { cwd: dir })
    return client.git(key, ['push', 'origin', refspec], { cwd: dir })
  }

  before(async () => {
    t = await buildTestApp()
    client = await startSshClient(t)
    owner = await makeUser(t)
    ownerKey = await client.makeKey()
    await addUserKey(t, owner.user.id, ownerKey)
  })
  after(async () => {
    await client?.close()
    await t?.close()
  })

  it('greets `ssh -T` with the username and exits 0', async () => {
    const result = await client.ssh(ownerKey)
    assert.equal(result.code, 0, result.stderr)
    assert.equal(result.stdout, `Welcome to Ingot, @${owner.user.username}!\n`)
  })

  it('clones, fetches and pushes, with the push recorded as over HTTP', async () => {
    const project = await projectWithReadme()
    const fullPath = await fullPathOf(project)
    const dir = workdir()
    await client.ok(ownerKey, ['clone', client.url(fullPath), dir])
    assert.equal(await fs.readFile(path.join(dir, 'README.md'), 'utf8'), '# readme\n')
    const pushed = await commitAndPush(ownerKey, dir, 'one.txt')
    assert.equal(pushed.code, 0, pushed.stderr)
    const events = await t.api('GET', `/projects/${project.id}/events`, { token: owner.token })
    assert.equal(events.body[0].action_name, 'pushed to')
    assert.equal(events.body[0].push_data.commit_title, 'Add one.txt')
    // Another clone fetches the new commit; the path may come in gitlab-shell's other spellings.
    const other = workdir()
    await client.ok(ownerKey, ['clone', `ssh://git@127.0.0.1:${client.server.port}/~/${fullPath}`, other])
    const second = await commitAndPush(ownerKey, dir, 'two.txt')
    assert.equal(second.code, 0, second.stderr)
    await client.ok(ownerKey, ['fetch', 'origin'], { cwd: other })
    assert.match(await client.ok(ownerKey, ['log', '--format=%s', 'origin/master'], { cwd: other }), /^Add two\.txt\nAdd one\.txt\n/)
  })

  it('serves git archive --remote (upload-archive)', async () => {
    const project = await projectWithReadme()
    const result = await client.git(ownerKey, ['archive', '--format=tar', `--remote=${client.url(await fullPathOf(project))}`, 'master', 'README.md'])
    assert.equal(result.code, 0, result.stderr)
    assert.match(result.stdout, /# readme/)
  })

  it('refuses a push to a protected branch with the reason on the terminal', async () => {
    const project = await projectWithReadme()
    const developer = await makeUser(t)
    const key = await client.makeKey()
    await addUserKey(t, developer.user.id, key)
    await makeMember(t, { type: 'project', id: project.id }, developer, DEVELOPER)
    const protect = await t.api('POST', `/projects/${project.id}/protected_branches`, { body: { name: 'master' } })
    assert.equal(protect.status, 201, protect.text)
    const dir = workdir()
    await client.ok(key, ['clone', client.url(await fullPathOf(project)), dir])
    const refused = await commitAndPush(key, dir, 'dev.txt')
    assert.notEqual(refused.code, 0)
    assert.match(refused.stderr, /remote: You are not allowed to push code to protected branches on this project\./)
    assert.match(refused.stderr, /pre-receive hook declined/)
    // Another branch is the developer's to push.
    const other = await client.git(key, ['push', 'origin', 'HEAD:feature'], { cwd: dir })
    assert.equal(other.code, 0, other.stderr)
  })

  it('refuses a reporter push and a private project to outsiders with the original sentences', async () => {
    const project = await projectWithReadme()
    const reporter = await makeUser(t)
    const reporterKey = await client.makeKey()
    await addUserKey(t, reporter.user.id, reporterKey)
    await makeMember(t, { type: 'project', id: project.id }, reporter, REPORTER)
    const dir = workdir()
    await client.ok(reporterKey, ['clone', client.url(await fullPathOf(project)), dir])
    const pushed = await commitAndPush(reporterKey, dir, 'r.txt')
    assert.notEqual(pushed.code, 0)
    assert.match(pushed.stderr, /> Ingot: You are not allowed to push code to this project\./)

    const outsider = await makeUser(t)
    const outsiderKey = await client.makeKey()
    await addUserKey(t, outsider.user.id, outsiderKey)
    const clone = await client.git(outsiderKey, ['clone', client.url(await fullPathOf(project)), workdir()])
    assert.notEqual(clone.code, 0)
    assert.match(clone.stderr, /> Ingot: The project you were looking for could not be found\./)
    const missing = await client.git(outsiderKey, ['clone', client.url('nobody/nothing'), workdir()])
    assert.match(missing.stderr, /> Ingot: The project you were looking for could not be found\./)
  })

  it('refuses a key nobody registered, and a blocked user', async () => {
    const stranger = await client.makeKey()
    const result = await client.ssh(stranger)
    assert.equal(result.code, 255)
    assert.match(result.stderr, /Permission denied \(publickey\)/)

    const project = await projectWithReadme('public')
    const blocked = await makeUser(t)
    const key = await client.makeKey()
    await addUserKey(t, blocked.user.id, key)
    await blockUser(t, blocked.user.id)
    const clone = await client.git(key, ['clone', client.url(await fullPathOf(project)), workdir()])
    assert.notEqual(clone.code, 0)
    assert.match(clone.stderr, /> Ingot: Your account has been blocked\./)
    const greeting = await client.ssh(key)
    assert.equal(greeting.code, 1)
    assert.equal(greeting.stderr, '> Ingot: Your account has been blocked.\n')
  })

  it('refuses keys the key restrictions no longer allow', async () => {
    const project = await projectWithReadme()
    try {
      await setSettings({ ed25519_key_restriction: -1 })
      const clone = await client.git(ownerKey, ['clone', client.url(await fullPathOf(project)), workdir()])
      assert.notEqual(clone.code, 0)
      assert.match(clone.stderr, /> Ingot: Your SSH key type is forbidden\. Must be RSA, DSA, or ECDSA\./)
    } finally {
      await setSettings({ ed25519_key_restriction: 0 })
    }
  })

  it('refuses everything but git: other commands, a pty, forwarding', async () => {
    const other = await client.ssh(ownerKey, ['ls', '/'])
    assert.equal(other.code, 1)
    assert.equal(other.stderr, '> Ingot: Disallowed command\n')
    const injected = await client.ssh(ownerKey, ["git-upload-pack 'a/b.git'; rm -rf /"])
    assert.equal(injected.code, 1)
    assert.equal(injected.stderr, '> Ingot: Disallowed command\n')
    const escape = await client.ssh(ownerKey, ["git-upload-pack '../../etc.git'"])
    assert.equal(escape.stderr, '> Ingot: The project you were looking for could not be found.\n')
    // (OpenSSH's client gives up when a terminal it was told to force is refused.)
    const tty = await client.ssh(ownerKey, [], { tty: true })
    assert.match(tty.stderr, /PTY allocation request failed/)
    const forward = await client.ssh(ownerKey, [], { options: ['-N', '-o', 'ExitOnForwardFailure=yes', '-R', '0:127.0.0.1:9'] })
    assert.equal(forward.code, 255)
    assert.match(forward.stderr, /remote port forwarding failed/)
  })

  it('lets a deploy key read, push only with can_push, and greets it as its user', async () => {
    const project = await projectWithReadme()
    const fullPath = await fullPathOf(project)
    const readOnly = await client.makeKey()
    const key = await addDeployKey(t, project.id, readOnly, false, owner.user.id)
    const greeting = await client.ssh(readOnly)
    assert.equal(greeting.stdout, `Welcome to Ingot, @${owner.user.username}!\n`)
    const dir = workdir()
    await client.ok(readOnly, ['clone', client.url(fullPath), dir])
    const last = await t.ctx.db.selectFrom('deploy_keys').select('last_used_at').where('id', '=', key.id).executeTakeFirstOrThrow()
    assert.ok(last.last_used_at !== null && last.last_used_at > Date.now() - 60_000)
    const refused = await commitAndPush(readOnly, dir, 'deploy.txt')
    assert.notEqual(refused.code, 0)
    assert.match(refused.stderr, /> Ingot: This deploy key does not have write access to this project\./)
    // Another private project it is not enabled on is hidden.
    const elsewhere = await projectWithReadme()
    const hidden = await client.git(readOnly, ['clone', client.url(await fullPathOf(elsewhere)), workdir()])
    assert.match(hidden.stderr, /> Ingot: The project you were looking for could not be found\./)

    const writer = await client.makeKey()
    await addDeployKey(t, project.id, writer, true, null)
    const anonymous = await client.ssh(writer)
    assert.equal(anonymous.stdout, 'Welcome to Ingot, Anonymous!\n')
    // Pushes with can_push skip the ref rules, protected branches too, as the original.
    await t.api('POST', `/projects/${project.id}/protected_branches`, { body: { name: 'master', push_access_level: 0 } })
    const pushed = await client.git(writer, ['push', 'origin', 'HEAD:master'], { cwd: dir })
    assert.equal(pushed.code, 0, pushed.stderr)
    const commits = await t.api('GET', `/projects/${project.id}/repository/commits`, { token: owner.token })
    assert.equal(commits.body[0].title, 'Add deploy.txt')
  })

  it("clones and pushes a project's wiki", async () => {
    const project = await projectWithReadme()
    const fullPath = await fullPathOf(project)
    const dir = workdir()
    await client.ok(ownerKey, ['clone', client.url(`${fullPath}.wiki`), dir])
    const pushed = await commitAndPush(ownerKey, dir, 'home.md')
    assert.equal(pushed.code, 0, pushed.stderr)
    const pages = await t.api('GET', `/projects/${project.id}/wikis`, { token: owner.token })
    assert.deepEqual(pages.body.map((page: { slug: string }) => page.slug), ['home'])
    const outsider = await makeUser(t)
    const key = await client.makeKey()
    await addUserKey(t, outsider.user.id, key)
    const hidden = await client.git(key, ['clone', client.url(`${fullPath}.wiki`), workdir()])
    assert.match(hidden.stderr, /> Ingot: The wiki you were looking for could not be found\./)
  })

  it('checks git-lfs-authenticate against the operation before answering', async () => {
    const project = await projectWithReadme()
    const readOnly = await client.makeKey()
    await addDeployKey(t, project.id, readOnly, false, owner.user.id)
    const upload = await client.ssh(readOnly, [`git-lfs-authenticate ${await fullPathOf(project)}.git upload`])
    assert.equal(upload.code, 1)
    assert.equal(upload.stderr, '> Ingot: This deploy key does not have write access to this project.\n')
    const outsider = await makeUser(t)
    const key = await client.makeKey()
    await addUserKey(t, outsider.user.id, key)
    const hidden = await client.ssh(key, [`git-lfs-authenticate ${await fullPathOf(project)} download`])
    assert.equal(hidden.stderr, '> Ingot: The project you were looking for could not be found.\n')
    const wrongOperation = await client.ssh(ownerKey, [`git-lfs-authenticate ${await fullPathOf(project)} delete`])
    assert.equal(wrongOperation.stderr, '> Ingot: Disallowed command\n')
  })

  it('answers git-lfs-authenticate with the LFS endpoint and a credential the LFS API takes', async () => {
    const project = await projectWithReadme()
    const fullPath = await fullPathOf(project)
    const result = await client.ssh(ownerKey, [`git-lfs-authenticate '${fullPath}.git' download`])
    assert.equal(result.code, 0, result.stderr)
    const answer = JSON.parse(result.stdout) as { href: string; header: { Authorization: string }; expires_in: number }
    assert.equal(answer.href, `${t.ctx.config.externalUrl}/${fullPath}.git/info/lfs`)
    assert.match(answer.header.Authorization, /^\S+ \S+/)
    assert.ok(answer.expires_in > 0)
    const batch = await t.app.inject({
      method: 'POST', url: `/${fullPath}.git/info/lfs/objects/batch`,
      headers: { authorization: answer.header.Authorization, 'content-type': 'application/vnd.git-lfs+json' },
      payload: JSON.stringify({ operation: 'download', objects: [{ oid: 'a'.repeat(64), size: 1 }] }),
    })
    assert.equal(batch.statusCode, 200, batch.body)
    assert.equal(JSON.parse(batch.body).objects[0].error.code, 404)
  })

  it('applies enabled_git_access_protocol to both transports and to ssh_url_to_repo', async () => {
    const project = await projectWithReadme()
    const fullPath = await fullPathOf(project)
    const http: GitClient = await startGitClient(t)
    try {
      const entity = await t.api('GET', `/projects/${project.id}`)
      assert.equal(entity.body.ssh_url_to_repo, `ssh://git@ingot.test:2222/${fullPath}.git`)

      await setSettings({ enabled_git_access_protocol: 'http' })
      const refused = await client.git(ownerKey, ['clone', client.url(fullPath), workdir()])
      assert.notEqual(refused.code, 0)
      assert.match(refused.stderr, /> Ingot: Git access over SSH is not allowed/)
      assert.equal((await t.api('GET', `/projects/${project.id}`)).body.ssh_url_to_repo, '')
      await http.ok(['clone', http.url(fullPath, { username: owner.user.username, password: owner.token }), workdir()])

      await setSettings({ enabled_git_access_protocol: 'ssh' })
      await client.ok(ownerKey, ['clone', client.url(fullPath), workdir()])
      const overHttp = await http.git(['clone', http.url(fullPath, { username: owner.user.username, password: owner.token }), workdir()])
      assert.match(overHttp.stderr, /remote: Git access over HTTP is not allowed/)
      assert.equal((await t.api('GET', `/projects/${project.id}`)).body.ssh_url_to_repo, `ssh://git@ingot.test:2222/${fullPath}.git`)
    } finally {
      await setSettings({ enabled_git_access_protocol: 'nil' })
      await http.close()
    }
  })
})

describe('ssh_url_to_repo', () => {
  for (const [env, expected] of [
    [{ INGOT_SSH_PORT: '22' }, (p: string) => `git@ingot.test:${p}.git`],
    [{ INGOT_SSH_PORT: '2200', INGOT_SSH_HOST: 'git.example.com' }, (p: string) => `ssh://git@git.example.com:2200/${p}.git`],
    [{ INGOT_SSH_PORT: '0' }, () => ''],
  ] as const) {
    it(`is ${expected('ns/p') || 'empty'} with ${JSON.stringify(env)}`, async () => {
      const app = await buildTestApp({ env })
      try {
        const project = await makeProject(app, null)
        const res = await app.api('GET', `/projects/${project.id}`)
        assert.equal(res.body.ssh_url_to_repo, expected(await projectFullPath(app, project)))
      } finally {
        await app.close()
      }
    })
  }
})
