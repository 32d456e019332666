// @gitbeaker/rest against a real Ingot socket: a merge request opened from a branch, its commits,
// changes and diffs read, a merge refused for a stale `sha`, then merged with the source branch
// removed; and the duplicate's 409 as the client reports it.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { expectStatus, startCompatServer, type Client, type CompatServer } from './server.js'
import { makeProject } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'

describe('compat: merge requests (repository side)', () => {
  let server: CompatServer
  let root: Client
  let projectId: number
  let feature: string

  before(async () => {
    server = await startCompatServer()
    root = server.client()
    const project = await makeProject(server.t, null, { visibility: 'private' })
    projectId = project.id
    const base = await commitFiles(server.t, projectId, { 'README.md': 'hello\n' })
    feature = await commitFiles(server.t, projectId, { 'feature.txt': 'feature\n' }, { branch: 'feature', parent: base })
  })
  after(async () => { await server.close() })

  it('opens, reads and merges a merge request', async () => {
    const mr = await root.MergeRequests.create(projectId, 'feature', 'master', 'Add the feature', { labels: 'compat' })
    assert.equal(mr.iid, 1)
    assert.equal(mr.sha, feature)
    assert.equal(mr.merge_status, 'can_be_merged')
    assert.deepEqual(mr.labels, ['compat'])
    await expectStatus(root.MergeRequests.create(projectId, 'feature', 'master', 'Again'), 409)

    const commits = await root.MergeRequests.allCommits(projectId, mr.iid)
    assert.deepEqual(commits.map((commit) => commit.id), [feature])
    const changes = await root.MergeRequests.showChanges(projectId, mr.iid)
    assert.deepEqual(changes.changes.map((change) => change.new_path), ['feature.txt'])
    const diffs = await root.MergeRequests.allDiffs(projectId, mr.iid)
    assert.equal(diffs.length, 1)

    await expectStatus(root.MergeRequests.merge(projectId, mr.iid, { sha: 'f'.repeat(40) }), 409)
    const merged = await root.MergeRequests.merge(projectId, mr.iid, { sha: feature, shouldRemoveSourceBranch: true })
    assert.equal(merged.state, 'merged')
    assert.equal(typeof merged.merge_commit_sha, 'string')
    await expectStatus(root.Branches.show(projectId, 'feature'), 404)
    await expectStatus(root.MergeRequests.merge(projectId, mr.iid), 405)
  })
})
