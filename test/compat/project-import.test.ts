// python-gitlab (Debian's python3-gitlab) imports an archive of the original's layout into Ingot
// over a real socket: python/project_import.py calls gl.projects.import_project and follows
// project.imports.get() until the job worker has finished it. Skipped without python-gitlab,
// except in CI.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import type { Readable } from 'node:stream'
import zlib from 'node:zlib'
import tar from 'tar-stream'
import { startCompatServer, type CompatServer } from './server.js'
import { pythonGitlabMissing, runPythonScript } from './python.js'
import { makeProject, makeUser } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import { runGit } from '../../src/git/command.js'


/** The original's layout: `./`-prefixed members, VERSION without a newline. */
async function writeArchive(file: string, members: Record<string, Buffer | string>): Promise<void> {
  const pack = tar.pack()
  const out = pack.pipe(zlib.createGzip()) as unknown as Readable
  const chunks: Buffer[] = []
  out.on('data', (chunk: Buffer) => { chunks.push(chunk) })
  const ended = new Promise<void>((resolve) => { out.on('end', () => resolve()) })
  pack.entry({ name: './', type: 'directory' })
  for (const [name, data] of Object.entries(members)) pack.entry({ name: `./${name}` }, typeof data === 'string' ? Buffer.from(data) : data)
  pack.finalize()
  await ended
  await fs.writeFile(file, Buffer.concat(chunks))
}

describe('compat: python-gitlab project import', () => {
  let server: CompatServer
  let work: string
  before(async () => {
    server = await startCompatServer()
    work = await fs.mkdtemp(path.join(os.tmpdir(), 'ingot-compat-import-'))
  })
  after(async () => {
    await server.close()
    await fs.rm(work, { recursive: true, force: true })
  })

  it('imports with gl.projects.import_project and follows project.imports.get() to finished', { skip: pythonGitlabMissing() }, async () => {
    const { t } = server
    const user = await makeUser(t)
    const source = await makeProject(t, user)
    const main = await commitFiles(t, source.id, { 'README.md': '# From 11.x\n' })
    await commitFiles(t, source.id, { 'topic.txt': 'topic' }, { branch: 'topic', parent: main })
    await runGit(['bundle', 'create', path.join(work, 'project.bundle'), '--all'], { gitDir: t.ctx.repositories.repositoryPath(source.id) })
    const archive = path.join(work, 'export.tar.gz')
    await writeArchive(archive, {
      VERSION: '0.2.4',
      'project.json': JSON.stringify({ description: 'From the archive', visibility_level: 0, project_members: [] }),
      'project.bundle': await fs.readFile(path.join(work, 'project.bundle')),
    })
    await t.ctx.jobs.start()
    const stdout = await runPythonScript('project_import.py', [server.url, user.token, archive, user.user.username])
    assert.equal(stdout.trim(), 'ok')
  })
})
