// @gitbeaker/rest and the git command line against a real Ingot socket: a project initialised with
// a README, cloned and pushed to over smart HTTP (the push shows up as an event), then files,
// commits, branches, tags, protected refs and repository reads through the client, and a push the
// protected default branch refuses.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { expectStatus, startCompatServer, untypedParams, type Client, type CompatServer } from './server.js'
import { makeMember, makeUser, type TestUser } from '../helpers/factories.js'
import { DEVELOPER } from '../../src/policies/access-levels.js'

const run = promisify(execFile)

/** git with no prompts, no user configuration and a fixed identity. */
function git(cwd: string, ...args: string[]) {
  return run('git', args, {
    cwd,
    env: {
      PATH: process.env.PATH ?? '', HOME: cwd, GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: 'Compat', GIT_AUTHOR_EMAIL: 'compat@example.com', GIT_COMMITTER_NAME: 'Compat', GIT_COMMITTER_EMAIL: 'compat@example.com',
    },
  })
}

describe('compat: repository', () => {
  let server: CompatServer
  let root: Client
  let developer: TestUser
  let asDeveloper: Client
  let work: string
  let projectId: number
  let pathWithNamespace: string

  /** The clone URL with credentials in it, the way people paste tokens into remotes. */
  const cloneUrl = (username: string, token: string) => `${server.url.replace('http://', `http://${username}:${token}@`)}/${pathWithNamespace}.git`

  before(async () => {
    server = await startCompatServer()
    root = server.client()
    developer = await makeUser(server.t)
    asDeveloper = server.client(developer.token)
    work = await fs.mkdtemp(path.join(os.tmpdir(), 'ingot-compat-git-'))
    const project = await root.Projects.create({ name: 'Engine', description: 'A repository', ...untypedParams({ initializeWithReadme: true }) })
    projectId = project.id
    pathWithNamespace = project.path_with_namespace
    assert.equal(project.default_branch, 'master')
    await makeMember(server.t, { type: 'project', id: projectId }, developer, DEVELOPER)
  })
  after(async () => {
    await server.close()
    await fs.rm(work, { recursive: true, force: true })
  })

  it('clones over smart HTTP and pushes a commit that becomes a pushed event', async () => {
    const checkout = path.join(work, 'engine')
    await git(work, 'clone', '--quiet', cloneUrl('root', server.t.root.token), checkout)
    assert.match(await fs.readFile(path.join(checkout, 'README.md'), 'utf8'), /^# Engine/)
    await git(checkout, 'checkout', '--quiet', '-b', 'feature')
    await fs.writeFile(path.join(checkout, 'feature.txt'), 'a feature\n')
    await git(checkout, 'add', 'feature.txt')
    await git(checkout, 'commit', '--quiet', '-m', 'Add the feature')
    await git(checkout, 'push', '--quiet', 'origin', 'feature')
    const { stdout } = await git(checkout, 'rev-parse', 'HEAD')

    const [event] = await root.Events.all({ projectId, perPage: 1 } as never) as unknown as { action_name: string; push_data: { ref: string; commit_to: string } }[]
    assert.equal(event?.action_name, 'pushed new')
    assert.equal(event?.push_data.ref, 'feature')
    assert.equal(event?.push_data.commit_to, stdout.trim())
  })

  it('refuses a Developer push to the protected default branch, with the reason on the terminal', async () => {
    const checkout = path.join(work, 'refused')
    await git(work, 'clone', '--quiet', cloneUrl(developer.user.username, developer.token), checkout)
    await fs.writeFile(path.join(checkout, 'README.md'), 'rewritten\n')
    await git(checkout, 'commit', '--quiet', '-am', 'Rewrite the README')
    const failure = await git(checkout, 'push', 'origin', 'master').then(() => null, (err: { stderr: string }) => err.stderr)
    assert.ok(failure !== null, 'the push should be refused')
    assert.match(failure, /remote: .*not allowed to push/i)
    assert.match(failure, /pre-receive hook declined/)
  })

  it('writes and reads files', async () => {
    const created = await root.RepositoryFiles.create(projectId, 'docs/guide.md', 'feature', '# Guide\n', 'Add the guide')
    assert.deepEqual(created, { file_path: 'docs/guide.md', branch: 'feature' })
    const file = await root.RepositoryFiles.show(projectId, 'docs/guide.md', 'feature')
    assert.equal(Buffer.from(file.content, 'base64').toString(), '# Guide\n')
    assert.equal(file.encoding, 'base64')
    await root.RepositoryFiles.edit(projectId, 'docs/guide.md', 'feature', '# Guide\n\nMore.\n', 'Extend the guide', { lastCommitId: file.last_commit_id })
    const raw = await root.RepositoryFiles.showRaw(projectId, 'docs/guide.md', 'feature')
    assert.equal(typeof raw === 'string' ? raw : await (raw as Blob).text(), '# Guide\n\nMore.\n')
    await expectStatus(root.RepositoryFiles.edit(projectId, 'docs/guide.md', 'feature', 'stale\n', 'Stale edit', { lastCommitId: file.last_commit_id }), 400)
    await root.RepositoryFiles.remove(projectId, 'docs/guide.md', 'feature', 'Remove the guide')
    await expectStatus(root.RepositoryFiles.show(projectId, 'docs/guide.md', 'feature'), 404)
  })

  it('creates commits with actions, lists, shows, diffs, comments, cherry-picks and reverts them', async () => {
    const commit = await asDeveloper.Commits.create(projectId, 'feature', 'Two files at once', [
      { action: 'create', filePath: 'a.txt', content: 'a\n' },
      { action: 'create', filePath: 'b.bin', content: Buffer.from([0, 1, 2]).toString('base64'), encoding: 'base64' },
    ])
    assert.equal(commit.title, 'Two files at once')
    assert.deepEqual(commit.stats, { additions: 1, deletions: 0, total: 1 })
    const list = await root.Commits.all(projectId, { refName: 'feature', perPage: 2 })
    assert.equal(list[0]?.id, commit.id)
    const shown = await root.Commits.show(projectId, commit.id)
    assert.equal(shown.last_pipeline, null)
    const diff = await root.Commits.showDiff(projectId, commit.id)
    assert.deepEqual(diff.map((entry) => entry.new_path).sort(), ['a.txt', 'b.bin'])
    const comment = await root.Commits.createComment(projectId, commit.id, 'Looks right')
    assert.equal(comment.note, 'Looks right')
    assert.equal((await root.Commits.allComments(projectId, commit.id)).length, 1)
    const refs = await root.Commits.allReferences(projectId, commit.id, { type: 'branch' })
    assert.deepEqual(refs, [{ type: 'branch', name: 'feature' }])

    const picked = await root.Commits.cherryPick(projectId, commit.id, 'master')
    assert.equal(picked.title, 'Two files at once')
    const reverted = await root.Commits.revert(projectId, picked.id, 'master')
    assert.equal(reverted.title, 'Revert "Two files at once"')
    await expectStatus(root.Commits.show(projectId, 'f'.repeat(40)), 404)
  })

  it('creates, lists, protects and removes branches', async () => {
    const branch = await asDeveloper.Branches.create(projectId, 'topic/one', 'feature')
    assert.equal(branch.name, 'topic/one')
    assert.equal(branch.can_push, true)
    const names = (await root.Branches.all(projectId)).map((b) => b.name)
    assert.deepEqual(names, [...names].sort())
    assert.ok(names.includes('topic/one'))
    assert.equal((await root.Branches.show(projectId, 'master')).protected, true)

    const protection = await root.ProtectedBranches.protect(projectId, 'topic/*', { pushAccessLevel: 40 })
    assert.equal(protection.name, 'topic/*')
    assert.equal(protection.push_access_levels?.[0]?.access_level, 40)
    assert.equal((await asDeveloper.Branches.show(projectId, 'topic/one')).can_push, false)
    await expectStatus(asDeveloper.Branches.remove(projectId, 'topic/one'), 400)
    await root.ProtectedBranches.unprotect(projectId, 'topic/*')
    await asDeveloper.Branches.remove(projectId, 'topic/one')
    await expectStatus(root.Branches.show(projectId, 'topic/one'), 404)
  })

  it('creates tags with releases and protects them', async () => {
    const tag = await root.Tags.create(projectId, 'v1.0', 'master', untypedParams({ message: 'First release', release_description: 'Notes' }))
    assert.equal(tag.name, 'v1.0')
    assert.equal(tag.message, 'First release')
    assert.equal((tag.release as { description: string } | null)?.description, 'Notes')
    assert.deepEqual((await root.Tags.all(projectId)).map((t) => t.name), ['v1.0'])

    await root.ProtectedTags.protect(projectId, 'v*')
    assert.deepEqual((await root.ProtectedTags.all(projectId)).map((t) => t.name), ['v*'])
    await expectStatus(asDeveloper.Tags.create(projectId, 'v2.0', 'master'), 405)
    await root.ProtectedTags.unprotect(projectId, 'v*')
    await root.Tags.remove(projectId, 'v1.0')
    await expectStatus(root.Tags.show(projectId, 'v1.0'), 404)
  })

  it('reads trees, blobs, comparisons, contributors and merge bases', async () => {
    const tree = await root.Repositories.allRepositoryTrees(projectId, { ref: 'feature', recursive: true })
    const readme = tree.find((entry) => entry.path === 'README.md')
    assert.equal(readme?.type, 'blob')
    const blob = await root.Repositories.showBlob(projectId, readme!.id)
    assert.match(Buffer.from(blob.content as string, 'base64').toString(), /^# Engine/)
    const comparison = await root.Repositories.compare(projectId, 'master', 'feature')
    assert.ok((comparison.commits ?? []).length > 0)
    const contributors = await root.Repositories.allContributors(projectId)
    assert.ok(contributors.length > 0)
    const base = await root.Repositories.mergeBase(projectId, ['master', 'feature'])
    assert.match(base.id, /^[0-9a-f]{40}$/)
  })
})
