// Project import: POST /projects/import (multipart, the archive streamed into blob storage) answers
// 201 with import_status scheduled; the job restores the repository and wiki from real bundles, the
// tree, the uploads and the avatar, and finishes; GET /projects/:id/import follows it. Every refusal:
// archives that are not gzip, not tar or have no VERSION (400 at once); wrong version, symlinks,
// `..` and absolute names (the import fails, nothing of it left); 413, 403, 404, 400; overwrite.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import zlib from 'node:zlib'
import { Readable } from 'node:stream'
import tar from 'tar-stream'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeGroup, makeMember, makeProject, makeUser, uniqueName, type TestUser } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import { projectFullPath } from '../helpers/projects.js'
import { runGit } from '../../src/git/command.js'
import { writeCommit } from '../../src/git/write.js'
import { DEVELOPER } from '../../src/policies/access-levels.js'
import type { ProjectRow } from '../../src/db/schema.js'
import { importErrorMessage } from '../../src/services/import-export/import-project.js'

/** A 1×1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64')
const SECRET = '0123456789abcdef0123456789abcdef'
const TREE = JSON.stringify({ description: 'Imported from the archive', visibility_level: 0, project_members: [] })

interface Member {
  name: string
  data?: Buffer | string
  type?: 'file' | 'directory' | 'symlink' | 'link' | 'character-device'
  linkname?: string
}

/** A tar of the members, gzip'd unless told otherwise. */
async function archiveOf(members: readonly Member[], options: { gzip?: boolean } = {}): Promise<Buffer> {
  const pack = tar.pack()
  const chunks: Buffer[] = []
  const out = (options.gzip === false ? pack : pack.pipe(zlib.createGzip())) as unknown as Readable
  out.on('data', (chunk: Buffer) => { chunks.push(chunk) })
  const ended = new Promise<void>((resolve) => { out.on('end', () => resolve()) })
  for (const member of members) {
    const type = member.type ?? 'file'
    if (type === 'file') {
      pack.entry({ name: member.name, type }, typeof member.data === 'string' ? Buffer.from(member.data) : member.data ?? Buffer.alloc(0))
    } else {
      pack.entry({ name: member.name, type, ...(member.linkname === undefined ? {} : { linkname: member.linkname }) })
    }
  }
  pack.finalize()
  await ended
  return Buffer.concat(chunks)
}

async function multipart(parts: Record<string, string | { name: string; data: Buffer }>) {
  const form = new FormData()
  for (const [field, value] of Object.entries(parts)) {
    if (typeof value === 'string') form.append(field, value)
    else form.append(field, new Blob([value.data]), value.name)
  }
  const request = new Request('http://ingot.test', { method: 'POST', body: form })
  return { payload: Buffer.from(await request.arrayBuffer()), contentType: request.headers.get('content-type') ?? '' }
}

describe('project import', () => {
  let t: TestApp
  let owner: TestUser
  let work: string
  let bundle: Buffer
  let wikiBundle: Buffer
  let source: ProjectRow
  const sourceRefs: Record<string, string> = {}
  let wikiTip = ''

  const post = async (parts: Record<string, string | { name: string; data: Buffer }>, token: string = owner.token) => {
    const { payload, contentType } = await multipart(parts)
    return t.app.inject({ method: 'POST', url: '/api/v4/projects/import', payload, headers: { 'content-type': contentType, 'private-token': token } })
  }
  const runJobs = async () => { while (await t.ctx.jobs.runDue(Date.now() + 5_000) > 0) { /* until none is due */ } }
  const importStatus = async (id: number, token = owner.token) => (await t.api('GET', `/projects/${id}/import`, { token })).body
  const project = (id: number) => t.ctx.db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
  const branchesOf = async (id: number) => (await runGit(['for-each-ref', '--format=%(refname) %(objectname)'], { gitDir: t.ctx.repositories.repositoryPath(id) }))
    .split('\n').filter(Boolean)
  const fullArchive = (extra: Member[] = [], version = '0.2.4') => archiveOf([
    { name: './', type: 'directory' },
    { name: './VERSION', data: version },
    { name: './project.json', data: TREE },
    { name: './project.bundle', data: bundle },
    { name: './project.wiki.bundle', data: wikiBundle },
    { name: `./uploads/${SECRET}/notes.txt`, data: 'attached file' },
    { name: './avatar/logo.png', data: PNG },
    ...extra,
  ])
  const storedArchives = async () => {
    const keys: string[] = []
    for await (const blob of t.ctx.blobs.list('imports/archives/')) keys.push(blob.key)
    return keys
  }
  const setSettings = async (body: Record<string, unknown>) => {
    const res = await t.api('PUT', '/application/settings', { body })
    assert.equal(res.status, 200, res.text)
  }

  before(async () => {
    t = await buildTestApp()
    owner = await makeUser(t)
    work = await fs.mkdtemp(path.join(os.tmpdir(), 'ingot-import-test-'))
    // The archive's repository: two branches and a tag, HEAD on main; and a wiki with one page.
    source = await makeProject(t, owner, { default_branch: 'main' })
    sourceRefs['refs/heads/main'] = await commitFiles(t, source.id, { 'README.md': '# Imported\n' }, { branch: 'main' })
    sourceRefs['refs/heads/feature'] = await commitFiles(t, source.id, { 'feature.txt': 'x' }, { branch: 'feature', parent: sourceRefs['refs/heads/main'] })
    const gitDir = t.ctx.repositories.repositoryPath(source.id)
    await runGit(['tag', 'v1.0', sourceRefs['refs/heads/main']!], { gitDir })
    sourceRefs['refs/tags/v1.0'] = sourceRefs['refs/heads/main']!
    await runGit(['bundle', 'create', path.join(work, 'project.bundle'), '--all'], { gitDir })
    bundle = await fs.readFile(path.join(work, 'project.bundle'))
    await t.ctx.repositories.createWiki(source.id)
    const wiki = t.ctx.repositories.openWiki(source.id)
    const author = { name: 'Ada', email: 'ada@example.com' }
    wikiTip = await writeCommit(wiki, { parent: null, changes: [{ path: 'home.md', content: Buffer.from('# Home') }], message: 'Home', author, committer: author })
    await runGit(['update-ref', 'refs/heads/master', wikiTip], { gitDir: t.ctx.repositories.wikiPath(source.id) })
    await runGit(['bundle', 'create', path.join(work, 'project.wiki.bundle'), '--all'], { gitDir: t.ctx.repositories.wikiPath(source.id) })
    wikiBundle = await fs.readFile(path.join(work, 'project.wiki.bundle'))
  })
  after(async () => {
    await fs.rm(work, { recursive: true, force: true })
    await t.close()
  })

  it('201 scheduled, then the job restores refs, default branch, wiki, tree, uploads and avatar: finished', async () => {
    const res = await post({ path: 'imported', file: { name: 'export.tar.gz', data: await fullArchive() } })
    assert.equal(res.statusCode, 201, res.body)
    const body = res.json()
    assert.deepEqual(Object.keys(body).sort(), ['created_at', 'description', 'id', 'import_status', 'name', 'name_with_namespace', 'path', 'path_with_namespace'])
    assert.equal(body.import_status, 'scheduled')
    assert.equal(body.path, 'imported')
    assert.equal(body.path_with_namespace, `${owner.user.username}/imported`)
    assert.equal((await importStatus(body.id)).import_status, 'scheduled')

    await runJobs()
    const status = await importStatus(body.id)
    assert.equal(status.import_status, 'finished', JSON.stringify(status))
    assert.equal(status.import_error, undefined)
    const refs = Object.fromEntries((await branchesOf(body.id)).map((line) => line.split(' ')))
    assert.deepEqual(refs, sourceRefs)
    const row = await project(body.id)
    assert.equal(row.default_branch, 'main')
    assert.equal(row.empty_repo, 0)
    assert.equal(row.description, 'Imported from the archive')
    assert.equal((await runGit(['symbolic-ref', 'HEAD'], { gitDir: t.ctx.repositories.repositoryPath(body.id) })).trim(), 'refs/heads/main')
    assert.equal(await t.ctx.repositories.openWiki(body.id).resolveCommit('refs/heads/master'), wikiTip)
    const stats = await t.ctx.db.selectFrom('project_statistics').selectAll().where('project_id', '=', body.id).executeTakeFirstOrThrow()
    assert.equal(stats.commit_count, 1)
    assert.ok(stats.repository_size > 0)
    // As pushed: the API shows the branches, the upload link of a note keeps working, the avatar is set.
    const branches = await t.api('GET', `/projects/${body.id}/repository/branches`, { token: owner.token })
    assert.deepEqual(branches.body.map((b: { name: string }) => b.name).sort(), ['feature', 'main'])
    const upload = await t.app.inject({ method: 'GET', url: `/${await projectFullPath(t, row)}/uploads/${SECRET}/notes.txt`, headers: { 'private-token': owner.token } })
    assert.equal(upload.statusCode, 200)
    assert.equal(upload.body, 'attached file')
    assert.equal(row.avatar_path, `-/system/project/avatar/${body.id}/logo.png`)
    const avatarUrl = (await t.api('GET', `/projects/${body.id}`, { token: owner.token })).body.avatar_url as string
    assert.equal(avatarUrl, `http://ingot.test/uploads/-/system/project/avatar/${body.id}/logo.png`)
    const avatar = await t.app.inject({ method: 'GET', url: avatarUrl.slice('http://ingot.test'.length), headers: { 'private-token': owner.token } })
    assert.equal(avatar.statusCode, 200)
    assert.equal(avatar.headers['content-type'], 'image/png')
    assert.deepEqual(avatar.rawPayload, PNG)
    const stranger = await makeUser(t)
    const hidden = await t.app.inject({ method: 'GET', url: avatarUrl.slice('http://ingot.test'.length), headers: { 'private-token': stranger.token } })
    assert.equal(hidden.statusCode, 404)
    // The archive was kept for the job only.
    assert.deepEqual(await storedArchives(), [])
  })

  it('takes plain member names, a namespace by path, override_params and tolerates missing bundles, uploads and avatar', async () => {
    const group = await makeGroup(t, { visibility: 'private' }, owner)
    const archive = await archiveOf([{ name: 'VERSION', data: '0.2.4\n' }, { name: 'project.json', data: TREE }])
    const res = await post({
      path: 'plain', namespace: group.full_path, 'override_params[description]': 'Given', 'override_params[visibility]': 'private',
      file: { name: 'a.tar.gz', data: archive },
    })
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().path_with_namespace, `${group.full_path}/plain`)
    assert.equal(res.json().description, 'Given')
    await runJobs()
    assert.equal((await importStatus(res.json().id)).import_status, 'finished')
    const row = await project(res.json().id)
    assert.equal(row.empty_repo, 1)
    assert.equal(row.default_branch, null)
    assert.equal(row.description, 'Given')
  })

  it('400 "The file is invalid" at once for what is not gzip, gzip but not tar, or has no VERSION; nothing created', async () => {
    const before = (await t.ctx.db.selectFrom('projects').select('id').execute()).length
    const cases = [
      Buffer.from('this is not an archive at all'),
      zlib.gzipSync(Buffer.from('gzip of text, no tar header here'.repeat(40))),
      await archiveOf([{ name: './project.json', data: TREE }]),
      await archiveOf([{ name: 'VERSION', data: '0.2.4' }], { gzip: false }),
    ]
    for (const data of cases) {
      const res = await post({ path: uniqueName('bad'), file: { name: 'x.tar.gz', data } })
      assert.equal(res.statusCode, 400, res.body)
      assert.deepEqual(res.json(), { message: 'The file is invalid' })
    }
    assert.equal((await t.ctx.db.selectFrom('projects').select('id').execute()).length, before)
    assert.deepEqual(await storedArchives(), [])
  })

  it('401 without credentials', async () => {
    const { payload, contentType } = await multipart({ path: 'anon', file: { name: 'x.tar.gz', data: await fullArchive() } })
    const res = await t.app.inject({ method: 'POST', url: '/api/v4/projects/import', payload, headers: { 'content-type': contentType } })
    assert.equal(res.statusCode, 401)
  })

  it('override_params: a visibility the namespace does not allow is refused as creation refuses it', async () => {
    const group = await makeGroup(t, { visibility: 'private' }, owner)
    const res = await post({
      path: uniqueName('vis'), namespace: String(group.id), 'override_params[visibility]': 'public', file: { name: 'x.tar.gz', data: await fullArchive() },
    })
    assert.equal(res.statusCode, 400, res.body)
    assert.match(res.json().message, /^Visibility level /)
    const invalid = await post({ path: uniqueName('vis'), 'override_params[visibility]': 'secret', file: { name: 'x.tar.gz', data: await fullArchive() } })
    assert.equal(invalid.statusCode, 400)
    assert.deepEqual(invalid.json(), { error: 'override_params[visibility] does not have a valid value' })
  })

  it('400 for a missing path or file', async () => {
    const missingPath = await post({ file: { name: 'x.tar.gz', data: await fullArchive() } })
    assert.equal(missingPath.statusCode, 400)
    assert.deepEqual(missingPath.json(), { error: 'path is missing' })
    const missingFile = await post({ path: 'nofile' })
    assert.equal(missingFile.statusCode, 400)
    assert.deepEqual(missingFile.json(), { error: 'file is missing' })
    const json = await t.api('POST', '/projects/import', { token: owner.token, body: { path: 'json' } })
    assert.equal(json.status, 400)
  })

  for (const [what, members, message] of [
    ['a wrong version', [{ name: './VERSION', data: '0.2.3' }, { name: './project.json', data: TREE }], 'Import version mismatch: Required 0.2.4 but was 0.2.3'],
    ['an unreadable version', [{ name: './VERSION', data: 'eleven' }, { name: './project.json', data: TREE }], 'Incorrect VERSION format'],
    ['a symbolic link', [{ name: './VERSION', data: '0.2.4' }, { name: './project.json', type: 'symlink', linkname: '/etc/passwd' }], 'The archive has a symbolic link: ./project.json'],
    ['a hard link', [{ name: './VERSION', data: '0.2.4' }, { name: './project.json', type: 'link', linkname: 'VERSION' }], 'The archive has a hard link: ./project.json'],
    ['a name leaving the archive', [{ name: './VERSION', data: '0.2.4' }, { name: './../escaped.txt', data: 'x' }], 'The archive has a member outside of it: ./../escaped.txt'],
    ['a device file', [{ name: './VERSION', data: '0.2.4' }, { name: './dev-null', type: 'character-device' }], 'The archive has a member that is not a file or directory: ./dev-null'],
    ['an absolute name', [{ name: './VERSION', data: '0.2.4' }, { name: '/tmp/absolute.txt', data: 'x' }], 'The archive has a member with an absolute path: /tmp/absolute.txt'],
  ] as const) {
    it(`fails the import for ${what}: failed with its error, no repository content, uploads or wiki left`, async () => {
      // The refused member comes after the repository's bundle and the uploads, so that there is something to remove.
      const archive = await archiveOf([
        { name: './project.bundle', data: bundle },
        { name: `./uploads/${SECRET}/notes.txt`, data: 'attached' },
        ...members as readonly Member[],
      ])
      const res = await post({ path: uniqueName('fails'), file: { name: 'x.tar.gz', data: archive } })
      assert.equal(res.statusCode, 201, res.body)
      await runJobs()
      const status = await importStatus(res.json().id)
      assert.equal(status.import_status, 'failed')
      assert.equal(status.import_error, message)
      assert.deepEqual(await branchesOf(res.json().id), [])
      assert.equal(await t.ctx.repositories.wikiExists(res.json().id), false)
      const row = await project(res.json().id)
      assert.equal(row.empty_repo, 1)
      assert.equal(row.import_error, message)
      await assert.rejects(fs.stat(path.join(t.ctx.config.dataDir, 'shared', 'uploads', '-', 'project', String(row.id))))
      // Nothing escaped the import's directory.
      await assert.rejects(fs.stat(path.join(t.ctx.config.dataDir, 'tmp', 'escaped.txt')))
      assert.deepEqual(await fs.readdir(path.join(t.ctx.config.dataDir, 'tmp', 'imports')), [])
    })
  }

  it('fails with the error and removes the repository when a bundle is not valid', async () => {
    const archive = await archiveOf([{ name: 'VERSION', data: '0.2.4' }, { name: 'project.json', data: TREE }, { name: 'project.bundle', data: 'not a bundle' }])
    const res = await post({ path: uniqueName('badbundle'), file: { name: 'x.tar.gz', data: archive } })
    await runJobs()
    const status = await importStatus(res.json().id)
    assert.equal(status.import_status, 'failed')
    assert.equal(status.import_error, 'the bundle is not valid')
    assert.doesNotMatch(status.import_error, /\//)
  })

  it('413 above max_import_size (0: no limit); the setting is in the settings API', async () => {
    await setSettings({ max_import_size: 1 })
    try {
      const big = Buffer.concat([await fullArchive(), Buffer.alloc(2 * 1024 * 1024, 1)])
      const res = await post({ path: uniqueName('big'), file: { name: 'x.tar.gz', data: big } })
      assert.equal(res.statusCode, 413)
      assert.deepEqual(res.json(), { message: '413 Request Entity Too Large' })
      assert.deepEqual(await storedArchives(), [])
      assert.equal((await t.api('GET', '/application/settings')).body.max_import_size, 1)
      // Without Content-Length (chunked): counted as it streams, refused once past the limit.
      const { payload, contentType } = await multipart({ path: uniqueName('big'), file: { name: 'x.tar.gz', data: big } })
      const streamed = await t.app.inject({
        method: 'POST', url: '/api/v4/projects/import', payload: Readable.from([payload.subarray(0, 1000), payload.subarray(1000)]),
        headers: { 'content-type': contentType, 'private-token': owner.token },
      })
      assert.equal(streamed.statusCode, 413, streamed.body)
      assert.deepEqual(await storedArchives(), [])
      // 0 takes any size.
      await setSettings({ max_import_size: 0 })
      const any = await post({ path: uniqueName('any'), file: { name: 'x.tar.gz', data: await fullArchive([{ name: './padding', data: Buffer.alloc(2 * 1024 * 1024) }]) } })
      assert.equal(any.statusCode, 201, any.body)
      await runJobs()
      assert.equal((await importStatus(any.json().id)).import_status, 'finished')
    } finally {
      await setSettings({ max_import_size: 50 })
    }
  })

  it('fails an archive that holds more than 20 times max_import_size once extracted', async () => {
    await setSettings({ max_import_size: 1 })
    try {
      const archive = await archiveOf([{ name: 'VERSION', data: '0.2.4' }, { name: 'project.json', data: TREE }, { name: 'zeros', data: Buffer.alloc(21 * 1024 * 1024) }])
      assert.ok(archive.length < 1024 * 1024)
      const res = await post({ path: uniqueName('bomb'), file: { name: 'x.tar.gz', data: archive } })
      assert.equal(res.statusCode, 201, res.body)
      await runJobs()
      const status = await importStatus(res.json().id)
      assert.equal(status.import_status, 'failed')
      assert.equal(status.import_error, 'The archive is larger than an import may be once extracted')
    } finally {
      await setSettings({ max_import_size: 50 })
    }
  })

  it('403 while service_project is not an enabled import source', async () => {
    await setSettings({ import_sources: ['github', 'git'] })
    try {
      const res = await post({ path: uniqueName('off'), file: { name: 'x.tar.gz', data: await fullArchive() } })
      assert.equal(res.statusCode, 403)
    } finally {
      await setSettings({ import_sources: ['github', 'git', 'service_project'] })
    }
  })

  it('404 for a namespace the user cannot see, 400 where they cannot create projects', async () => {
    const hidden = await makeGroup(t, { visibility: 'private' })
    const missing = await post({ path: 'p', namespace: hidden.full_path, file: { name: 'x.tar.gz', data: await fullArchive() } })
    assert.equal(missing.statusCode, 404)
    assert.deepEqual(missing.json(), { message: '404 Namespace Not Found' })
    const other = await makeUser(t)
    const byId = await post({ path: 'p', namespace: String(other.user.id + 100000), file: { name: 'x.tar.gz', data: await fullArchive() } })
    assert.equal(byId.statusCode, 404)
    const group = await makeGroup(t, { visibility: 'private' })
    await makeMember(t, { type: 'group', id: group.id }, owner, DEVELOPER)
    const developer = await post({ path: 'p', namespace: String(group.id), file: { name: 'x.tar.gz', data: await fullArchive() } })
    assert.equal(developer.statusCode, 400)
    assert.deepEqual(developer.json(), { message: 'Namespace is not valid' })
  })

  it('400 when the path is taken without overwrite; overwrite imports aside and then replaces the old project', async () => {
    const old = await makeProject(t, owner, { path: 'taken', name: 'taken' })
    await commitFiles(t, old.id, { 'old.txt': 'old' })
    const taken = await post({ path: 'taken', file: { name: 'x.tar.gz', data: await fullArchive() } })
    assert.equal(taken.statusCode, 400)
    assert.match(taken.json().message, /^(Name|Path) has already been taken$/)

    const res = await post({ path: 'taken', overwrite: 'true', file: { name: 'x.tar.gz', data: await fullArchive() } })
    assert.equal(res.statusCode, 201, res.body)
    assert.match(res.json().path, /^taken-import-[0-9a-f]{8}$/)
    assert.equal((await t.api('GET', `/projects/${old.id}`, { token: owner.token })).status, 200)
    await runJobs()
    assert.equal((await importStatus(res.json().id)).import_status, 'finished')
    const byPath = await t.api('GET', `/projects/${encodeURIComponent(`${owner.user.username}/taken`)}`, { token: owner.token })
    assert.equal(byPath.status, 200)
    assert.equal(byPath.body.id, res.json().id)
    assert.equal(byPath.body.name, 'taken')
    assert.equal((await t.api('GET', `/projects/${old.id}`, { token: owner.token })).status, 404)
    assert.equal(await fs.stat(t.ctx.repositories.repositoryPath(old.id)).then(() => true, () => false), false)
  })

  it('overwrite of a project the user may not remove is 403', async () => {
    const group = await makeGroup(t, { visibility: 'private' })
    const maintainer = await makeUser(t)
    await makeMember(t, { type: 'group', id: group.id }, maintainer, 40)
    await makeProject(t, null, { path: 'keep', namespace: group })
    const res = await post({ path: 'keep', namespace: group.full_path, overwrite: 'true', file: { name: 'x.tar.gz', data: await fullArchive() } }, maintainer.token)
    assert.equal(res.statusCode, 403)
  })

  it('keeps no server path or stack in import_error', () => {
    const err = new Error(`ENOENT: no such file or directory, open '${t.ctx.config.dataDir}/tmp/imports/project-1/project.json'\n    at open (node:fs)`)
    const message = importErrorMessage(t.ctx, err)
    assert.doesNotMatch(message, new RegExp(t.ctx.config.dataDir.replaceAll('/', '\\/')))
    assert.doesNotMatch(message, /\n|at open/)
    assert.equal(importErrorMessage(t.ctx, new Error('cannot read /var/lib/ingot/secret/file.json')), 'cannot read …/file.json')
  })

  it('GET /projects/:id/import: none for a project never imported, 404 for one the caller cannot see', async () => {
    const plain = await makeProject(t, owner)
    const status = await importStatus(plain.id)
    assert.equal(status.import_status, 'none')
    assert.equal(status.id, plain.id)
    const other = await makeUser(t)
    assert.equal((await t.api('GET', `/projects/${plain.id}/import`, { token: other.token })).status, 404)
  })
})
