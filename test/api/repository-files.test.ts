// Repository files (spec: Repository files): GET (Base64), HEAD (the nine X-Service-* headers) and
// raw reads at a branch, tag or commit, small and streamed large files; create, update and delete as
// commits by the caller — exact fields and headers, who may do what, bad input (the spec's 400s:
// `..`, unchanged content, a branch moved meanwhile), and racing writers on one branch.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { commitFiles, TEST_AUTHOR } from '../helpers/git.js'
import { setProjectColumns } from '../helpers/projects.js'
import { expectStatuses, makeMatrix } from '../shared/permission-matrix.js'
import { DEVELOPER, MAINTAINER } from '../../src/policies/access-levels.js'
import type { ProjectRow } from '../../src/db/schema.js'
import { INLINE_BLOB_LIMIT } from '../../src/git/blob.js'

const FILE_FIELDS = [
  'blob_id', 'commit_id', 'content', 'content_sha256', 'encoding', 'file_name', 'file_path', 'last_commit_id', 'ref', 'size',
]
const HEADER_NAMES = [
  'x-service-blob-id', 'x-service-commit-id', 'x-service-content-sha256', 'x-service-encoding', 'x-service-file-name',
  'x-service-file-path', 'x-service-last-commit-id', 'x-service-ref', 'x-service-size',
]
const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex')
const keysOf = (value: object) => Object.keys(value).sort()
const serviceHeaders = (headers: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => name.startsWith('x-service-')).sort(([a], [b]) => a.localeCompare(b)))

describe('repository files', () => {
  let t: TestApp
  let owner: TestUser
  before(async () => {
    t = await buildTestApp()
    owner = await makeUser(t)
  })
  after(async () => { await t.close() })

  const fileUrl = (project: ProjectRow | number, path: string, suffix = '') =>
    `/projects/${typeof project === 'number' ? project : project.id}/repository/files/${encodeURIComponent(path)}${suffix}`

  /** master: `first` adds the files, `second` changes only other.txt; tag v1 at first. */
  async function projectWithFiles(visibility: 'private' | 'public' = 'private') {
    const project = await makeProject(t, owner, { visibility })
    const first = await commitFiles(t, project.id, { 'docs/guide/read me.md': '# Guide\n', 'other.txt': 'a\n', 'bin/blob': Buffer.from([0, 1, 2, 255]) })
    const second = await commitFiles(t, project.id, { 'other.txt': 'b\n' })
    const repo = t.ctx.repositories.open(project.id)
    await repo.run(['tag', 'v1', first])
    const blobId = (await repo.run(['rev-parse', `${first}:docs/guide/read me.md`])).trim()
    return { project, first, second, repo, blobId }
  }

  /** The content of `path` on master, or null when absent. */
  async function contentOn(project: ProjectRow, path: string, branch = 'master'): Promise<string | null> {
    const object = await t.ctx.repositories.open(project.id).read(`refs/heads/${branch}:${path}`)
    return object === null ? null : object.data.toString('utf8')
  }

  describe('reads', () => {
    it('GET shows the file at a branch with its metadata, the same in X-Service-* headers', async () => {
      const { project, first, second, blobId } = await projectWithFiles()
      const res = await t.api('GET', fileUrl(project, 'docs/guide/read me.md'), { token: owner.token, query: { ref: 'master' } })
      assert.equal(res.status, 200)
      assert.deepEqual(keysOf(res.body), FILE_FIELDS)
      const expected = {
        file_name: 'read me.md', file_path: 'docs/guide/read me.md', size: 8, encoding: 'base64',
        content_sha256: sha256('# Guide\n'), ref: 'master', blob_id: blobId, commit_id: second, last_commit_id: first,
      }
      assert.deepEqual(res.body, { ...expected, content: Buffer.from('# Guide\n').toString('base64') })
      assert.deepEqual(keysOf(serviceHeaders(res.headers)), HEADER_NAMES)
      assert.equal(res.headers['x-service-last-commit-id'], first)
    })

    it('GET reads at a tag and at a commit SHA, and a binary file', async () => {
      const { project, first } = await projectWithFiles()
      const byTag = await t.api('GET', fileUrl(project, 'other.txt'), { token: owner.token, query: { ref: 'v1' } })
      assert.equal(byTag.status, 200)
      assert.deepEqual([byTag.body.ref, byTag.body.commit_id, Buffer.from(byTag.body.content, 'base64').toString()], ['v1', first, 'a\n'])
      const bySha = await t.api('GET', fileUrl(project, 'other.txt'), { token: owner.token, query: { ref: first.slice(0, 10) } })
      assert.deepEqual([bySha.status, bySha.body.commit_id, bySha.body.ref], [200, first, first.slice(0, 10)])
      const binary = await t.api('GET', fileUrl(project, 'bin/blob'), { token: owner.token, query: { ref: 'master' } })
      assert.deepEqual(Buffer.from(binary.body.content, 'base64'), Buffer.from([0, 1, 2, 255]))
      assert.equal(binary.body.content_sha256, sha256(Buffer.from([0, 1, 2, 255])))
    })

    it('HEAD answers the nine X-Service-* headers and no body', async () => {
      const { project, first, second, blobId } = await projectWithFiles()
      const res = await t.api('HEAD', fileUrl(project, 'docs/guide/read me.md'), { token: owner.token, query: { ref: 'master' } })
      assert.equal(res.status, 200)
      assert.equal(res.text, '')
      assert.deepEqual(serviceHeaders(res.headers), {
        'x-service-blob-id': blobId,
        'x-service-commit-id': second,
        'x-service-content-sha256': sha256('# Guide\n'),
        'x-service-encoding': 'base64',
        'x-service-file-name': 'read me.md',
        'x-service-file-path': 'docs/guide/read me.md',
        'x-service-last-commit-id': first,
        'x-service-ref': 'master',
        'x-service-size': '8',
      })
      const missing = await t.api('HEAD', fileUrl(project, 'nope.txt'), { token: owner.token, query: { ref: 'master' } })
      assert.equal(missing.status, 404)
    })

    it('sends a non-ASCII file name as the UTF-8 bytes of its header value', async () => {
      const project = await makeProject(t, owner)
      await commitFiles(t, project.id, { 'données/résumé ✓.txt': 'ok\n' })
      const res = await t.api('HEAD', fileUrl(project, 'données/résumé ✓.txt'), { token: owner.token, query: { ref: 'master' } })
      assert.equal(res.status, 200)
      assert.equal(Buffer.from(String(res.headers['x-service-file-name']), 'latin1').toString('utf8'), 'résumé ✓.txt')
      const get = await t.api('GET', fileUrl(project, 'données/résumé ✓.txt'), { token: owner.token, query: { ref: 'master' } })
      assert.deepEqual([get.status, get.body.file_path], [200, 'données/résumé ✓.txt'])
    })

    it('raw sends the bytes with their content type and the metadata headers, also for HEAD', async () => {
      const { project } = await projectWithFiles()
      const text = await t.api('GET', fileUrl(project, 'docs/guide/read me.md', '/raw'), { token: owner.token, query: { ref: 'master' } })
      assert.equal(text.status, 200)
      assert.equal(text.text, '# Guide\n')
      assert.equal(text.headers['content-type'], 'text/plain; charset=utf-8')
      assert.equal(text.headers['x-service-file-path'], 'docs/guide/read me.md')
      const binary = await t.api('GET', fileUrl(project, 'bin/blob', '/raw'), { token: owner.token, query: { ref: 'master' } })
      assert.equal(binary.headers['content-type'], 'application/octet-stream')
      assert.equal(binary.headers['content-length'], '4')
      const head = await t.api('HEAD', fileUrl(project, 'other.txt', '/raw'), { token: owner.token, query: { ref: 'master' } })
      assert.deepEqual([head.status, head.text, head.headers['x-service-size']], [200, '', '2'])
    })

    it('streams a file too large to hold, for GET and raw', async () => {
      const project = await makeProject(t, owner)
      const big = Buffer.alloc(INLINE_BLOB_LIMIT + 1000, 'abcdefghij')
      await commitFiles(t, project.id, { 'big.txt': big })
      const res = await t.api('GET', fileUrl(project, 'big.txt'), { token: owner.token, query: { ref: 'master' } })
      assert.equal(res.status, 200)
      assert.deepEqual(keysOf(res.body), FILE_FIELDS)
      assert.equal(res.body.size, big.length)
      assert.equal(res.body.content_sha256, sha256(big))
      assert.ok(Buffer.from(res.body.content, 'base64').equals(big))
      assert.equal(res.headers['x-service-content-sha256'], sha256(big))
      const raw = await t.api('GET', fileUrl(project, 'big.txt', '/raw'), { token: owner.token, query: { ref: 'master' } })
      assert.equal(raw.status, 200)
      assert.equal(raw.text.length, big.length)
      assert.equal(sha256(raw.text), sha256(big))
    })

    it('refuses a missing or blank ref and a bad path, and answers 404 for an unknown ref or file', async () => {
      const { project } = await projectWithFiles()
      const get = (path: string, query: Record<string, string>) => t.api('GET', fileUrl(project, path), { token: owner.token, query })
      assert.deepEqual(await get('other.txt', {}).then((r) => [r.status, r.body]), [400, { error: 'ref is missing' }])
      assert.deepEqual(await get('other.txt', { ref: '' }).then((r) => [r.status, r.body]), [400, { error: 'ref is empty' }])
      assert.deepEqual(await get('../other.txt', { ref: 'master' }).then((r) => [r.status, r.body]), [400, { error: 'file_path is invalid' }])
      assert.deepEqual(await get('docs/../other.txt', { ref: 'master' }).then((r) => [r.status, r.body]), [400, { error: 'file_path is invalid' }])
      assert.deepEqual(await get('other.txt', { ref: 'nope' }).then((r) => [r.status, r.body]), [404, { message: '404 Commit Not Found' }])
      assert.deepEqual(await get('other.txt', { ref: '--all' }).then((r) => [r.status, r.body]), [404, { message: '404 Commit Not Found' }])
      assert.deepEqual(await get('nope.txt', { ref: 'master' }).then((r) => [r.status, r.body]), [404, { message: '404 File Not Found' }])
      assert.deepEqual(await get('docs/guide', { ref: 'master' }).then((r) => [r.status, r.body]), [404, { message: '404 File Not Found' }])
      const raw = await t.api('GET', fileUrl(project, 'nope.txt', '/raw'), { token: owner.token, query: { ref: 'master' } })
      assert.deepEqual([raw.status, raw.body], [404, { message: '404 File Not Found' }])
    })

    it('lets readers of the code read: anonymous on public projects, Reporters and up on private ones', async () => {
      for (const visibility of ['private', 'public'] as const) {
        const m = await makeMatrix(t, visibility)
        await commitFiles(t, m.project.id, { 'a.txt': 'a\n' })
        for (const suffix of ['', '/raw']) {
          const statuses = visibility === 'private'
            ? { anonymous: 404, nonMember: 404, guest: 403, reporter: 200, developer: 200, admin: 200, external: 404 }
            : { anonymous: 200, nonMember: 200, guest: 200, reporter: 200, external: 200 }
          await expectStatuses(m, (token) => t.api('GET', fileUrl(m.project, 'a.txt', suffix), { token, query: { ref: 'master' } }), statuses)
        }
        const hidden = await t.api('GET', fileUrl(m.project, 'a.txt'), { token: null, query: { ref: 'master' } })
        if (visibility === 'private') assert.deepEqual(hidden.body, { message: '404 Project Not Found' })
      }
    })
  })

  describe('writes', () => {
    it('POST creates the file in a commit by the caller and answers {file_path, branch}', async () => {
      const { project, second, repo } = await projectWithFiles()
      const res = await t.api('POST', fileUrl(project, 'new/file.txt'), {
        token: owner.token, body: { branch: 'master', content: 'new\n', commit_message: 'Add a file' },
      })
      assert.equal(res.status, 201)
      assert.deepEqual(res.body, { file_path: 'new/file.txt', branch: 'master' })
      assert.equal(await contentOn(project, 'new/file.txt'), 'new\n')
      const commit = await repo.readCommit(await repo.resolveCommit('master') ?? '')
      assert.deepEqual(commit?.parents, [second])
      assert.equal(commit?.message, 'Add a file')
      assert.deepEqual([commit?.author.name, commit?.author.email, commit?.committer.email], [owner.user.name, owner.user.email, owner.user.email])
      const event = await t.ctx.db.selectFrom('events').selectAll().where('project_id', '=', project.id).where('action', '=', 'pushed').executeTakeFirst()
      assert.ok(event !== undefined, 'the write is recorded as a push')
    })

    it('POST takes base64 content, author overrides and start_branch (a new branch)', async () => {
      const { project, second, repo } = await projectWithFiles()
      const res = await t.api('POST', fileUrl(project, 'bin/new'), {
        token: owner.token,
        body: {
          branch: 'feature', start_branch: 'master', content: Buffer.from([9, 0, 9]).toString('base64'), encoding: 'base64',
          commit_message: 'Binary', author_name: TEST_AUTHOR.name, author_email: TEST_AUTHOR.email,
        },
      })
      assert.deepEqual([res.status, res.body], [201, { file_path: 'bin/new', branch: 'feature' }])
      const tip = await repo.resolveCommit('feature')
      const commit = await repo.readCommit(tip ?? '')
      assert.deepEqual(commit?.parents, [second])
      assert.deepEqual([commit?.author.name, commit?.author.email], [TEST_AUTHOR.name, TEST_AUTHOR.email])
      assert.deepEqual([commit?.committer.name, commit?.committer.email], [owner.user.name, owner.user.email])
      assert.deepEqual((await repo.read(`${tip}:bin/new`))?.data, Buffer.from([9, 0, 9]))
      assert.equal(await repo.resolveCommit('master'), second, 'master stays')
    })

    it('PUT updates the file, checking last_commit_id, and refuses unchanged content', async () => {
      const { project, first } = await projectWithFiles()
      const put = (body: Record<string, unknown>) => t.api('PUT', fileUrl(project, 'docs/guide/read me.md'), {
        token: owner.token, body: { branch: 'master', commit_message: 'Edit', ...body },
      })
      const stale = await put({ content: 'x\n', last_commit_id: '1'.repeat(40) })
      assert.deepEqual([stale.status, stale.body], [400, { message: 'You are attempting to update a file that has changed since you started editing it.' }])
      const res = await put({ content: '# Guide v2\n', last_commit_id: first })
      assert.deepEqual([res.status, res.body], [200, { file_path: 'docs/guide/read me.md', branch: 'master' }])
      assert.equal(await contentOn(project, 'docs/guide/read me.md'), '# Guide v2\n')
      const same = await put({ content: '# Guide v2\n' })
      assert.deepEqual([same.status, same.body], [400, { message: 'You are attempting to update a file with the same content' }])
      const missing = await t.api('PUT', fileUrl(project, 'nope.txt'), { token: owner.token, body: { branch: 'master', commit_message: 'Edit', content: 'x' } })
      assert.deepEqual([missing.status, missing.body], [400, { message: "A file with this name doesn't exist" }])
    })

    it('reads a file at a branch as it is now, after writes, and at an older commit as it was', async () => {
      const { project, first } = await projectWithFiles()
      const get = (ref: string) => t.api('GET', fileUrl(project, 'docs/guide/read me.md'), { token: owner.token, query: { ref } })
      const before = await get('master')
      assert.equal(before.status, 200)
      const put = await t.api('PUT', fileUrl(project, 'docs/guide/read me.md'), {
        token: owner.token, body: { branch: 'master', commit_message: 'Edit', content: '# Guide v3\n' },
      })
      assert.equal(put.status, 200)
      const after = await get('master')
      assert.equal(Buffer.from(after.body.content, 'base64').toString(), '# Guide v3\n')
      assert.notEqual(after.body.commit_id, before.body.commit_id)
      assert.equal(after.body.last_commit_id, after.body.commit_id)
      assert.notEqual(after.body.content_sha256, before.body.content_sha256)
      const raw = await t.api('GET', `${fileUrl(project, 'docs/guide/read me.md')}/raw`, { token: owner.token, query: { ref: 'master' } })
      assert.deepEqual([raw.text, raw.headers['x-service-last-commit-id']], ['# Guide v3\n', after.body.commit_id])
      assert.deepEqual((await get(first)).body, { ...before.body, ref: first, commit_id: first })
    })

    it('DELETE removes the file, with its parameters in the query or the body, and answers 204', async () => {
      const { project } = await projectWithFiles()
      const byQuery = await t.api('DELETE', fileUrl(project, 'other.txt'), { token: owner.token, query: { branch: 'master', commit_message: 'Remove' } })
      assert.deepEqual([byQuery.status, byQuery.text], [204, ''])
      assert.equal(await contentOn(project, 'other.txt'), null)
      const byBody = await t.api('DELETE', fileUrl(project, 'docs/guide/read me.md'), { token: owner.token, body: { branch: 'master', commit_message: 'Remove' } })
      assert.equal(byBody.status, 204)
      assert.equal(await contentOn(project, 'docs/guide/read me.md'), null)
      const again = await t.api('DELETE', fileUrl(project, 'other.txt'), { token: owner.token, body: { branch: 'master', commit_message: 'Remove' } })
      assert.deepEqual([again.status, again.body], [400, { message: "A file with this name doesn't exist" }])
    })

    it('answers the spec 400s and the original parameter errors', async () => {
      const { project, second, repo } = await projectWithFiles()
      const post = (path: string, body: Record<string, unknown>) => t.api('POST', fileUrl(project, path), { token: owner.token, body })
      const valid = { branch: 'master', content: 'x', commit_message: 'Add' }
      const cases: [string, Record<string, unknown>, number, unknown][] = [
        ['../escape.txt', valid, 400, { message: 'Path cannot include directory traversal' }],
        ['docs/../../escape.txt', valid, 400, { message: 'Path cannot include directory traversal' }],
        ['other.txt', valid, 400, { message: 'A file with this name already exists' }],
        ['docs/guide', valid, 400, { message: 'A directory with this name already exists' }],
        ['a.txt', { branch: 'master', content: 'x' }, 400, { error: 'commit_message is missing' }],
        ['a.txt', { commit_message: 'x', content: 'x' }, 400, { error: 'branch is missing' }],
        ['a.txt', { branch: 'master', commit_message: 'x' }, 400, { error: 'content is missing' }],
        ['a.txt', { ...valid, branch: '' }, 400, { error: 'branch is empty' }],
        ['a.txt', { ...valid, commit_message: ' ' }, 400, { error: 'commit_message is empty' }],
        ['a.txt', { ...valid, encoding: 'utf16' }, 400, { error: 'encoding is invalid' }],
        ['a.txt', { ...valid, branch: 'nope' }, 400, { message: 'You can only create or edit files when you are on a branch' }],
        ['a.txt', { ...valid, branch: 'master', start_branch: 'v1' }, 400,
          { message: "A branch called 'master' already exists. Switch to that branch in order to make changes" }],
      ]
      for (const [path, body, status, expected] of cases) {
        const res = await post(path, body)
        assert.deepEqual([res.status, res.body], [status, expected], `${path} ${JSON.stringify(body)}`)
      }
      assert.equal(await repo.resolveCommit('master'), second, 'nothing was committed')
    })

    it('lets Developers and up write; 401 anonymous, 403 below Developer, 404 outsiders of a private project', async () => {
      const m = await makeMatrix(t, 'private')
      await commitFiles(t, m.project.id, { 'a.txt': 'a\n' })
      await expectStatuses(m, (token, persona) => t.api('POST', fileUrl(m.project, `by-${persona}.txt`), {
        token, body: { branch: 'master', content: persona, commit_message: `by ${persona}` },
      }), { anonymous: 401, nonMember: 404, guest: 403, reporter: 403, developer: 201, maintainer: 201, owner: 201, admin: 201, external: 404, blocked: 403 })
      for (const method of ['PUT', 'DELETE'] as const) {
        await expectStatuses(m, (token) => t.api(method, fileUrl(m.project, 'a.txt'), {
          token, body: { branch: 'master', content: 'changed', commit_message: 'x' },
        }), { anonymous: 401, reporter: 403 })
      }
      const publicMatrix = await makeMatrix(t, 'public')
      await commitFiles(t, publicMatrix.project.id, { 'a.txt': 'a\n' })
      await expectStatuses(publicMatrix, (token) => t.api('POST', fileUrl(publicMatrix.project, 'x.txt'), {
        token, body: { branch: 'master', content: 'x', commit_message: 'x' },
      }), { anonymous: 401, nonMember: 403, reporter: 403 })
      assert.equal(await contentOn(publicMatrix.project, 'x.txt'), null)
    })

    it('answers the push rules for a protected branch, and 403 on an archived project', async () => {
      const { project, second, repo } = await projectWithFiles()
      const developer = await makeUser(t)
      await makeMember(t, { type: 'project', id: project.id }, developer, DEVELOPER)
      const now = Date.now()
      await t.ctx.db.insertInto('protected_branches')
        .values({ project_id: project.id, name: 'master', push_access_level: MAINTAINER, merge_access_level: MAINTAINER, created_at: now, updated_at: now })
        .execute()
      const body = { branch: 'master', content: 'x', commit_message: 'x' }
      const refused = await t.api('POST', fileUrl(project, 'x.txt'), { token: developer.token, body })
      assert.deepEqual([refused.status, refused.body], [400, { message: 'You are not allowed to push code to protected branches on this project.' }])
      assert.equal(await repo.resolveCommit('master'), second)
      await setProjectColumns(t, project.id, { archived: 1 })
      const archived = await t.api('POST', fileUrl(project, 'y.txt'), { token: owner.token, body })
      assert.equal(archived.status, 403)
    })

    it('never loses a commit when writers race on one branch: every success is in history, the others get 400', async () => {
      const { project, second, repo } = await projectWithFiles()
      const writers = Array.from({ length: 10 }, (_, i) => i)
      const results = await Promise.all(writers.map((i) => t.api(i % 2 === 0 ? 'POST' : 'PUT', fileUrl(project, i % 2 === 0 ? `race/${i}.txt` : 'other.txt'), {
        token: owner.token, body: { branch: 'master', content: `writer ${i}\n`, commit_message: `writer ${i}` },
      })))
      const succeeded = writers.filter((i) => results[i]?.status === 200 || results[i]?.status === 201)
      assert.ok(succeeded.length >= 1)
      for (const i of writers.filter((w) => !succeeded.includes(w))) {
        assert.deepEqual([results[i]?.status, results[i]?.body], [400, { message: 'Could not update branch master. Please refresh and try again.' }])
      }
      const messages = (await repo.run(['log', '--format=%s', `${second}..master`])).split('\n').filter((line) => line !== '')
      assert.deepEqual([...messages].sort(), succeeded.map((i) => `writer ${i}`).sort(), 'exactly the successful writes are in history')
      for (const i of succeeded.filter((w) => w % 2 === 0)) assert.equal(await contentOn(project, `race/${i}.txt`), `writer ${i}\n`)
    })
  })
})
