// Git smart HTTP with the real `git` command line as the client, against Ingot on a real socket:
// clone, fetch and push with every kind of credential, the 401/403/404 answers git shows its user,
// push rules refused from the pre-receive hook, what a push records, gzip request bodies and
// protocol v2. Runs on SQLite, and on PostgreSQL when INGOT_TEST_DATABASE_URL is set.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs/promises'
import path from 'node:path'
import { gzipSync } from 'node:zlib'
import { createHash, randomBytes } from 'node:crypto'
import v8 from 'node:v8'
import vm from 'node:vm'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { blockUser, makeGroup, makeMember, makeProject, makeToken, makeUser, type TestUser } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import { startGitClient, type Credentials, type GitClient } from '../helpers/git-server.js'
import type { ProjectRow } from '../../src/db/schema.js'
import { createAccessToken } from '../../src/services/access-tokens/create-access-token.js'
import { DEVELOPER, GUEST, MAINTAINER, REPORTER } from '../../src/policies/access-levels.js'
import { projectFullPath } from '../helpers/projects.js'
import { STATISTICS_REFRESH_DELAY_MS } from '../../src/services/projects/refresh-statistics.js'
import { gitProcessCounts } from '../../src/git/processes.js'
import { until } from '../helpers/jobs.js'

/** The password makeUser gives every user. */
const PASSWORD = 'password1234'

const PROMPT_REFUSED = /could not read Username for 'http:\/\/127\.0\.0\.1:\d+': terminal prompts disabled/

describe('git smart HTTP', () => {
  let t: TestApp
  let client: GitClient
  let owner: TestUser
  let stranger: TestUser
  let counter = 0

  const login = (user: TestUser): Credentials => ({ username: user.user.username, password: PASSWORD })
  const fullPathOf = (project: ProjectRow) => projectFullPath(t, project)
  const urlOf = async (project: ProjectRow, credentials?: Credentials) => client.url(await fullPathOf(project), credentials)
  /** A fresh directory name in the client's scratch directory. */
  const workdir = () => path.join(client.dir, `work${(counter += 1)}`)
  const cloneOf = async (project: ProjectRow, credentials: Credentials, args: readonly string[] = []) => {
    const dir = workdir()
    await client.ok(['clone', ...args, await urlOf(project, credentials), dir])
    return dir
  }
  const commitIn = async (dir: string, file: string, content: string | Buffer, message = `Change ${file}`) => {
    await fs.mkdir(path.dirname(path.join(dir, file)), { recursive: true })
    await fs.writeFile(path.join(dir, file), content)
    await client.ok(['add', '--', file], { cwd: dir })
    await client.ok(['commit', '-q', '-m', message], { cwd: dir })
    return (await client.ok(['rev-parse', 'HEAD'], { cwd: dir })).trim()
  }
  const refOnServer = async (project: ProjectRow, ref: string) => t.ctx.repositories.open(project.id).resolveCommit(ref)
  const projectWithCommit = async (visibility: 'public' | 'internal' | 'private', by: TestUser | null = owner) => {
    const project = await makeProject(t, by, { visibility })
    const commit = await commitFiles(t, project.id, { 'README.md': `# ${project.path}\n` })
    return { project, commit }
  }
  const pushEvents = async (project: ProjectRow) => {
    const res = await t.api('GET', `/projects/${project.id}/events`, { query: { action: 'pushed' } })
    assert.equal(res.status, 200, res.text)
    return res.body as { author_id: number; action_name: string; push_data: Record<string, unknown> }[]
  }

  before(async () => {
    t = await buildTestApp()
    client = await startGitClient(t)
    owner = await makeUser(t)
    stranger = await makeUser(t)
  })
  after(async () => {
    await client.close()
    await t.close()
  })

  describe('clone and fetch', () => {
    it('clones a public project anonymously, with or without .git in the URL', async () => {
      const { project, commit } = await projectWithCommit('public')
      for (const url of [await urlOf(project), (await urlOf(project)).replace(/\.git$/, '')]) {
        const dir = workdir()
        await client.ok(['clone', url, dir])
        assert.equal(await fs.readFile(path.join(dir, 'README.md'), 'utf8'), `# ${project.path}\n`)
        assert.equal((await client.ok(['rev-parse', 'HEAD'], { cwd: dir })).trim(), commit)
      }
    })

    it('finds the project whatever the case of its path, in nested groups', async () => {
      const parent = await makeGroup(t, { visibility: 'public' })
      const child = await makeGroup(t, { visibility: 'public', parent })
      const project = await makeProject(t, null, { visibility: 'public', namespace: child })
      await commitFiles(t, project.id, { 'a.txt': 'a\n' })
      const fullPath = await fullPathOf(project)
      assert.equal(fullPath.split('/').length, 3)
      await client.ok(['clone', client.url(fullPath.toUpperCase()), workdir()])
    })

    it('clones a private project with a password, a personal token under any login, and an OAuth token as oauth2', async () => {
      const { project, commit } = await projectWithCommit('private')
      const oauth = await createAccessToken(t.ctx.db, { userId: owner.user.id, kind: 'oauth', name: 'app', scopes: ['api'] })
      const readOnly = await makeToken(t, owner.user.id, ['read_repository'])
      for (const credentials of [
        login(owner),
        { username: owner.user.email, password: PASSWORD },
        { username: owner.user.username, password: owner.token },
        { username: 'anything', password: owner.token },
        { username: 'oauth2', password: owner.token },
        { username: 'oauth2', password: oauth.token },
        { username: owner.user.username, password: readOnly.token },
      ]) {
        const dir = await cloneOf(project, credentials)
        assert.equal((await client.ok(['rev-parse', 'HEAD'], { cwd: dir })).trim(), commit, credentials.username)
      }
    })

    it('asks for credentials (401) when an anonymous caller cannot read the project', async () => {
      const { project } = await projectWithCommit('private')
      for (const fullPath of [await fullPathOf(project), `${owner.user.username}/no-such-project`]) {
        const result = await client.git(['clone', client.url(fullPath), workdir()])
        assert.notEqual(result.code, 0)
        assert.match(result.stderr, PROMPT_REFUSED)
        const res = await fetch(`${client.baseUrl}/${fullPath}.git/info/refs?service=git-upload-pack`)
        assert.equal(res.status, 401)
        assert.equal(res.headers.get('www-authenticate'), 'Basic realm="Ingot"')
        assert.equal(await res.text(), 'HTTP Basic: Access denied\n')
      }
    })

    it('refuses wrong credentials with 401, and an OAuth token under another login', async () => {
      // (git sends credentials only once refused without them: the project must not be public.)
      const { project } = await projectWithCommit('private')
      const oauth = await createAccessToken(t.ctx.db, { userId: owner.user.id, kind: 'oauth', name: 'app', scopes: ['api'] })
      for (const credentials of [
        { username: owner.user.username, password: 'wrong-password' },
        { username: 'nobody-at-all', password: PASSWORD },
        { username: owner.user.username, password: oauth.token },
      ]) {
        const result = await client.git(['clone', await urlOf(project, credentials), workdir()])
        assert.notEqual(result.code, 0)
        assert.match(result.stderr, /remote: HTTP Basic: Access denied/)
        assert.match(result.stderr, /Authentication failed for/)
      }
    })

    it('answers 404 for a private project a signed-in caller cannot see, 403 for a Guest', async () => {
      const { project } = await projectWithCommit('private')
      const missing = await client.git(['clone', await urlOf(project, login(stranger)), workdir()])
      assert.notEqual(missing.code, 0)
      assert.match(missing.stderr, /remote: The project you were looking for could not be found\./)
      assert.match(missing.stderr, /repository '.*' not found/)

      const guest = await makeUser(t)
      await makeMember(t, { type: 'project', id: project.id }, guest, GUEST)
      const refused = await client.git(['clone', await urlOf(project, login(guest)), workdir()])
      assert.notEqual(refused.code, 0)
      assert.match(refused.stderr, /remote: You are not allowed to download code from this project\./)
      assert.match(refused.stderr, /returned error: 403/)
    })

    it('lets any signed-in user clone an internal project, but not external users or anonymous callers', async () => {
      const { project } = await projectWithCommit('internal')
      await cloneOf(project, login(stranger))
      const external = await makeUser(t, { external: true })
      const hidden = await client.git(['clone', await urlOf(project, login(external)), workdir()])
      assert.match(hidden.stderr, /remote: The project you were looking for could not be found\./)
      const anonymous = await client.git(['clone', await urlOf(project), workdir()])
      assert.match(anonymous.stderr, PROMPT_REFUSED)
    })

    it('refuses blocked users: 401 for a password, 403 for a token', async () => {
      const { project } = await projectWithCommit('private')
      const blocked = await makeUser(t)
      await blockUser(t, blocked.user.id)
      const byPassword = await client.git(['clone', await urlOf(project, login(blocked)), workdir()])
      assert.match(byPassword.stderr, /Authentication failed/)
      const byToken = await client.git(['clone', await urlOf(project, { username: 'x', password: blocked.token }), workdir()])
      assert.match(byToken.stderr, /remote: Your account has been blocked\./)
    })

    it('refuses a token without a repository scope', async () => {
      const { project } = await projectWithCommit('private')
      const { token } = await makeToken(t, owner.user.id, ['read_user'])
      const result = await client.git(['clone', await urlOf(project, { username: 'x', password: token }), workdir()])
      assert.match(result.stderr, /remote: You are not allowed to download code\./)
    })

    it('fetches new commits into a clone', async () => {
      const { project } = await projectWithCommit('private')
      const dir = await cloneOf(project, login(owner))
      const next = await commitFiles(t, project.id, { 'b.txt': 'b\n' })
      await client.ok(['fetch', 'origin'], { cwd: dir })
      assert.equal((await client.ok(['rev-parse', 'origin/master'], { cwd: dir })).trim(), next)
    })

    it('speaks protocol v2 when the client asks for it', async () => {
      const { project, commit } = await projectWithCommit('private')
      const dir = workdir()
      const result = await client.git(['-c', 'protocol.version=2', 'clone', await urlOf(project, login(owner)), dir], {
        env: { GIT_TRACE_PACKET: '1' },
      })
      assert.equal(result.code, 0, result.stderr)
      assert.match(result.stderr, /clone< version 2/)
      assert.match(result.stderr, /clone> command=fetch/)
      assert.equal((await client.ok(['rev-parse', 'HEAD'], { cwd: dir })).trim(), commit)
    })

    it('answers the protocol v2 advertisement from memory and ls-refs itself: ls-remote starts no git, a clone one upload-pack', async () => {
      const { project, commit } = await projectWithCommit('private')
      const url = await urlOf(project, login(owner))
      const uploadPacks = () => gitProcessCounts().get('upload-pack')?.started ?? 0
      const lsRemote = () => client.ok(['-c', 'protocol.version=2', 'ls-remote', url])
      await lsRemote()
      const started = uploadPacks()
      assert.equal(await lsRemote(), `${commit}\tHEAD\n${commit}\trefs/heads/master\n`)
      assert.equal(uploadPacks(), started)
      const dir = workdir()
      await client.ok(['-c', 'protocol.version=2', 'clone', url, dir])
      assert.equal(uploadPacks(), started + 1, 'the fetch of the clone alone')
      assert.equal((await client.ok(['rev-parse', 'HEAD'], { cwd: dir })).trim(), commit)
      await client.ok(['-c', 'protocol.version=2', 'fetch', 'origin'], { cwd: dir })
      assert.equal(uploadPacks(), started + 1, 'a fetch that finds nothing new starts no git')
      const next = await commitFiles(t, project.id, { 'next.txt': 'next\n' })
      await client.ok(['-c', 'protocol.version=2', 'fetch', 'origin'], { cwd: dir })
      assert.equal(uploadPacks(), started + 2)
      assert.equal((await client.ok(['rev-parse', 'origin/master'], { cwd: dir })).trim(), next)
    })

    it('hands git the ls-refs requests it does not answer itself, with the bytes it read, in pieces or whole', async () => {
      const { project, commit } = await projectWithCommit('private')
      const url = `${client.baseUrl}/${await fullPathOf(project)}.git/git-upload-pack`
      const uploadPacks = () => gitProcessCounts().get('upload-pack')?.started ?? 0
      const pkt = (line: string) => `${(Buffer.byteLength(line) + 4).toString(16).padStart(4, '0')}${line}`
      const post = async (body: Buffer | AsyncIterable<Buffer>, headers: Record<string, string> = {}) => {
        const res = await fetch(url, {
          method: 'POST',
          body: body as unknown as Blob,
          duplex: 'half',
          headers: {
            'content-type': 'application/x-git-upload-pack-request',
            'git-protocol': 'version=2',
            authorization: `Basic ${Buffer.from(`${owner.user.username}:${PASSWORD}`).toString('base64')}`,
            ...headers,
          },
        } as RequestInit)
        return { status: res.status, text: Buffer.from(await res.arrayBuffer()).toString('latin1') }
      }
      const lsRefs = (args: string[]) => Buffer.from(`${pkt('command=ls-refs\n')}${pkt('object-format=sha1\n')}0001${args.map((arg) => pkt(`${arg}\n`)).join('')}0000`)
      const expected = `${pkt(`${commit} HEAD symref-target:refs/heads/master\n`)}${pkt(`${commit} refs/heads/master\n`)}0000`

      let started = uploadPacks()
      assert.deepEqual(await post(lsRefs(['symrefs'])), { status: 200, text: expected })
      assert.equal(uploadPacks(), started, 'answered without git')
      // Sent in pieces, the first pkt-line cut in two.
      const whole = lsRefs(['symrefs'])
      const cuts = [0, 3, 10, 30, whole.length]
      const pieces = async function* () {
        for (let i = 0; i + 1 < cuts.length; i += 1) {
          yield whole.subarray(cuts[i], cuts[i + 1])
          await new Promise((resolve) => setTimeout(resolve, 20))
        }
      }
      assert.deepEqual(await post(pieces()), { status: 200, text: expected })
      assert.equal(uploadPacks(), started, 'answered without git')

      // Over 64 KiB of prefixes, gzipped, or an argument git refuses: git's answers.
      const many = lsRefs(['symrefs', ...Array.from({ length: 3000 }, (_, i) => `ref-prefix refs/heads/${'x'.repeat(20)}${i}`), 'ref-prefix HEAD', 'ref-prefix refs/heads/'])
      assert.ok(many.length > 64 * 1024)
      assert.deepEqual(await post(many), { status: 200, text: expected })
      assert.deepEqual(await post(gzipSync(lsRefs(['symrefs'])), { 'content-encoding': 'gzip' }), { status: 200, text: expected })
      assert.deepEqual(await post(lsRefs(['symrefs', 'frobnicate'])), { status: 400, text: 'The request could not be processed by git.\n' })
      assert.equal(uploadPacks(), started + 3)

      // A fetch's request goes to git whole, the pkt-line read to tell it from ls-refs first.
      started = uploadPacks()
      const fetchRequest = Buffer.from(`${pkt('command=fetch\n')}0001${pkt('no-progress\n')}${pkt(`want ${commit}\n`)}${pkt('done\n')}0000`)
      const fetched = await post(fetchRequest)
      assert.equal(fetched.status, 200)
      assert.match(fetched.text, /^000dpackfile\n/)
      assert.ok(fetched.text.includes('PACK'))
      assert.equal(uploadPacks(), started + 1)
    })

    it('reads gzip request bodies: a negotiation over many refs, and a crafted request', async () => {
      const { project, commit } = await projectWithCommit('private')
      const repo = t.ctx.repositories.open(project.id)
      // 60 branches: the wants alone pass the 1 KiB above which git gzips its request.
      for (let i = 0; i < 60; i += 1) await repo.run(['update-ref', `refs/heads/branch-${String(i).padStart(2, '0')}`, commit])
      const dir = workdir()
      const result = await client.git(['clone', '--mirror', await urlOf(project, login(owner)), dir], { env: { GIT_TRACE_CURL: '1', GIT_TRACE_CURL_NO_DATA: '1' } })
      assert.equal(result.code, 0, result.stderr)
      assert.match(result.stderr, /Content-Encoding: gzip/)
      assert.equal((await client.ok(['for-each-ref', '--format=%(refname)', 'refs/heads/'], { cwd: dir })).trim().split('\n').length, 61)

      const pkt = (line: string) => `${(line.length + 4).toString(16).padStart(4, '0')}${line}`
      const body = gzipSync(`${pkt(`want ${commit} ofs-delta\n`)}0000${pkt('done\n')}`)
      const res = await fetch(`${client.baseUrl}/${await fullPathOf(project)}.git/git-upload-pack`, {
        method: 'POST',
        body,
        headers: {
          'content-type': 'application/x-git-upload-pack-request',
          'content-encoding': 'gzip',
          authorization: `Basic ${Buffer.from(`${owner.user.username}:${PASSWORD}`).toString('base64')}`,
        },
      })
      assert.equal(res.status, 200)
      assert.equal(res.headers.get('content-type'), 'application/x-git-upload-pack-result')
      const answer = Buffer.from(await res.arrayBuffer())
      assert.equal(answer.subarray(0, 8).toString(), '0008NAK\n')
      assert.equal(answer.subarray(8, 12).toString(), 'PACK')

      const broken = await fetch(`${client.baseUrl}/${await fullPathOf(project)}.git/git-upload-pack`, {
        method: 'POST',
        body: Buffer.concat([body.subarray(0, 10), Buffer.from('not gzip at all')]),
        headers: {
          'content-type': 'application/x-git-upload-pack-request',
          'content-encoding': 'gzip',
          authorization: `Basic ${Buffer.from(`${owner.user.username}:${PASSWORD}`).toString('base64')}`,
        },
      })
      assert.equal(broken.status, 400)
      assert.equal(await broken.text(), 'The request body could not be read.\n')

      // A readable body git cannot make sense of is the client's error too, never a 500.
      const garbled = await fetch(`${client.baseUrl}/${await fullPathOf(project)}.git/git-upload-pack`, {
        method: 'POST',
        body: 'zzzz this is no pkt-line',
        headers: {
          'content-type': 'application/x-git-upload-pack-request',
          authorization: `Basic ${Buffer.from(`${owner.user.username}:${PASSWORD}`).toString('base64')}`,
        },
      })
      assert.equal(garbled.status, 400)
      assert.equal(await garbled.text(), 'The request could not be processed by git.\n')
    })

    it('advertises refs with the service preamble, the content type and no-cache headers', async () => {
      const { project, commit } = await projectWithCommit('public')
      const res = await fetch(`${client.baseUrl}/${await fullPathOf(project)}.git/info/refs?service=git-upload-pack`)
      assert.equal(res.status, 200)
      assert.equal(res.headers.get('content-type'), 'application/x-git-upload-pack-advertisement')
      assert.equal(res.headers.get('cache-control'), 'no-cache, max-age=0, must-revalidate')
      assert.equal(res.headers.get('pragma'), 'no-cache')
      const text = await res.text()
      assert.ok(text.startsWith('001e# service=git-upload-pack\n0000'), text.slice(0, 40))
      assert.ok(text.includes(`${commit} refs/heads/master`))
    })

    it('refuses what is not a smart HTTP request', async () => {
      const { project } = await projectWithCommit('public')
      const base = `${client.baseUrl}/${await fullPathOf(project)}.git`
      const auth = { authorization: `Basic ${Buffer.from(`${owner.user.username}:${PASSWORD}`).toString('base64')}` }
      const dumb = await fetch(`${base}/info/refs`, { headers: auth })
      assert.equal(dumb.status, 403)
      assert.equal(await dumb.text(), "The command you're trying to execute is not allowed.\n")
      const wrongType = await fetch(`${base}/git-upload-pack`, { method: 'POST', body: '0000', headers: { ...auth, 'content-type': 'text/plain' } })
      assert.equal(wrongType.status, 415)
      const notGit = await fetch(`${client.baseUrl}/${await fullPathOf(project)}.git/objects/info/packs`)
      assert.equal(notGit.status, 404)
      const getPack = await fetch(`${base}/git-upload-pack`)
      assert.equal(getPack.status, 404)
    })
  })

  describe('push', () => {
    it('records the first push: pushed event, default branch, protected default branch', async () => {
      const project = await makeProject(t, owner, { visibility: 'private' })
      assert.equal(project.default_branch, null)
      assert.equal((await t.api('GET', `/projects/${project.id}`)).body.empty_repo, true)
      const dir = workdir()
      await client.ok(['init', '-q', dir])
      const first = await commitIn(dir, 'README.md', 'hello\n', 'Add the readme')
      await client.ok(['push', await urlOf(project, login(owner)), 'HEAD:refs/heads/main'], { cwd: dir })

      assert.equal(await refOnServer(project, 'refs/heads/main'), first)
      const res = await t.api('GET', `/projects/${project.id}`)
      assert.equal(res.body.default_branch, 'main')
      assert.equal(res.body.empty_repo, false)
      // The push scheduled the statistics refresh (due a moment later).
      while (await t.ctx.jobs.runDue(Date.now() + STATISTICS_REFRESH_DELAY_MS) > 0) { /* the push's jobs */ }
      assert.equal((await t.api('GET', `/projects/${project.id}`, { query: { statistics: true } })).body.statistics.commit_count, 1)
      const [event] = await pushEvents(project)
      assert.equal(event?.author_id, owner.user.id)
      assert.equal(event?.action_name, 'pushed new')
      assert.deepEqual(event?.push_data, {
        commit_count: 1, action: 'created', ref_type: 'branch', commit_from: null, commit_to: first, ref: 'main', commit_title: 'Add the readme',
      })
      const rules = await t.api('GET', `/projects/${project.id}/protected_branches`)
      assert.deepEqual(rules.body.map((rule: { name: string }) => rule.name), ['main'])
    })

    it('answers a push\'s ref advertisement without git once git gave its capabilities: a push starts one receive-pack', async () => {
      const { project, commit } = await projectWithCommit('private')
      const repo = t.ctx.repositories.open(project.id)
      await repo.run(['update-ref', 'refs/merge-requests/1/head', commit])
      const dir = await cloneOf(project, login(owner))
      await commitIn(dir, 'one.txt', '1\n')
      await client.ok(['push', 'origin', 'HEAD:refs/heads/first'], { cwd: dir })
      const started = gitProcessCounts().get('receive-pack')?.started ?? 0
      const second = await commitIn(dir, 'two.txt', '2\n')
      const result = await client.git(['push', 'origin', 'HEAD:refs/heads/master'], { cwd: dir, env: { GIT_TRACE_PACKET: '1' } })
      assert.equal(result.code, 0, result.stderr)
      // The POST's receive-pack alone; the advertisement listed the branches, not the hidden ref.
      assert.equal(gitProcessCounts().get('receive-pack')?.started, started + 1)
      assert.match(result.stderr, /git< [0-9a-f]{40} refs\/heads\/first\\0report-status /)
      assert.doesNotMatch(result.stderr, /refs\/merge-requests/)
      assert.equal(await refOnServer(project, 'refs/heads/master'), second)
    })

    it('starts the POST\'s receive-pack once a pusher\'s advertisement is answered, and the POST takes it', async () => {
      const { project } = await projectWithCommit('private')
      const reporter = await makeUser(t)
      await makeMember(t, { type: 'project', id: project.id }, reporter, REPORTER)
      const dir = await cloneOf(project, login(owner))
      await commitIn(dir, 'one.txt', '1\n')
      await client.ok(['push', 'origin', 'HEAD:refs/heads/master'], { cwd: dir })
      const receivePacks = () => ({ running: 0, started: 0, ...gitProcessCounts().get('receive-pack') })
      const advertisementUrl = `${client.baseUrl}/${await fullPathOf(project)}.git/info/refs?service=git-receive-pack`
      const advertise = async (user: TestUser | null) => {
        const res = await fetch(advertisementUrl, user === null ? {} : {
          headers: { authorization: `Basic ${Buffer.from(`${user.user.username}:${PASSWORD}`).toString('base64')}` },
        })
        await res.arrayBuffer()
        return res.status
      }
      const idle = receivePacks()
      assert.equal(await advertise(null), 401)
      assert.equal(await advertise(reporter), 403)
      assert.equal(await advertise(owner), 200)
      // Started once the answer has gone, so the client may read it first.
      await until(() => receivePacks().running > idle.running, 'the started receive-pack')
      const waiting = receivePacks()
      assert.equal(waiting.started, idle.started + 1, 'only the pusher\'s advertisement starts one')
      // The push's own advertisement finds one waiting, and its POST takes that one.
      const second = await commitIn(dir, 'two.txt', '2\n')
      await client.ok(['push', 'origin', 'HEAD:refs/heads/master'], { cwd: dir })
      assert.equal(receivePacks().started, waiting.started)
      assert.equal(await refOnServer(project, 'refs/heads/master'), second)
      const [event] = await pushEvents(project)
      assert.equal(event?.push_data.commit_to, second, 'recorded before the push returned')
    })

    it('lets a Developer push a branch, and records commit counts of later pushes', async () => {
      const { project, commit } = await projectWithCommit('private')
      const developer = await makeUser(t)
      await makeMember(t, { type: 'project', id: project.id }, developer, DEVELOPER)
      const dir = await cloneOf(project, login(developer))
      await client.ok(['checkout', '-q', '-b', 'feature'], { cwd: dir })
      await commitIn(dir, 'one.txt', '1\n')
      const second = await commitIn(dir, 'two.txt', '2\n', 'Second change')
      await client.ok(['push', 'origin', 'feature'], { cwd: dir })
      const third = await commitIn(dir, 'three.txt', '3\n', 'Third change')
      await client.ok(['push', 'origin', 'feature'], { cwd: dir })

      assert.equal(await refOnServer(project, 'refs/heads/feature'), third)
      const events = await pushEvents(project)
      assert.deepEqual(events.map((e) => [e.author_id, e.push_data]), [
        [developer.user.id, { commit_count: 1, action: 'pushed', ref_type: 'branch', commit_from: second, commit_to: third, ref: 'feature', commit_title: 'Third change' }],
        [developer.user.id, { commit_count: 2, action: 'created', ref_type: 'branch', commit_from: null, commit_to: second, ref: 'feature', commit_title: 'Second change' }],
      ])
      assert.notEqual(commit, second)
    })

    it('refuses a push by a Reporter (403) and asks anonymous callers for credentials', async () => {
      const { project, commit } = await projectWithCommit('public')
      const reporter = await makeUser(t)
      await makeMember(t, { type: 'project', id: project.id }, reporter, REPORTER)
      const dir = await cloneOf(project, login(reporter))
      await commitIn(dir, 'x.txt', 'x\n')
      const refused = await client.git(['push', 'origin', 'master'], { cwd: dir })
      assert.notEqual(refused.code, 0)
      assert.match(refused.stderr, /remote: You are not allowed to push code to this project\./)
      assert.match(refused.stderr, /returned error: 403/)

      const anonymous = await client.git(['push', await urlOf(project), 'master'], { cwd: dir })
      assert.match(anonymous.stderr, PROMPT_REFUSED)
      const readOnly = await makeToken(t, owner.user.id, ['read_repository'])
      const byReadToken = await client.git(['push', await urlOf(project, { username: 'x', password: readOnly.token }), 'master'], { cwd: dir })
      assert.match(byReadToken.stderr, /remote: You are not allowed to upload code\./)
      assert.equal(await refOnServer(project, 'refs/heads/master'), commit)
    })

    it('refuses pushes the protected branch rules forbid, with the reason on the terminal', async () => {
      const project = await makeProject(t, owner, { visibility: 'private' })
      const maintainer = await makeUser(t)
      const developer = await makeUser(t)
      await makeMember(t, { type: 'project', id: project.id }, maintainer, MAINTAINER)
      await makeMember(t, { type: 'project', id: project.id }, developer, DEVELOPER)
      const dir = workdir()
      await client.ok(['init', '-q', dir])
      const base = await commitIn(dir, 'a.txt', 'a\n')
      const tip = await commitIn(dir, 'b.txt', 'b\n')
      // By default_branch_protection 2, the first push (it makes the default branch) is a Maintainer's.
      const first = await client.git(['push', await urlOf(project, login(developer)), 'master'], { cwd: dir })
      assert.match(first.stderr, /remote: You are not allowed to push code to protected branches on this project\./)
      assert.equal(await refOnServer(project, 'refs/heads/master'), null)
      await client.ok(['push', await urlOf(project, login(maintainer)), 'master'], { cwd: dir })
      assert.equal(await refOnServer(project, 'refs/heads/master'), tip)

      // master became the default branch, protected for Maintainers.
      await client.ok(['reset', '-q', '--hard', base], { cwd: dir })
      const rewrite = await commitIn(dir, 'c.txt', 'c\n')
      const forced = await client.git(['push', '--force', await urlOf(project, login(maintainer)), 'master'], { cwd: dir })
      assert.notEqual(forced.code, 0)
      assert.match(forced.stderr, /remote: You are not allowed to force push code to a protected branch on this project\./)
      assert.match(forced.stderr, /\[remote rejected\] master -> master \(pre-receive hook declined\)/)

      const byDeveloper = await client.git(['push', '--force', await urlOf(project, login(developer)), `${rewrite}:refs/heads/master`], { cwd: dir })
      assert.match(byDeveloper.stderr, /remote: You are not allowed to push code to protected branches on this project\./)
      const deleted = await client.git(['push', await urlOf(project, login(maintainer)), ':master'], { cwd: dir })
      assert.match(deleted.stderr, /remote: The default branch of a project cannot be deleted\./)
      assert.equal(await refOnServer(project, 'refs/heads/master'), tip)

      // A force push of an unprotected branch goes through.
      await client.ok(['push', await urlOf(project, login(developer)), `${tip}:refs/heads/topic`], { cwd: dir })
      await client.ok(['push', '--force', await urlOf(project, login(developer)), `${rewrite}:refs/heads/topic`], { cwd: dir })
      assert.equal(await refOnServer(project, 'refs/heads/topic'), rewrite)
    })

    it('pushes tags and deletes branches, recording both', async () => {
      const { project, commit } = await projectWithCommit('private')
      const dir = await cloneOf(project, login(owner))
      await client.ok(['tag', '-a', '-m', 'Version 1', 'v1.0'], { cwd: dir })
      await client.ok(['push', 'origin', 'v1.0', `${commit}:refs/heads/old`], { cwd: dir })
      const tagObject = (await client.ok(['rev-parse', 'v1.0'], { cwd: dir })).trim()
      assert.equal((await t.ctx.repositories.open(project.id).run(['rev-parse', 'refs/tags/v1.0'])).trim(), tagObject)
      // (Pushes fall back to protocol v0 whatever the client prefers.)
      await client.ok(['-c', 'protocol.version=2', 'push', 'origin', '--delete', 'old'], { cwd: dir })
      assert.equal(await refOnServer(project, 'refs/heads/old'), null)

      const events = await pushEvents(project)
      const byRef = Object.fromEntries(events.map((e) => [`${e.push_data.ref_type}:${e.push_data.ref}:${e.push_data.action}`, e.push_data]))
      assert.deepEqual(Object.keys(byRef).sort(), ['branch:old:created', 'branch:old:removed', 'tag:v1.0:created'])
      assert.equal(byRef['tag:v1.0:created']?.commit_to, tagObject)
      assert.equal(byRef['tag:v1.0:created']?.commit_count, 1)
      assert.equal(byRef['branch:old:removed']?.commit_to, null)
      assert.equal(byRef['branch:old:removed']?.commit_from, commit)
    })

    it('records what receive-pack reported took effect, and without a report what the refs show', async () => {
      const { project, commit } = await projectWithCommit('private')
      const repo = t.ctx.repositories.open(project.id)
      await repo.run(['update-ref', 'refs/heads/side', commit])
      const zero = '0'.repeat(40)
      const pkt = (line: string) => `${(Buffer.byteLength(line) + 4).toString(16).padStart(4, '0')}${line}`
      // An empty pack: the objects named are all there already.
      const header = Buffer.from('PACK\0\0\0\x02\0\0\0\0', 'latin1')
      const emptyPack = Buffer.concat([header, createHash('sha1').update(header).digest()])
      const push = async (commands: string[], capabilities: string) => {
        const lines = commands.map((command, i) => pkt(i === 0 ? `${command}\0${capabilities}\n` : `${command}\n`)).join('')
        const res = await fetch(`${client.baseUrl}/${await fullPathOf(project)}.git/git-receive-pack`, {
          method: 'POST',
          body: Buffer.concat([Buffer.from(`${lines}0000`), emptyPack]),
          headers: {
            'content-type': 'application/x-git-receive-pack-request',
            authorization: `Basic ${Buffer.from(`${owner.user.username}:${PASSWORD}`).toString('base64')}`,
          },
        })
        return { status: res.status, body: Buffer.from(await res.arrayBuffer()).toString('latin1') }
      }
      const recorded = async () => (await pushEvents(project)).map((e) => `${e.push_data.ref}:${e.push_data.action}`).sort()

      // The side band and report-status, one update refused by git (its old id is not the ref's).
      const reported = await push([`${zero} ${commit} refs/heads/reported`, `${'1'.repeat(40)} ${commit} refs/heads/side`], 'report-status side-band-64k agent=test')
      assert.equal(reported.status, 200)
      assert.match(reported.body, /ok refs\/heads\/reported\n/)
      assert.match(reported.body, /ng refs\/heads\/side /)
      assert.deepEqual(await recorded(), ['reported:created'])

      // No report asked for: the refs tell what took effect.
      const unreported = await push([`${zero} ${commit} refs/heads/unreported`], 'agent=test')
      assert.deepEqual([unreported.status, unreported.body], [200, ''])
      assert.equal(await refOnServer(project, 'refs/heads/unreported'), commit)
      assert.deepEqual(await recorded(), ['reported:created', 'unreported:created'])
    })

    it('takes refs outside branches and tags (git notes) as the original does, recording no event for them', async () => {
      const { project } = await projectWithCommit('private')
      const dir = await cloneOf(project, login(owner))
      await client.ok(['notes', 'add', '-m', 'Reviewed', 'HEAD'], { cwd: dir })
      const before = (await pushEvents(project)).length
      await client.ok(['push', 'origin', 'refs/notes/commits'], { cwd: dir })
      const notes = (await client.ok(['rev-parse', 'refs/notes/commits'], { cwd: dir })).trim()
      assert.equal((await t.ctx.repositories.open(project.id).run(['rev-parse', 'refs/notes/commits'])).trim(), notes)
      assert.equal((await pushEvents(project)).length, before)
    })

    it('keeps refs of the hidden namespaces out of reach', async () => {
      const { project, commit } = await projectWithCommit('private')
      const dir = await cloneOf(project, login(owner))
      const result = await client.git(['push', 'origin', `${commit}:refs/merge-requests/1/head`], { cwd: dir })
      assert.notEqual(result.code, 0)
      assert.match(result.stderr, /deny updating a hidden ref/)
      assert.equal(await refOnServer(project, 'refs/merge-requests/1/head'), null)
    })

    it('streams packs both ways: memory stays flat while a large pack is pushed and cloned', async () => {
      const { project } = await projectWithCommit('private')
      const dir = await cloneOf(project, login(owner))
      const size = 24 * 1024 * 1024
      // Incompressible, so the pack is as large as the file.
      await commitIn(dir, 'big.bin', randomBytes(size))
      const tip = (await client.ok(['rev-parse', 'HEAD'], { cwd: dir })).trim()
      // Peak of the buffers the server (in this process) holds while git pushes and clones: sampled
      // after a garbage collection, so that only buffers still referenced count.
      v8.setFlagsFromString('--expose-gc')
      const collectGarbage = vm.runInNewContext('gc') as () => void
      const liveBuffers = () => {
        collectGarbage()
        return process.memoryUsage().arrayBuffers
      }
      const peakBuffersDuring = async (action: () => Promise<unknown>) => {
        const baseline = liveBuffers()
        let peak = baseline
        // Each sample is a full collection: every 100 ms sees a pack held whole, without the
        // collections taking the CPU from the push and clone they measure.
        const sampler = setInterval(() => { peak = Math.max(peak, liveBuffers()) }, 100)
        try {
          await action()
        } finally {
          clearInterval(sampler)
        }
        return peak - baseline
      }
      const duringPush = await peakBuffersDuring(() => client.ok(['push', 'origin', 'master'], { cwd: dir }))
      assert.equal(await refOnServer(project, 'refs/heads/master'), tip)
      let copy = ''
      const duringClone = await peakBuffersDuring(async () => { copy = await cloneOf(project, login(owner)) })
      assert.equal((await fs.stat(path.join(copy, 'big.bin'))).size, size)
      assert.ok(duringPush < size / 3, `${duringPush} bytes held during the push`)
      assert.ok(duringClone < size / 3, `${duringClone} bytes held during the clone`)
    })
  })
})
