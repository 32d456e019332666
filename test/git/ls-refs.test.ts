// Protocol v2's ls-refs as Ingot answers it (git/ls-refs.ts, from git/refs-reader.ts's reading),
// compared byte for byte with `git upload-pack --stateless-rpc` given the same request, over the
// requests git's clients send (clone, fetch, ls-remote) and many repository states; and the
// requests and states Ingot leaves to git.
import { after, before, beforeEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { CatFilePool } from '../../src/git/cat-file.js'
import { answerLsRefs, isLsRefsRequest, parseLsRefs } from '../../src/git/ls-refs.js'
import { pktLine } from '../../src/git/pkt-line.js'
import { outputOf, startService } from '../../src/git/smart-http.js'
import { plainGit } from '../helpers/git.js'

const run = promisify(execFile)

const CAPABILITIES = ['agent=git/2.39.5', 'object-format=sha1']

/** A request as git's clients send it: the command, capabilities, a delim, arguments, a flush. */
function request(args: readonly string[], { capabilities = CAPABILITIES, newline = true } = {}): Buffer {
  const line = (text: string) => pktLine(newline ? `${text}\n` : text)
  return Buffer.from(`${line('command=ls-refs')}${capabilities.map(line).join('')}0001${args.map(line).join('')}0000`)
}

/** `git clone`'s request (2.39): peel, symrefs, unborn, the prefixes of HEAD, branches and tags. */
const CLONE = request(['peel', 'symrefs', 'unborn', 'ref-prefix HEAD', 'ref-prefix refs/heads/', 'ref-prefix refs/tags/'])
/** `git fetch origin main`'s. */
const FETCH_BRANCH = request(['peel', 'symrefs', 'unborn', 'ref-prefix main', 'ref-prefix refs/main', 'ref-prefix refs/tags/main',
  'ref-prefix refs/heads/main', 'ref-prefix refs/remotes/main', 'ref-prefix refs/remotes/main/HEAD', 'ref-prefix refs/tags/'])
/** `git ls-remote`'s: every ref. */
const LS_REMOTE = request(['peel', 'symrefs', 'unborn'])
const REQUESTS = {
  clone: CLONE,
  'fetch of a branch': FETCH_BRANCH,
  'ls-remote': LS_REMOTE,
  'no arguments': Buffer.from(`${pktLine('command=ls-refs\n')}0000`),
  'symrefs without unborn': request(['symrefs']),
  'unborn without symrefs': request(['unborn', 'peel']),
  'peel alone, a prefix twice and one under another': request(['peel', 'ref-prefix refs/tags/', 'ref-prefix refs/tags/', 'ref-prefix refs/tags/v']),
  'an empty prefix': request(['symrefs', 'ref-prefix ']),
  'lines without newlines, server options': request(['peel', 'symrefs', 'ref-prefix refs/heads/'], {
    capabilities: ['agent=x', 'server-option=a=b', 'object-format=sha1'], newline: false,
  }),
}

describe('ls-refs without git', () => {
  let scratch: string
  let gitDir: string
  let counter = 0
  const objects = new CatFilePool()

  const { git, commit } = plainGit(() => scratch, () => gitDir)
  /** An object written as it is, unchecked (a tag naming a missing object). */
  const writeObject = async (type: string, content: string) => {
    const file = path.join(scratch, `object-${counter}`)
    await fs.writeFile(file, content)
    return git('hash-object', '-t', type, '--literally', '-w', file)
  }

  const ofGit = async (body: Buffer) => {
    const service = startService('git-upload-pack', { gitDir, protocol: 'version=2', timeoutMs: 60_000, idleTimeoutMs: 60_000 })
    service.child.stdin.end(body)
    const chunks: Buffer[] = []
    for await (const chunk of outputOf(service)) chunks.push(chunk)
    return Buffer.concat(chunks).toString('latin1')
  }
  const ours = async (body: Buffer) => {
    const args = parseLsRefs(body)
    assert.ok(args, 'a request Ingot reads')
    return (await answerLsRefs(gitDir, args, { info: (name) => objects.info(gitDir, name) }))?.toString('latin1') ?? null
  }

  /** Every request's answer, Ingot's equal to git's; ls-remote's (every ref) is returned. */
  const assertAnswers = async () => {
    for (const [name, body] of Object.entries(REQUESTS)) {
      assert.equal(await ours(body), await ofGit(body), name)
    }
    return ours(LS_REMOTE)
  }
  /** The repository is left to git: no answer of Ingot's for any request. */
  const assertLeftToGit = async () => {
    for (const body of Object.values(REQUESTS)) assert.equal(await ours(body), null)
  }

  before(async () => {
    scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'ingot-ls-refs-'))
  })
  after(async () => {
    objects.closeAll()
    await fs.rm(scratch, { recursive: true, force: true })
  })
  beforeEach(async () => {
    gitDir = path.join(scratch, `repo${(counter += 1)}.git`)
    await run('git', ['init', '--bare', '--quiet', '--initial-branch=main', gitDir])
  })

  it('an empty repository: HEAD unborn, when asked with symrefs', async () => {
    const answer = await assertAnswers()
    assert.equal(answer, `${pktLine('unborn HEAD symref-target:refs/heads/main\n')}0000`)
  })

  it('branches, lightweight and annotated tags, a tag of a tag, of a tree, notes and remotes, loose', async () => {
    const first = await commit('first')
    const second = await commit('second', first)
    for (const name of ['main', 'foo-bar', 'foo/x', 'foo.bar', 'Zeta', 'a/b/c', 'feature-1', '0']) {
      await git('update-ref', `refs/heads/${name}`, name.length % 2 === 0 ? first : second)
    }
    await git('tag', 'light', first)
    await git('tag', '-a', 'v1.0', '-m', 'Release', second)
    await git('tag', '-a', 'outer', '-m', 'Tag of a tag', 'v1.0')
    await git('tag', '-a', 'tree-tag', '-m', 'A tree', `${first}^{tree}`)
    await git('update-ref', 'refs/notes/commits', first)
    await git('update-ref', 'refs/remotes/origin/main', second)
    const answer = await assertAnswers()
    assert.match(answer!, /HEAD symref-target:refs\/heads\/main peeled:|[0-9a-f]{40} HEAD symref-target:refs\/heads\/main\n/)
    assert.match(answer!, new RegExp(`refs/tags/outer peeled:${second}\n`))
  })

  it('packed, fully peeled, with loose refs over packed ones, deleted and added after packing', async () => {
    const first = await commit('first')
    const second = await commit('second', first)
    await git('update-ref', 'refs/heads/main', first)
    for (let i = 0; i < 20; i += 1) await git('update-ref', `refs/heads/branch-${i}`, first)
    await git('tag', '-a', 'v1', '-m', 'One', first)
    await git('tag', '-a', 'v2', '-m', 'Two', second)
    await git('tag', 'light', second)
    await git('pack-refs', '--all')
    await assertAnswers()
    await git('update-ref', 'refs/heads/main', second)
    await git('tag', '-f', '-a', 'v1', '-m', 'One again', second)
    await git('update-ref', '-d', 'refs/heads/branch-7')
    await git('tag', '-a', 'v3', '-m', 'Three', first)
    await assertAnswers()
  })

  it('a packed-refs file that records peeled objects of tags only, or none', async () => {
    const first = await commit('first')
    await git('update-ref', 'refs/heads/main', first)
    await git('tag', '-a', 'v1', '-m', 'One', first)
    await git('update-ref', 'refs/kept/tagged', await git('rev-parse', 'refs/tags/v1'))
    await git('pack-refs', '--all')
    const packed = await fs.readFile(path.join(gitDir, 'packed-refs'), 'latin1')
    await fs.writeFile(path.join(gitDir, 'packed-refs'), packed.replace(/^# pack-refs with:.*\n/, '# pack-refs with: peeled sorted \n'))
    assert.match(await assertAnswers() ?? '', /refs\/kept\/tagged peeled:/)
    await fs.writeFile(path.join(gitDir, 'packed-refs'), packed.replace(/^# pack-refs with:.*\n/, ''))
    await assertAnswers()
  })

  it('a detached HEAD, on a commit or on an annotated tag', async () => {
    const first = await commit('first')
    await git('update-ref', 'refs/heads/main', first)
    await git('tag', '-a', 'v1', '-m', 'One', first)
    await fs.writeFile(path.join(gitDir, 'HEAD'), `${first}\n`)
    assert.match(await assertAnswers() ?? '', new RegExp(`^....${first} HEAD\n`))
    await fs.writeFile(path.join(gitDir, 'HEAD'), `${await git('rev-parse', 'refs/tags/v1')}\n`)
    assert.match(await assertAnswers() ?? '', new RegExp(`HEAD peeled:${first}\n`))
  })

  it('HEAD on an unborn branch while other branches exist', async () => {
    await git('update-ref', 'refs/heads/other', await commit('first'))
    assert.match(await assertAnswers() ?? '', /^....unborn HEAD symref-target:refs\/heads\/main\n/)
  })

  it('symbolic refs under refs/, to loose and packed refs', async () => {
    const first = await commit('first')
    await git('update-ref', 'refs/heads/main', first)
    await git('tag', '-a', 'v1', '-m', 'One', first)
    await git('pack-refs', '--all')
    await git('update-ref', 'refs/heads/loose', first)
    await git('symbolic-ref', 'refs/remotes/origin/HEAD', 'refs/heads/main')
    await git('symbolic-ref', 'refs/heads/alias', 'refs/heads/loose')
    await git('symbolic-ref', 'refs/tags/alias', 'refs/tags/v1')
    await assertAnswers()
  })

  it('a ref to a missing object, a tag of a blob', async () => {
    const first = await commit('first')
    await git('update-ref', 'refs/heads/main', first)
    await fs.writeFile(path.join(gitDir, 'refs', 'heads', 'broken'), `${'0123456789'.repeat(4)}\n`)
    const blob = await git('hash-object', '-w', '/dev/null')
    await git('tag', '-a', 'blob-tag', '-m', 'A blob', blob)
    const answer = await assertAnswers()
    assert.match(answer!, /0123456789012345678901234567890123456789 refs\/heads\/broken\n/)
    assert.match(answer!, new RegExp(`refs/tags/blob-tag peeled:${blob}\n`))
  })

  describe('left to git', () => {
    it('requests git would read otherwise, or refuse', () => {
      const refused = [
        request(['peel', 'wait-for-done']),
        request(['peel'], { capabilities: ['object-format=sha256'] }),
        request(['peel'], { capabilities: ['session-id=1'] }),
        request(['peel'], { capabilities: ['command=fetch'] }),
        Buffer.from(`${pktLine('command=ls-refs\n')}0001${pktLine('peel\n')}`), // no flush
        Buffer.from(`${pktLine('command=ls-refs\n')}0000${pktLine('command=ls-refs\n')}0000`), // a second request
        Buffer.from(`${pktLine('command=ls-refs\n')}00010002`),
        Buffer.from(`${pktLine('command=ls-refs\n')}0001${pktLine('ref-prefix a\0b\n')}0000`),
        Buffer.from(`${pktLine('command=ls-refs\n')}0001${pktLine('\n')}0000`),
        Buffer.from(`${pktLine('command=ls-refs\n')}00010000zz`),
        Buffer.from(`${pktLine('agent=git/2.39.5\n')}${pktLine('command=ls-refs\n')}0000`),
        Buffer.from(`${pktLine('command=fetch\n')}0000`),
        Buffer.from('0000'),
      ]
      for (const body of refused) assert.equal(parseLsRefs(body), null, JSON.stringify(body.toString('latin1')))
    })

    it('tells an ls-refs request from its first pkt-line', () => {
      assert.equal(isLsRefsRequest(Buffer.from('0014command=ls')), null)
      assert.equal(isLsRefsRequest(Buffer.from(pktLine('command=ls-refs\n'))), true)
      assert.equal(isLsRefsRequest(Buffer.from(pktLine('command=ls-refs'))), true)
      assert.equal(isLsRefsRequest(Buffer.from(pktLine('command=fetch\n'))), false)
      assert.equal(isLsRefsRequest(Buffer.from('0000')), false)
    })

    it('hidden refs and unborn HEADs configured in the repository', async () => {
      await git('update-ref', 'refs/heads/main', await commit('first'))
      for (const [key, value] of [['uploadpack.hideRefs', 'refs/heads/'], ['transfer.hideRefs', 'refs/tags/'], ['lsrefs.unborn', 'ignore']]) {
        await git('config', key!, value!)
        await assertLeftToGit()
        await git('config', '--unset', key!)
      }
      await assertAnswers()
    })

    it('HEAD naming a symbolic ref', async () => {
      await git('update-ref', 'refs/heads/main', await commit('first'))
      await git('symbolic-ref', 'refs/heads/alias', 'refs/heads/main')
      await git('symbolic-ref', 'HEAD', 'refs/heads/alias')
      await assertLeftToGit()
    })

    it('a tag whose object is missing, or of another type than it says, when peeling', async () => {
      const first = await commit('first')
      await git('update-ref', 'refs/heads/main', first)
      const lost = await writeObject('tag', `object ${'9876543210'.repeat(4)}\ntype commit\ntag lost\ntagger Ada <ada@example.com> 0 +0000\n\nLost\n`)
      await git('update-ref', 'refs/tags/lost', lost)
      assert.equal(await ours(CLONE), null)
      assert.match(await ofGit(CLONE), new RegExp(`refs/tags/lost peeled:${'9876543210'.repeat(4)}\n`))
      // Without peeling, the tag is a ref like any other.
      assert.equal(await ours(REQUESTS['symrefs without unborn']), await ofGit(REQUESTS['symrefs without unborn']))
      const blob = await git('hash-object', '-w', '/dev/null')
      await git('update-ref', 'refs/tags/lost', await writeObject('tag', `object ${blob}\ntype commit\ntag liar\n\nA blob\n`))
      assert.equal(await ours(CLONE), null)
    })

    it('what refs-reader leaves to git: a lock in flight', async () => {
      const first = await commit('first')
      await git('update-ref', 'refs/heads/main', first)
      await fs.writeFile(path.join(gitDir, 'refs', 'heads', 'next.lock'), `${first}\n`)
      await assertLeftToGit()
    })
  })
})
