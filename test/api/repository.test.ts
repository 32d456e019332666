// Repository reads (spec: Repository): tree, blobs and raw blobs, archives in every format, compare,
// contributors and merge_base, on real bare repositories built with commitFiles — exact field sets,
// who may read them (404 for private projects, 403 below Reporter), pagination, and bad input
// (unknown refs and SHAs, option-looking refs, `..` paths).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import { expectPaginates, expectRejectsBadPagination } from '../shared/pagination.js'
import { expectStatuses, makeMatrix, type Matrix } from '../shared/permission-matrix.js'
import type { ProjectRow } from '../../src/db/schema.js'
import { ArchiverMissingError, streamArchive } from '../../src/git/archive.js'
import type { Visibility } from '../../src/policies/access-levels.js'

const run = promisify(execFile)

const COMMIT_FIELDS = [
  'author_email', 'author_name', 'authored_date', 'committed_date', 'committer_email', 'committer_name', 'created_at', 'id',
  'message', 'parent_ids', 'short_id', 'title',
]
const ADA = { name: 'Ada Lovelace', email: 'ada@example.com' }
const BOB = { name: 'bob', email: 'Bob@example.com' }
const CY = { name: 'Cy Young', email: 'cy@example.com' }

/** Bytes that git takes for binary: a NUL among the first 8,000. */
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0xff, 0x00])

describe('Repository API', () => {
  let t: TestApp
  let owner: TestUser
  let project: ProjectRow
  /** master: first → second; feature/x branches off first. */
  const sha = { first: '', second: '', feature: '' }
  let base: string

  const oid = async (name: string) => {
    const info = await t.ctx.repositories.open(project.id).info(name)
    assert.ok(info !== null, name)
    return info.oid
  }

  before(async () => {
    t = await buildTestApp()
    owner = await makeUser(t)
    project = await makeProject(t, owner, { path: 'engine', visibility: 'public' })
    base = `/projects/${project.id}/repository`
    sha.first = await commitFiles(t, project.id, {
      'README.md': 'hello\n',
      'src/app.js': 'console.log(1)\n',
      'src/lib/util.js': 'export {}\n',
      'docs/guide.md': '# Guide\n',
      'logo.png': PNG,
    }, { author: ADA, message: 'First commit\n\nWith a body.\n' })
    sha.second = await commitFiles(t, project.id, { 'README.md': 'hello world\n', 'bin/run.sh': '#!/bin/sh\n' },
      { author: BOB, executable: ['bin/run.sh'], message: 'Second commit' })
    sha.feature = await commitFiles(t, project.id, { 'feature.txt': 'new\n' },
      { branch: 'feature/x', parent: sha.first, author: CY, message: 'Feature' })
  })
  after(async () => { await t.close() })

  describe('GET /projects/:id/repository/tree', () => {
    it('lists the root of the default branch: directories, then files, in git order, each with exactly its fields', async () => {
      const res = await t.api('GET', `${base}/tree`, { token: null })
      assert.equal(res.status, 200, res.text)
      assert.deepEqual(res.body, [
        { id: await oid(`${sha.second}:bin`), name: 'bin', type: 'tree', path: 'bin', mode: '040000' },
        { id: await oid(`${sha.second}:docs`), name: 'docs', type: 'tree', path: 'docs', mode: '040000' },
        { id: await oid(`${sha.second}:src`), name: 'src', type: 'tree', path: 'src', mode: '040000' },
        { id: await oid(`${sha.second}:README.md`), name: 'README.md', type: 'blob', path: 'README.md', mode: '100644' },
        { id: await oid(`${sha.second}:logo.png`), name: 'logo.png', type: 'blob', path: 'logo.png', mode: '100644' },
      ])
      assert.equal(res.headers['x-total'], '5')
    })

    it('lists a directory at a ref, one level or recursively, with trailing slashes ignored', async () => {
      const one = await t.api('GET', `${base}/tree`, { query: { path: 'src/', ref: 'feature/x' } })
      assert.equal(one.status, 200, one.text)
      assert.deepEqual(one.body.map((e: { path: string; type: string }) => [e.path, e.type]), [['src/lib', 'tree'], ['src/app.js', 'blob']])
      const all = await t.api('GET', `${base}/tree`, { query: { ref: sha.feature, recursive: true } })
      assert.equal(all.status, 200)
      assert.deepEqual(all.body.map((e: { path: string; name: string }) => `${e.path}|${e.name}`), [
        'docs|docs', 'src|src', 'src/lib|lib',
        'README.md|README.md', 'docs/guide.md|guide.md', 'feature.txt|feature.txt', 'logo.png|logo.png', 'src/app.js|app.js',
        'src/lib/util.js|util.js',
      ])
      const nested = await t.api('GET', `${base}/tree`, { query: { path: 'src', recursive: 'true' } })
      assert.deepEqual(nested.body.map((e: { path: string }) => e.path), ['src/lib', 'src/app.js', 'src/lib/util.js'])
    })

    it('shows executables, symlinks and submodules by mode, submodules last as `commit`', async () => {
      const other = await makeProject(t, owner, { visibility: 'public' })
      const repo = t.ctx.repositories.open(other.id)
      const blob = (await repo.run(['hash-object', '-w', '--stdin'], { input: 'target' })).trim()
      const tree = (await repo.run(['mktree'], {
        input: `160000 commit ${sha.first}\tmodule\n120000 blob ${blob}\tlink\n100755 blob ${blob}\ttool\n`,
      })).trim()
      const commit = (await repo.run(['commit-tree', '-m', 'modes', tree], {
        env: { GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@b', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@b' },
      })).trim()
      await repo.run(['update-ref', 'refs/heads/master', commit])
      const res = await t.api('GET', `/projects/${other.id}/repository/tree`)
      assert.deepEqual(res.body, [
        { id: blob, name: 'link', type: 'blob', path: 'link', mode: '120000' },
        { id: blob, name: 'tool', type: 'blob', path: 'tool', mode: '100755' },
        { id: sha.first, name: 'module', type: 'commit', path: 'module', mode: '160000' },
      ])
    })

    it('answers 404 Tree Not Found for an unknown ref or path, a file, an option-looking ref and an empty repository', async () => {
      const outFile = path.join(os.tmpdir(), `ingot-tree-${process.pid}`)
      const empty = await makeProject(t, owner, { visibility: 'public' })
      const cases = [
        [base, { ref: 'nope' }], [base, { path: 'nowhere' }], [base, { path: 'README.md' }], [base, { path: 'src/app.js/x' }],
        [base, { ref: `--output=${outFile}` }], [base, { ref: 'master..feature/x' }],
        [`/projects/${empty.id}/repository`, {}], [`/projects/${empty.id}/repository`, { ref: 'master' }],
      ] as const
      for (const [prefix, query] of cases) {
        const res = await t.api('GET', `${prefix}/tree`, { query })
        assert.equal(res.status, 404, JSON.stringify(query))
        assert.deepEqual(res.body, { message: '404 Tree Not Found' })
      }
      await assert.rejects(fs.access(outFile))
    })

    it('refuses paths that could leave the tree or read as an option', async () => {
      for (const bad of ['../etc', 'src/../..', './src', 'src//lib', '-p', '/etc']) {
        const res = await t.api('GET', `${base}/tree`, { query: { path: bad } })
        assert.equal(res.status, 400, bad)
        assert.deepEqual(res.body, { error: 'path is invalid' })
      }
      const res = await t.api('GET', `${base}/tree`, { query: { recursive: 'maybe' } })
      assert.equal(res.status, 400)
    })

    it('paginates', async () => {
      await expectPaginates({ t, path: `/projects/${encodeURIComponent(`${owner.user.username}/engine`)}/repository/tree`, token: null, total: 5 })
      await expectPaginates({ t, path: `${base}/tree?recursive=true`, token: null, total: 10 })
      await expectRejectsBadPagination(t, `${base}/tree`, null)
    })
  })

  describe('GET /projects/:id/repository/blobs/:sha', () => {
    it('shows a blob Base64-encoded, by full or abbreviated id, with exactly its fields', async () => {
      const readme = await oid(`${sha.second}:README.md`)
      for (const id of [readme, readme.slice(0, 8)]) {
        const res = await t.api('GET', `${base}/blobs/${id}`, { token: null })
        assert.equal(res.status, 200, res.text)
        assert.deepEqual(res.body, { size: 12, encoding: 'base64', content: Buffer.from('hello world\n').toString('base64'), sha: readme })
      }
      const png = await t.api('GET', `${base}/blobs/${await oid(`${sha.first}:logo.png`)}`)
      assert.equal(Buffer.from(png.body.content, 'base64').equals(PNG), true)
    })

    it('answers 404 Blob Not Found for unknown ids, other objects and names that are no ids', async () => {
      for (const id of ['0123456789abcdef0123456789abcdef01234567', sha.first, await oid(`${sha.first}:src`), 'master', '--output=x', 'HEAD:README.md']) {
        for (const suffix of ['', '/raw']) {
          const res = await t.api('GET', `${base}/blobs/${encodeURIComponent(id)}${suffix}`)
          assert.equal(res.status, 404, `${id}${suffix}`)
          assert.deepEqual(res.body, { message: '404 Blob Not Found' })
        }
      }
    })

    it('sends raw content with its type and length', async () => {
      const text = await t.api('GET', `${base}/blobs/${await oid(`${sha.second}:README.md`)}/raw`, { token: null })
      assert.equal(text.status, 200)
      assert.equal(text.text, 'hello world\n')
      assert.equal(text.headers['content-type'], 'text/plain; charset=utf-8')
      assert.equal(text.headers['content-length'], '12')
      assert.equal(text.headers['x-content-type-options'], 'nosniff')
      const binary = await t.app.inject({ url: `/api/v4${base}/blobs/${await oid(`${sha.first}:logo.png`)}/raw` })
      assert.equal(binary.headers['content-type'], 'application/octet-stream')
      assert.equal(binary.rawPayload.equals(PNG), true)
    })

    it('streams blobs too large to hold, both as info and raw', async () => {
      const big = Buffer.alloc(3 * 1024 * 1024 + 1, 'abcdefghij')
      big.write('\u00e9 and \0 a NUL', 100)
      const commit = await commitFiles(t, project.id, { 'big.bin': big }, { branch: 'big' })
      const id = await oid(`${commit}:big.bin`)
      const raw = await t.app.inject({ url: `/api/v4${base}/blobs/${id}/raw` })
      assert.equal(raw.statusCode, 200)
      assert.equal(raw.headers['content-length'], String(big.length))
      assert.equal(raw.headers['content-type'], 'application/octet-stream')
      assert.equal(raw.rawPayload.equals(big), true)
      const info = await t.api('GET', `${base}/blobs/${id}`)
      assert.equal(info.status, 200)
      assert.equal(info.headers['content-type'], 'application/json')
      assert.deepEqual(Object.keys(info.body), ['size', 'encoding', 'content', 'sha'])
      assert.equal(info.body.size, big.length)
      assert.equal(info.body.sha, id)
      assert.equal(info.body.content, big.toString('base64'))
    })
  })

  describe('GET /projects/:id/repository/archive', () => {
    /** Fetches an archive into a temporary file and lists its entries with tar or unzip. */
    async function archive(query: Record<string, string>, suffix = '') {
      const search = new URLSearchParams(query).toString()
      const res = await t.app.inject({ url: `/api/v4${base}/archive${suffix}${search === '' ? '' : `?${search}`}` })
      return res
    }
    async function entries(body: Buffer, kind: 'tar' | 'zip', tarFlag = '') {
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ingot-archive-test-'))
      try {
        const file = path.join(dir, `archive.${kind}`)
        await fs.writeFile(file, body)
        if (kind === 'zip') {
          const { stdout } = await run('unzip', ['-Z1', file])
          return stdout.split('\n').filter((line) => line !== '').sort()
        }
        const { stdout } = await run('tar', [`-t${tarFlag}f`, file])
        return stdout.split('\n').filter((line) => line !== '').sort()
      } finally {
        await fs.rm(dir, { recursive: true, force: true })
      }
    }
    const filesOf = (prefix: string) => [
      `${prefix}/`, `${prefix}/README.md`, `${prefix}/bin/`, `${prefix}/bin/run.sh`, `${prefix}/docs/`, `${prefix}/docs/guide.md`,
      `${prefix}/logo.png`, `${prefix}/src/`, `${prefix}/src/app.js`, `${prefix}/src/lib/`, `${prefix}/src/lib/util.js`,
    ]

    it('streams a tar.gz of the default branch by default, named <path>-<ref>-<sha>', async () => {
      const res = await archive({})
      assert.equal(res.statusCode, 200, res.body)
      const prefix = `engine-master-${sha.second}`
      assert.equal(res.headers['content-type'], 'application/octet-stream')
      assert.equal(res.headers['content-disposition'], `attachment; filename="${prefix}.tar.gz"`)
      assert.equal(res.headers['content-transfer-encoding'], 'binary')
      assert.deepEqual(res.rawPayload.subarray(0, 2), Buffer.from([0x1f, 0x8b]))
      assert.deepEqual(await entries(res.rawPayload, 'tar', 'z'), filesOf(prefix))
    })

    it('gives every listed format, as a parameter or as the path suffix', async () => {
      const prefix = `engine-master-${sha.second}`
      const cases: Array<[Record<string, string>, string, string, 'tar' | 'zip', string]> = [
        [{ format: 'tar.gz' }, '', 'tar.gz', 'tar', 'z'],
        [{ format: 'tar.bz2' }, '', 'tar.bz2', 'tar', 'j'],
        [{ format: 'tbz' }, '', 'tar.bz2', 'tar', 'j'],
        [{ format: 'tbz2' }, '', 'tar.bz2', 'tar', 'j'],
        [{ format: 'tb2' }, '', 'tar.bz2', 'tar', 'j'],
        [{ format: 'bz2' }, '', 'tar.bz2', 'tar', 'j'],
        [{ format: 'tar' }, '', 'tar', 'tar', ''],
        [{ format: 'zip' }, '', 'zip', 'zip', ''],
        [{}, '.zip', 'zip', 'zip', ''],
        [{}, '.tar.bz2', 'tar.bz2', 'tar', 'j'],
        [{}, '.tar', 'tar', 'tar', ''],
        [{ format: 'something' }, '', 'tar.gz', 'tar', 'z'],
      ]
      for (const [query, suffix, extension, kind, flag] of cases) {
        const label = `${JSON.stringify(query)}${suffix}`
        const res = await archive(query, suffix)
        assert.equal(res.statusCode, 200, label)
        assert.equal(res.headers['content-disposition'], `attachment; filename="${prefix}.${extension}"`, label)
        assert.equal(res.headers['content-type'], extension === 'zip' ? 'application/zip' : 'application/octet-stream', label)
        assert.deepEqual(await entries(res.rawPayload, kind, flag), filesOf(prefix), label)
      }
    })

    it('archives a branch, tag or commit given as sha, with the ref in the name', async () => {
      await t.ctx.repositories.open(project.id).run(['tag', 'v1.0', sha.first])
      const cases: Array<[string, string]> = [
        ['feature/x', `engine-feature-x-${sha.feature}`],
        ['v1.0', `engine-v1.0-${sha.first}`],
        [sha.first, `engine-${sha.first}-${sha.first}`],
      ]
      for (const [ref, prefix] of cases) {
        const res = await archive({ sha: ref, format: 'zip' })
        assert.equal(res.statusCode, 200, ref)
        assert.equal(res.headers['content-disposition'], `attachment; filename="${prefix}.zip"`)
        assert.ok((await entries(res.rawPayload, 'zip')).includes(`${prefix}/README.md`))
      }
    })

    it('names archives of non-ASCII refs the RFC 6266 way, and finds the project by its path', async () => {
      const commit = await commitFiles(t, project.id, { 'x.txt': 'x' }, { branch: 'café', parent: sha.first })
      const id = encodeURIComponent(`${owner.user.username}/engine`)
      const res = await t.app.inject({ url: `/api/v4/projects/${id}/repository/archive.zip?sha=caf%C3%A9` })
      assert.equal(res.statusCode, 200)
      assert.equal(res.headers['content-disposition'],
        `attachment; filename="engine-caf_-${commit}.zip"; filename*=UTF-8''engine-caf%C3%A9-${commit}.zip`)
    })

    it('answers 404 File Not Found for an unknown or option-looking sha and for an empty repository', async () => {
      const outFile = path.join(os.tmpdir(), `ingot-archive-${process.pid}`)
      for (const ref of ['nope', '0123456789abcdef0123456789abcdef01234567', `--output=${outFile}`, '--remote=x']) {
        const res = await t.api('GET', `${base}/archive`, { query: { sha: ref } })
        assert.equal(res.status, 404, ref)
        assert.deepEqual(res.body, { message: '404 File Not Found' })
      }
      await assert.rejects(fs.access(outFile))
      const empty = await makeProject(t, owner, { visibility: 'public' })
      const res = await t.api('GET', `/projects/${empty.id}/repository/archive`)
      assert.equal(res.status, 404)
      assert.deepEqual(res.body, { message: '404 File Not Found' })
    })

    it('refuses tar.bz2 clearly, before starting git, when bzip2 is not installed', async () => {
      const repo = t.ctx.repositories.open(project.id)
      assert.throws(() => streamArchive(repo, sha.second, 'p', 'tar.bz2', '/nonexistent'), (err: unknown) =>
        err instanceof ArchiverMissingError && err.program === 'bzip2')
      // The other formats need no program beside git.
      for (const extension of ['tar', 'zip', 'tar.gz'] as const) {
        const stream = streamArchive(repo, sha.second, 'p', extension, '/nonexistent')
        let bytes = 0
        for await (const chunk of stream) bytes += (chunk as Buffer).length
        assert.ok(bytes > 0, extension)
      }
    })

    it('sends the first bytes before git has finished', async () => {
      await t.app.listen({ port: 0, host: '127.0.0.1' })
      const address = t.app.server.address()
      assert.ok(address !== null && typeof address === 'object')
      const started = Date.now()
      const res = await fetch(`http://127.0.0.1:${address.port}/api/v4${base}/archive.tar`, { headers: { 'private-token': owner.token } })
      assert.equal(res.status, 200)
      assert.equal(res.headers.get('content-length'), null) // streamed, not buffered first
      assert.equal(res.headers.get('transfer-encoding'), 'chunked')
      const reader = res.body!.getReader()
      const first = await reader.read()
      assert.ok(first.value !== undefined && first.value.length > 0)
      assert.ok(Date.now() - started < 2000)
      await reader.cancel()
    })
  })

  describe('GET /projects/:id/repository/compare', () => {
    it('compares through the merge base by default: the commits only `to` has, oldest first, and their diff', async () => {
      const res = await t.api('GET', `${base}/compare`, { token: null, query: { from: 'master', to: 'feature/x' } })
      assert.equal(res.status, 200, res.text)
      assert.deepEqual(Object.keys(res.body).sort(), ['commit', 'commits', 'compare_same_ref', 'compare_timeout', 'diffs'])
      assert.deepEqual(Object.keys(res.body.commit).sort(), COMMIT_FIELDS)
      assert.equal(res.body.commit.id, sha.feature)
      assert.equal(res.body.commit.author_name, CY.name)
      assert.deepEqual(res.body.commits.map((c: { id: string }) => c.id), [sha.feature])
      assert.equal(res.body.compare_same_ref, false)
      assert.equal(res.body.compare_timeout, false)
      assert.deepEqual(res.body.diffs.map((d: { new_path: string; new_file: boolean }) => [d.new_path, d.new_file]), [['feature.txt', true]])
      assert.deepEqual(Object.keys(res.body.diffs[0]).sort(),
        ['a_mode', 'b_mode', 'collapsed', 'deleted_file', 'diff', 'new_file', 'new_path', 'old_path', 'renamed_file', 'too_large'])
      assert.match(res.body.diffs[0].diff, /\+new/)
    })

    it('compares the two commits directly with straight=true', async () => {
      const res = await t.api('GET', `${base}/compare`, { query: { from: 'master', to: 'feature/x', straight: true } })
      assert.equal(res.status, 200)
      assert.deepEqual(res.body.commits.map((c: { id: string }) => c.id), [sha.feature])
      const changes = res.body.diffs.map((d: { new_path: string; new_file: boolean; deleted_file: boolean }) => [d.new_path, d.new_file, d.deleted_file])
      assert.deepEqual(changes, [['README.md', false, false], ['bin/run.sh', false, true], ['feature.txt', true, false]])
    })

    it('lists several commits oldest first, the last as `commit`', async () => {
      const res = await t.api('GET', `${base}/compare`, { query: { from: sha.first, to: 'master' } })
      assert.deepEqual(res.body.commits.map((c: { id: string }) => c.id), [sha.second])
      const reverse = await t.api('GET', `${base}/compare`, { query: { from: 'feature/x', to: 'master' } })
      assert.deepEqual(reverse.body.commits.map((c: { id: string }) => c.id), [sha.second])
      assert.equal(reverse.body.commit.id, sha.second)
      const root = await commitFiles(t, project.id, { 'a.txt': 'a' }, { branch: 'line', parent: null })
      const next = await commitFiles(t, project.id, { 'b.txt': 'b' }, { branch: 'line' })
      const last = await commitFiles(t, project.id, { 'c.txt': 'c' }, { branch: 'line' })
      const line = await t.api('GET', `${base}/compare`, { query: { from: root, to: 'line' } })
      assert.deepEqual(line.body.commits.map((c: { id: string }) => c.id), [next, last])
      assert.equal(line.body.commit.id, last)
      assert.deepEqual(line.body.diffs.map((d: { new_path: string }) => d.new_path), ['b.txt', 'c.txt'])
    })

    it('reports compare_same_ref, with no commits, when both sides are the same commit', async () => {
      const res = await t.api('GET', `${base}/compare`, { query: { from: 'master', to: sha.second } })
      assert.equal(res.status, 200)
      assert.deepEqual(res.body, { commit: null, commits: [], diffs: [], compare_timeout: false, compare_same_ref: true })
    })

    it('reports compare_timeout past 100 changed files, and still lists every diff', async () => {
      const files = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`many/f${String(i).padStart(3, '0')}.txt`, `${i}\n`]))
      await commitFiles(t, project.id, files, { branch: 'many', parent: sha.second })
      const res = await t.api('GET', `${base}/compare`, { query: { from: 'master', to: 'many' } })
      assert.equal(res.status, 200)
      assert.equal(res.body.compare_timeout, true)
      assert.equal(res.body.diffs.length, 101)
    })

    it('answers a file diff of 100 KB or more empty and too_large, as the original', async () => {
      const big = Array.from({ length: 4000 }, (_, i) => `line ${i} ${'x'.repeat(24)}\n`).join('')
      await commitFiles(t, project.id, { 'big.txt': big, 'small.txt': 'small\n' }, { branch: 'big', parent: sha.second })
      const res = await t.api('GET', `${base}/compare`, { query: { from: 'master', to: 'big' } })
      assert.equal(res.status, 200)
      const byPath = Object.fromEntries(res.body.diffs.map((d: { new_path: string }) => [d.new_path, d]))
      assert.deepEqual([byPath['big.txt'].too_large, byPath['big.txt'].diff, byPath['big.txt'].collapsed], [true, '', false])
      assert.deepEqual([byPath['small.txt'].too_large, byPath['small.txt'].collapsed], [false, false])
      assert.match(byPath['small.txt'].diff, /\+small/)
    })

    it('answers 404 Ref Not Found for an unknown or option-looking ref, 400 without from or to', async () => {
      for (const query of [{ from: 'master', to: 'nope' }, { from: 'nope', to: 'master' }, { from: '--output=/tmp/x', to: 'master' },
        { from: 'master', to: '--all' }]) {
        const res = await t.api('GET', `${base}/compare`, { query })
        assert.equal(res.status, 404, JSON.stringify(query))
        assert.deepEqual(res.body, { message: '404 Ref Not Found' })
      }
      for (const query of [{ from: 'master' }, { to: 'master' }] as Array<Record<string, string>>) {
        const res = await t.api('GET', `${base}/compare`, { query })
        assert.equal(res.status, 400)
      }
    })
  })

  describe('GET /projects/:id/repository/contributors', () => {
    let contributors: TestApp
    let path_: string

    before(async () => {
      contributors = t
      const other = await makeProject(t, owner, { visibility: 'public' })
      path_ = `/projects/${other.id}/repository/contributors`
      const zed = { name: 'Zed', email: 'zed@example.com' }
      const first = await commitFiles(t, other.id, { a: '1' }, { author: ADA })
      await commitFiles(t, other.id, { b: '1' }, { author: zed })
      await commitFiles(t, other.id, { c: '1' }, { author: { name: 'Bobby', email: BOB.email } })
      await commitFiles(t, other.id, { d: '1' }, { author: BOB })
      await commitFiles(t, other.id, { e: '1' }, { author: ADA })
      await commitFiles(t, other.id, { f: '1' }, { author: zed })
      await commitFiles(t, other.id, { g: '1' }, { author: zed })
      // A merge commit, which is not counted, and a branch that is not the default one.
      const repo = t.ctx.repositories.open(other.id)
      const side = await commitFiles(t, other.id, { side: '1' }, { branch: 'side', parent: first, author: CY })
      const tip = await repo.resolveCommit('master')
      const tree = (await repo.run(['rev-parse', `${tip}^{tree}`])).trim()
      const merge = (await repo.run(['commit-tree', '-p', String(tip), '-p', side, '-m', 'Merge', tree], {
        env: { GIT_AUTHOR_NAME: 'Merger', GIT_AUTHOR_EMAIL: 'merger@example.com', GIT_COMMITTER_NAME: 'm', GIT_COMMITTER_EMAIL: 'm@m' },
      })).trim()
      await repo.run(['update-ref', 'refs/heads/master', merge, String(tip)])
      await commitFiles(t, other.id, { h: '1' }, { branch: 'other', author: { name: 'Nobody', email: 'nobody@example.com' } })
    })

    // Every commit of this history adds one file of one line.
    const row = (name: string, email: string, commits: number) => ({ name, email, commits, additions: commits, deletions: 0 })

    it('counts non-merge commits of the default branch per author email, by commits ascending by default', async () => {
      const res = await contributors.api('GET', path_, { token: null })
      assert.equal(res.status, 200, res.text)
      // Cy's commit comes in through the merge: it is history of the default branch.
      // Ties go by name; an author is named as in their newest commit.
      assert.deepEqual(res.body, [
        row('Cy Young', 'cy@example.com', 1), row('Ada Lovelace', 'ada@example.com', 2), row('bob', 'Bob@example.com', 2),
        row('Zed', 'zed@example.com', 3),
      ])
    })

    it('orders by name, email or commits, either way', async () => {
      const names = async (query: Record<string, string>) =>
        (await contributors.api('GET', path_, { query })).body.map((c: { name: string }) => c.name)
      assert.deepEqual(await names({ order_by: 'name' }), ['Ada Lovelace', 'bob', 'Cy Young', 'Zed'])
      assert.deepEqual(await names({ order_by: 'name', sort: 'desc' }), ['Zed', 'Cy Young', 'bob', 'Ada Lovelace'])
      assert.deepEqual(await names({ order_by: 'email' }), ['Ada Lovelace', 'bob', 'Cy Young', 'Zed'])
      assert.deepEqual(await names({ order_by: 'email', sort: 'desc' }), ['Zed', 'Cy Young', 'bob', 'Ada Lovelace'])
      assert.deepEqual(await names({ order_by: 'commits', sort: 'desc' }), ['Zed', 'bob', 'Ada Lovelace', 'Cy Young'])
      for (const query of [{ order_by: 'date' }, { sort: 'up' }] as Array<Record<string, string>>) {
        const res = await contributors.api('GET', path_, { query })
        assert.equal(res.status, 400, JSON.stringify(query))
      }
    })

    it('sums the lines each commit adds and deletes against its parent: renames as both, binary files as none', async () => {
      const lines = await makeProject(t, owner, { visibility: 'public' })
      const url = `/projects/${lines.id}/repository/contributors`
      await commitFiles(t, lines.id, { 'a.txt': 'one\ntwo\nthree\n', 'b.txt': 'b\n' }, { author: ADA })
      await commitFiles(t, lines.id, { 'a.txt': 'one\nTWO\nthree\nfour\n', 'b.txt': null }, { author: BOB })
      await commitFiles(t, lines.id, { 'a.txt': null, 'renamed.txt': 'one\nTWO\nthree\nfour\n', 'image.png': PNG }, { author: ADA })
      const stats = async () => Object.fromEntries((await t.api('GET', url)).body
        .map((c: { email: string; commits: number; additions: number; deletions: number }) => [c.email, [c.commits, c.additions, c.deletions]]))
      assert.deepEqual(await stats(), { [ADA.email]: [2, 8, 4], [BOB.email]: [1, 2, 2] })
      // A new head is a new answer; the one of the head before is kept for it alone.
      await commitFiles(t, lines.id, { 'renamed.txt': 'one\n' }, { author: BOB })
      assert.deepEqual(await stats(), { [ADA.email]: [2, 8, 4], [BOB.email]: [2, 2, 5] })
    })

    it('paginates, and answers an empty list for an empty repository', async () => {
      await expectPaginates({ t, path: path_, token: null, total: 4 })
      const empty = await makeProject(t, owner, { visibility: 'public' })
      const res = await t.api('GET', `/projects/${empty.id}/repository/contributors`)
      assert.equal(res.status, 200)
      assert.deepEqual(res.body, [])
    })
  })

  describe('GET /projects/:id/repository/merge_base', () => {
    it('answers the best common ancestor of two or more refs as a commit', async () => {
      const res = await t.api('GET', `${base}/merge_base`, { token: null, query: { refs: ['master', 'feature/x'] } })
      assert.equal(res.status, 200, res.text)
      assert.deepEqual(Object.keys(res.body).sort(), COMMIT_FIELDS)
      assert.equal(res.body.id, sha.first)
      assert.equal(res.body.short_id, sha.first.slice(0, 8))
      assert.equal(res.body.title, 'First commit')
      assert.equal(res.body.message, 'First commit\n\nWith a body.\n')
      assert.deepEqual(res.body.parent_ids, [])
      assert.equal(res.body.author_name, ADA.name)
      assert.match(res.body.authored_date, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000[+-]\d\d:\d\d$/)
      const three = await t.api('GET', `${base}/merge_base`, { query: { refs: [sha.second, 'feature/x', sha.first] } })
      assert.equal(three.body.id, sha.first)
      const same = await t.api('GET', `${base}/merge_base`, { query: { refs: ['master', sha.second] } })
      assert.equal(same.body.id, sha.second)
    })

    it('answers 400 for fewer than 2 refs and for unknown ones, 404 when the refs share no history', async () => {
      for (const query of [{ refs: ['master'] }, { refs: 'master' }]) {
        const res = await t.api('GET', `${base}/merge_base`, { query })
        assert.equal(res.status, 400)
        assert.deepEqual(res.body, { message: 'Provide at least 2 refs' })
      }
      assert.equal((await t.api('GET', `${base}/merge_base`)).status, 400)
      const one = await t.api('GET', `${base}/merge_base`, { query: { refs: ['master', 'nope'] } })
      assert.equal(one.status, 400)
      assert.deepEqual(one.body, { message: 'Could not find ref: nope' })
      const two = await t.api('GET', `${base}/merge_base`, { query: { refs: ['--output=/tmp/x', 'master', 'gone'] } })
      assert.deepEqual(two.body, { message: 'Could not find refs: --output=/tmp/x, gone' })
      await commitFiles(t, project.id, { 'orphan.txt': 'o' }, { branch: 'orphan', parent: null })
      const unrelated = await t.api('GET', `${base}/merge_base`, { query: { refs: ['master', 'orphan'] } })
      assert.equal(unrelated.status, 404)
      assert.deepEqual(unrelated.body, { message: '404 Merge Base Not Found' })
    })
  })

  describe('who may read the repository', () => {
    const matrices = new Map<Visibility, Matrix>()
    const endpoints: Array<[string, (m: Matrix) => string]> = [
      ['tree', (m) => `/projects/${m.project.id}/repository/tree`],
      ['blob', (m) => `/projects/${m.project.id}/repository/blobs/${matrixBlob.get(m.project.id)}`],
      ['raw blob', (m) => `/projects/${m.project.id}/repository/blobs/${matrixBlob.get(m.project.id)}/raw`],
      ['archive', (m) => `/projects/${m.project.id}/repository/archive`],
      ['archive suffix', (m) => `/projects/${m.project.id}/repository/archive.zip`],
      ['compare', (m) => `/projects/${m.project.id}/repository/compare?from=master&to=master`],
      ['contributors', (m) => `/projects/${m.project.id}/repository/contributors`],
      ['merge_base', (m) => `/projects/${m.project.id}/repository/merge_base?refs[]=master&refs[]=master`],
    ]
    const matrixBlob = new Map<number, string>()

    before(async () => {
      for (const visibility of ['private', 'internal', 'public'] as const) {
        const m = await makeMatrix(t, visibility)
        const commit = await commitFiles(t, m.project.id, { 'README.md': 'x\n' })
        matrixBlob.set(m.project.id, (await t.ctx.repositories.open(m.project.id).info(`${commit}:README.md`))!.oid)
        matrices.set(visibility, m)
      }
    })

    for (const [name, url] of endpoints) {
      it(`${name}: 404 for outsiders of a private project, 403 for its guests, 200 from Reporter up`, async () => {
        const m = matrices.get('private')!
        await expectStatuses(m, (token) => t.api('GET', url(m), { token }), {
          anonymous: 404, nonMember: 404, external: 404, guest: 403, blocked: 403,
          reporter: 200, developer: 200, maintainer: 200, owner: 200, admin: 200,
        })
        const hidden = await t.api('GET', url(m), { token: m.tokens.nonMember })
        assert.deepEqual(hidden.body, { message: '404 Project Not Found' })
        const guest = await t.api('GET', url(m), { token: m.tokens.guest })
        assert.deepEqual(guest.body, { message: '403 Forbidden' })
      })

      it(`${name}: internal projects for signed-in users, public ones for everyone`, async () => {
        const internal = matrices.get('internal')!
        await expectStatuses(internal, (token) => t.api('GET', url(internal), { token }), {
          anonymous: 404, nonMember: 200, external: 404, guest: 200, reporter: 200, admin: 200,
        })
        const open = matrices.get('public')!
        await expectStatuses(open, (token) => t.api('GET', url(open), { token }), {
          anonymous: 200, nonMember: 200, external: 200, guest: 200, reporter: 200, admin: 200,
        })
      })
    }
  })
})
