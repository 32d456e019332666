// receive-pack's ref advertisement (`GET …/info/refs?service=git-receive-pack`) as Ingot answers it
// from its own reading of the refs (git/refs-reader.ts), compared byte for byte with git's own
// `receive-pack --stateless-rpc --advertise-refs` given the same options (asked through a client
// saying `Git-Protocol: version=0`, which goes to git), over many repository states; and the states
// Ingot leaves to git, which must then start receive-pack and answer alike.
import { after, before, beforeEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { gitProcessCounts } from '../../src/git/processes.js'
import { plainGit } from '../helpers/git.js'
import { advertiseRefs, type ServiceOptions } from '../../src/git/smart-http.js'

const run = promisify(execFile)

describe('receive-pack advertisement without git', () => {
  let scratch: string
  let gitDir: string
  let counter = 0

  const { git, commit } = plainGit(() => scratch, () => gitDir)
  const options = (): ServiceOptions => ({
    gitDir, protocol: null, hooksDir: path.join(scratch, 'hooks'), timeoutMs: 60_000, idleTimeoutMs: 60_000,
  })
  /** git's own answer, asked as a client saying `version=0` is answered: by git, with the same options. */
  const ofGit = () => read(advertiseRefs('git-receive-pack', { ...options(), protocol: 'version=0' }))
  const receivePacksStarted = () => gitProcessCounts().get('receive-pack')?.started ?? 0
  const read = async (answer: AsyncGenerator<Buffer>) => {
    const chunks: Buffer[] = []
    for await (const chunk of answer) chunks.push(chunk)
    return Buffer.concat(chunks).toString('latin1')
  }

  /**
   * Ingot's answer equals git's, and came without git (`own`) or from git. The first answer per
   * configuration teaches Ingot git's capabilities, so it is asked for once before.
   */
  const assertAdvertisement = async (own: boolean) => {
    const expected = await ofGit()
    await read(advertiseRefs('git-receive-pack', options()))
    const started = receivePacksStarted()
    let exited = false
    const answer = await read(advertiseRefs('git-receive-pack', options(), () => { exited = true }))
    assert.equal(answer, expected)
    assert.equal(receivePacksStarted() - started, own ? 0 : 1, own ? 'answered without git' : 'answered by git')
    assert.ok(exited, 'onExit heard')
    return answer
  }

  before(async () => {
    scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'ingot-push-advertisement-'))
  })
  after(async () => {
    await fs.rm(scratch, { recursive: true, force: true })
  })
  beforeEach(async () => {
    gitDir = path.join(scratch, `repo${(counter += 1)}.git`)
    await run('git', ['init', '--bare', '--quiet', '--initial-branch=main', gitDir])
  })

  it('an empty repository: the capabilities^{} line', async () => {
    const answer = await assertAdvertisement(true)
    assert.match(answer, /^001f# service=git-receive-pack\n0000....0{40} capabilities\^\{\}\0report-status .*agent=git\/.*\n0000$/)
  })

  it('one branch', async () => {
    await git('update-ref', 'refs/heads/main', await commit('first'))
    assert.match(await assertAdvertisement(true), /[0-9a-f]{40} refs\/heads\/main\0/)
  })

  it('many branches and annotated and lightweight tags, loose, in byte order of their names', async () => {
    const first = await commit('first')
    const second = await commit('second', first)
    for (const name of ['main', 'foo-bar', 'foo/x', 'foo.bar', 'Zeta', 'a/b/c', 'a_b', 'feature/z', 'feature-1', '0', 'x-y']) {
      await git('update-ref', `refs/heads/${name}`, name.length % 2 === 0 ? first : second)
    }
    await git('tag', 'light', first)
    await git('tag', '-a', 'v1.0', '-m', 'Release', second)
    await git('tag', '-a', 'release/v1.0', '-m', 'Nested', first)
    await git('update-ref', 'refs/notes/commits', first)
    await git('update-ref', 'refs/remotes/origin/main', second)
    await assertAdvertisement(true)
  })

  it('packed and loose together: a loose ref over a packed one, a ref deleted after packing, new loose refs', async () => {
    const first = await commit('first')
    const second = await commit('second', first)
    for (let i = 0; i < 30; i += 1) await git('update-ref', `refs/heads/branch-${i}`, first)
    await git('tag', '-a', 'v1', '-m', 'One', first)
    await git('pack-refs', '--all')
    assert.equal(await fs.readdir(path.join(gitDir, 'refs', 'heads')).then((names) => names.length), 0)
    await assertAdvertisement(true)
    await git('update-ref', 'refs/heads/branch-3', second)
    await git('update-ref', '-d', 'refs/heads/branch-7')
    await git('update-ref', 'refs/heads/branch-30', second)
    await git('update-ref', '-d', 'refs/heads/branch-1')
    await git('update-ref', 'refs/heads/branch-1/under', second)
    await assertAdvertisement(true)
    // A loose ref removed after being packed again leaves its packed value.
    await git('pack-refs', '--all')
    await assertAdvertisement(true)
  })

  it('leaves out the namespaces hidden from pushes, on a path component boundary only', async () => {
    const first = await commit('first')
    await git('update-ref', 'refs/heads/main', first)
    for (const ref of [
      'refs/merge-requests/1/head', 'refs/merge-requests/1/merge', 'refs/keep-around/' + first, 'refs/pipelines/12',
      'refs/environments/production/deployments/3', 'refs/tmp/revert', 'refs/tmpx', 'refs/merge-requestsfoo/a', 'refs/pipelines-old',
    ]) {
      await git('update-ref', ref, first)
    }
    const answer = await assertAdvertisement(true)
    assert.doesNotMatch(answer, /refs\/merge-requests\/|refs\/keep-around|refs\/pipelines\/|refs\/environments|refs\/tmp\//)
    assert.match(answer, /refs\/tmpx\n/)
    // Packed, the same.
    await git('pack-refs', '--all')
    await assertAdvertisement(true)
  })

  it('a symbolic ref under refs/, to a loose or a packed ref, shows its target\'s object', async () => {
    const first = await commit('first')
    const second = await commit('second', first)
    await git('update-ref', 'refs/heads/main', first)
    await git('update-ref', 'refs/heads/other', second)
    await git('pack-refs', '--all')
    await git('update-ref', 'refs/heads/other', first)
    await git('symbolic-ref', 'refs/remotes/origin/HEAD', 'refs/heads/main')
    await git('symbolic-ref', 'refs/heads/alias', 'refs/heads/other')
    await assertAdvertisement(true)
  })

  it('a ref to a missing object, listed as git (GIT_REF_PARANOIA on since 2.36) lists it', async () => {
    await git('update-ref', 'refs/heads/main', await commit('first'))
    await fs.writeFile(path.join(gitDir, 'refs', 'heads', 'broken'), `${'0123456789'.repeat(4)}\n`)
    assert.match(await assertAdvertisement(true), /0123456789012345678901234567890123456789 refs\/heads\/broken/)
  })

  it('a replacement ref is a ref like any other', async () => {
    const first = await commit('first')
    await git('update-ref', 'refs/heads/main', first)
    await git('update-ref', `refs/replace/${first}`, await commit('second'))
    await assertAdvertisement(true)
  })

  describe('left to git', () => {
    const withBranch = async () => {
      const first = await commit('first')
      await git('update-ref', 'refs/heads/main', first)
      return first
    }

    it('alternates', async () => {
      await withBranch()
      const other = path.join(scratch, `other${counter}.git`)
      await run('git', ['init', '--bare', '--quiet', other])
      await fs.writeFile(path.join(gitDir, 'objects', 'info', 'alternates'), `${path.join(other, 'objects')}\n`)
      await assertAdvertisement(false)
    })

    it('a shallow repository', async () => {
      const first = await withBranch()
      await fs.writeFile(path.join(gitDir, 'shallow'), `${first}\n`)
      await assertAdvertisement(false)
    })

    it('a lock in flight, in refs/ or of packed-refs', async () => {
      const first = await withBranch()
      await fs.writeFile(path.join(gitDir, 'refs', 'heads', 'next.lock'), `${first}\n`)
      await assertAdvertisement(false)
      await fs.rm(path.join(gitDir, 'refs', 'heads', 'next.lock'))
      await fs.writeFile(path.join(gitDir, 'packed-refs.lock'), '')
      await assertAdvertisement(false)
    })

    it('a dangling symbolic ref, one to a symbolic ref, one outside refs/', async () => {
      await withBranch()
      await git('symbolic-ref', 'refs/heads/dangling', 'refs/heads/nothing')
      await assertAdvertisement(false)
      await git('symbolic-ref', 'refs/heads/dangling', 'refs/heads/main')
      await git('symbolic-ref', 'refs/heads/twice', 'refs/heads/dangling')
      await assertAdvertisement(false)
      await fs.rm(path.join(gitDir, 'refs', 'heads', 'twice'))
      await fs.writeFile(path.join(gitDir, 'refs', 'heads', 'head'), 'ref: HEAD\n')
      await assertAdvertisement(false)
    })

    it('loose ref files git reads otherwise: trailing text, a symlink, a dot file, a name git refuses', async () => {
      const first = await withBranch()
      const heads = path.join(gitDir, 'refs', 'heads')
      await fs.writeFile(path.join(heads, 'trailing'), `${first} extra\n`)
      await assertAdvertisement(false)
      await fs.rm(path.join(heads, 'trailing'))
      await fs.symlink('main', path.join(heads, 'link'))
      await assertAdvertisement(false)
      await fs.rm(path.join(heads, 'link'))
      await fs.writeFile(path.join(heads, '.hidden'), `${first}\n`)
      await assertAdvertisement(false)
      await fs.rm(path.join(heads, '.hidden'))
      await fs.writeFile(path.join(heads, 'a..b'), `${first}\n`)
      await assertAdvertisement(false)
    })

    it('a packed-refs file out of order, or with a line git would refuse', async () => {
      const first = await withBranch()
      await git('pack-refs', '--all')
      await fs.writeFile(path.join(gitDir, 'packed-refs'), `# pack-refs with: peeled fully-peeled \n${first} refs/heads/b\n${first} refs/heads/a\n`)
      await assertAdvertisement(false)
    })

    it('many refs, where git lists them faster: packed-refs over 64 KiB, more than 256 loose refs', async () => {
      const first = await withBranch()
      const updates = Array.from({ length: 300 }, (_, i) => `create refs/heads/many-${i} ${first}\n`).join('')
      await fs.writeFile(path.join(scratch, 'updates'), updates)
      await run('sh', ['-c', 'git --git-dir "$1" update-ref --stdin < "$2"', 'sh', gitDir, path.join(scratch, 'updates')])
      await assertAdvertisement(false)
      await git('pack-refs', '--all')
      await assertAdvertisement(true)
      const more = Array.from({ length: 1000 }, (_, i) => `create refs/tags/many-${i} ${first}\n`).join('')
      await fs.writeFile(path.join(scratch, 'updates'), more)
      await run('sh', ['-c', 'git --git-dir "$1" update-ref --stdin < "$2" && git --git-dir "$1" pack-refs --all', 'sh', gitDir, path.join(scratch, 'updates')])
      assert.ok((await fs.stat(path.join(gitDir, 'packed-refs'))).size > 64 * 1024)
      await assertAdvertisement(false)
    })

    it('configuration of hidden refs', async () => {
      await withBranch()
      await git('config', 'receive.hideRefs', 'refs/heads/main')
      await assertAdvertisement(false)
    })

    it('a SHA-256 repository', async () => {
      gitDir = path.join(scratch, `sha256-${counter}.git`)
      await run('git', ['init', '--bare', '--quiet', '--object-format=sha256', gitDir])
      await withBranch()
      await assertAdvertisement(false)
    })

    it('a client asking for protocol version 1', async () => {
      await withBranch()
      const started = receivePacksStarted()
      const answer = await read(advertiseRefs('git-receive-pack', { ...options(), protocol: 'version=1' }))
      assert.equal(receivePacksStarted() - started, 1)
      assert.match(answer, /^001f# service=git-receive-pack\n0000000eversion 1\n/)
      assert.equal(answer.replace('000eversion 1\n', ''), await ofGit())
    })
  })
})
