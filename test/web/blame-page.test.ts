// The blame page (web/projects/blame.ts over git/blame.ts): each line attributed to the commit that
// last changed it, runs headed by their commit, lines anchored and highlighted as on the file's
// page, commit summaries and authors escaped, a binary file declined, a private project's 404.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import type { ProjectRow } from '../../src/db/schema.js'
import { parsePorcelain } from '../../src/git/blame.js'
import { Browser } from './browser.js'

describe('Web blame page', () => {
  let t: TestApp
  let owner: TestUser
  let project: ProjectRow
  let base: string
  let first: string
  let second: string
  before(async () => {
    t = await buildTestApp()
    owner = await makeUser(t)
    project = await makeProject(t, owner, { visibility: 'public' })
    first = await commitFiles(t, project.id, { 'src/app.ts': 'const a = 1\nconst b = 2\nconst c = 3\n', 'data.bin': Buffer.from([0, 1, 2]) }, { message: 'First <commit>' })
    second = await commitFiles(t, project.id, { 'src/app.ts': 'const a = 1\nconst b = 20\nconst c = 3\n' }, { message: 'Change b' })
    base = `/${owner.user.username}/${project.path}`
  })
  after(async () => { await t.close() })

  it('reads git\'s porcelain into runs of lines by commit', () => {
    const id1 = 'a'.repeat(40)
    const id2 = 'b'.repeat(40)
    const runs = parsePorcelain([
      `${id1} 1 1 2`, 'author Ada', 'author-time 1700000000', 'summary First', 'filename f', '\tone',
      `${id1} 2 2`, '\ttwo', `${id2} 3 3 1`, 'author Bob', 'author-time 1700000100', 'summary Second', 'filename f', '\tthree', '',
    ].join('\n'))
    assert.deepEqual(runs.map((run) => [run.commit.id, run.commit.author, run.firstLine, run.lines]), [[id1, 'Ada', 1, ['one', 'two']], [id2, 'Bob', 3, ['three']]])
  })

  it('attributes each line to the commit that last changed it, in runs, escaped and anchored', async () => {
    const res = await new Browser(t).get(`${base}/blame/master/src/app.ts`)
    assert.equal(res.status, 200, res.text)
    const runs = [...res.text.matchAll(/<td class="blame-commit" rowspan="(\d+)"><a class="mono" href="[^"]+\/commit\/([0-9a-f]{40})">/g)].map((m) => [Number(m[1]), m[2]])
    assert.deepEqual(runs, [[1, first], [1, second], [1, first]])
    assert.ok(res.text.includes('First &lt;commit&gt;') && !res.text.includes('First <commit>'))
    assert.match(res.text, /<tr id="L2">.*<a href="#L2">2<\/a><td><span class="hljs-keyword">const<\/span> b = <span class="hljs-number">20<\/span>/)
    const blob = await new Browser(t).get(`${base}/blob/master/src/app.ts`)
    assert.ok(blob.text.includes(`href="${base}/blame/master/src/app.ts">Blame</a>`))
  })

  it('declines a binary file, and answers a missing file and a private project with the 404 page', async () => {
    const binary = await new Browser(t).get(`${base}/blame/master/data.bin`)
    assert.equal(binary.status, 200)
    assert.ok(binary.text.includes('too large or not text'))
    assert.equal((await new Browser(t).get(`${base}/blame/master/nope.txt`)).status, 404)
    const secret = await makeProject(t, owner, { visibility: 'private' })
    await commitFiles(t, secret.id, { 'a.txt': 'a\n' })
    assert.equal((await new Browser(t).get(`/${owner.user.username}/${secret.path}/blame/master/a.txt`)).status, 404)
  })
})
