// Commits (spec: Commits): the history list and its filters (ref_name, inclusive since/until, path,
// all, with_stats) with pagination headers, one commit with stats, its refs, diff and comments (the
// placement and fall-back rule, stored in `notes`), cherry-pick and revert onto a branch
// (conflicts and empty picks refused), and commits of file actions — exact fields, who may call
// them (404 for private projects, 403 below the needed level, 401 for anonymous writes) and bad
// input, on real bare repositories.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, EXTERNAL_URL, type TestApp } from '../helpers/app.js'
import { makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { commitFiles, type CommitOptions, type FileChanges } from '../helpers/git.js'
import { expectPaginates, expectRejectsBadPagination } from '../shared/pagination.js'
import { expectStatuses, makeMatrix, type Matrix } from '../shared/permission-matrix.js'
import type { ProjectRow } from '../../src/db/schema.js'
import { NULL_OID } from '../../src/git/repository.js'

const ADA = { name: 'Ada Lovelace', email: 'ada@example.com' }
const BOB = { name: 'Bob Stone', email: 'bob@example.com' }

const CANNOT_CHERRY_PICK = 'Sorry, we cannot cherry-pick this commit automatically. This commit may already have been ' +
  'cherry-picked, or a more recent commit may have updated some of its content.'
const CANNOT_REVERT = 'Sorry, we cannot revert this commit automatically. This commit may already have been reverted, ' +
  'or a more recent commit may have updated some of its content.'

/** `YYYY-MM-DDTHH:MM:SS.mmm+02:00` of an instant in the +0200 zone the dated commits are written in. */
function inPlusTwo(iso: string): string {
  return `${new Date(Date.parse(iso) + 2 * 3600_000).toISOString().slice(0, 23)}+02:00`
}

/**
 * A commit of `files` (as commitFiles writes it) whose author and committer dates are `iso`, in
 * the +0200 zone, so date filters and date fields can be checked exactly.
 */
async function commitAt(t: TestApp, projectId: number, files: FileChanges, iso: string, options: CommitOptions = {}): Promise<string> {
  const repo = t.ctx.repositories.open(projectId)
  const branch = options.branch ?? 'master'
  const written = await commitFiles(t, projectId, files, options)
  const commit = await repo.readCommit(written)
  assert.ok(commit !== null)
  const date = `@${Date.parse(iso) / 1000} +0200`
  const author = options.author ?? ADA
  const redated = (await repo.run(['commit-tree', ...commit.parents.flatMap((p) => ['-p', p]), '-F', '-', commit.tree], {
    input: commit.message,
    env: {
      GIT_AUTHOR_NAME: author.name, GIT_AUTHOR_EMAIL: author.email, GIT_AUTHOR_DATE: date,
      GIT_COMMITTER_NAME: author.name, GIT_COMMITTER_EMAIL: author.email, GIT_COMMITTER_DATE: date,
    },
  })).trim()
  assert.ok(await repo.compareAndSwapRef(`refs/heads/${branch}`, redated, written))
  return redated
}

describe('Commits API', () => {
  let t: TestApp
  let owner: TestUser
  let project: ProjectRow
  let base: string
  /** master: c1 → c2 → c3; feature/x: c1 → c2 → c4; tag v1 at c2. */
  const sha = { c1: '', c2: '', c3: '', c4: '' }
  const list = (query: Record<string, string | number | boolean> = {}, token: string | null = null) =>
    t.api('GET', `${base}/commits`, { token, query })
  const ids = (body: { id: string }[]) => body.map((commit) => commit.id)

  before(async () => {
    t = await buildTestApp()
    owner = await makeUser(t)
    project = await makeProject(t, owner, { path: 'history', visibility: 'public' })
    base = `/projects/${project.id}/repository`
    sha.c1 = await commitAt(t, project.id, { 'README.md': 'one\n', 'src/a.txt': 'a\n' }, '2020-01-01T00:00:00Z',
      { message: 'First commit\n\nWith a body.\n' })
    sha.c2 = await commitAt(t, project.id, { 'src/a.txt': 'a\nb\n' }, '2020-01-02T00:00:00Z', { author: BOB, message: 'Add b' })
    const repo = t.ctx.repositories.open(project.id)
    assert.ok(await repo.compareAndSwapRef('refs/heads/feature/x', sha.c2, NULL_OID))
    assert.ok(await repo.compareAndSwapRef('refs/tags/v1', sha.c2, NULL_OID))
    sha.c3 = await commitAt(t, project.id, { 'README.md': 'uno\ntwo\n' }, '2020-01-03T00:00:00Z', { message: 'Grow readme' })
    sha.c4 = await commitAt(t, project.id, { 'other.txt': 'x\n' }, '2020-01-04T00:00:00Z', { branch: 'feature/x', message: 'Feature work' })
  })
  after(async () => { await t.close() })

  describe('GET /projects/:id/repository/commits', () => {
    it('lists the default branch newest first with the exact commit fields, anonymously on a public project', async () => {
      const res = await list()
      assert.equal(res.status, 200, res.text)
      assert.deepEqual(ids(res.body), [sha.c3, sha.c2, sha.c1])
      assert.deepEqual(res.body[2], {
        id: sha.c1,
        short_id: sha.c1.slice(0, 8),
        title: 'First commit',
        created_at: inPlusTwo('2020-01-01T00:00:00Z'),
        parent_ids: [],
        message: 'First commit\n\nWith a body.\n',
        author_name: ADA.name,
        author_email: ADA.email,
        authored_date: inPlusTwo('2020-01-01T00:00:00Z'),
        committer_name: ADA.name,
        committer_email: ADA.email,
        committed_date: inPlusTwo('2020-01-01T00:00:00Z'),
      })
      assert.deepEqual(res.body[1].parent_ids, [sha.c1])
      assert.equal(res.headers['x-total'], '3')
      assert.equal(res.headers['x-total-pages'], '1')
    })

    it('lists a branch, a tag or a commit given as ref_name', async () => {
      assert.deepEqual(ids((await list({ ref_name: 'feature/x' })).body), [sha.c4, sha.c2, sha.c1])
      assert.deepEqual(ids((await list({ ref_name: 'v1' })).body), [sha.c2, sha.c1])
      assert.deepEqual(ids((await list({ ref_name: sha.c2 })).body), [sha.c2, sha.c1])
      assert.deepEqual(ids((await list({ ref_name: '' })).body), [sha.c3, sha.c2, sha.c1])
    })

    it('takes since and until as inclusive bounds on the commit date, in any zone', async () => {
      let res = await list({ since: '2020-01-02T00:00:00Z' })
      assert.deepEqual(ids(res.body), [sha.c3, sha.c2])
      assert.equal(res.headers['x-total'], '2')
      res = await list({ until: '2020-01-02T00:00:00Z' })
      assert.deepEqual(ids(res.body), [sha.c2, sha.c1])
      res = await list({ since: '2020-01-02T02:00:00+02:00', until: '2020-01-02T00:00:00Z' })
      assert.deepEqual(ids(res.body), [sha.c2])
      assert.equal(res.headers['x-total'], '1')
      res = await list({ since: '2020-01-02T00:00:00.001Z', until: '2020-01-02T23:59:59Z' })
      assert.deepEqual(ids(res.body), [])
      assert.equal(res.headers['x-total'], '0')
    })

    it('keeps only the commits touching `path`', async () => {
      assert.deepEqual(ids((await list({ path: 'src/a.txt' })).body), [sha.c2, sha.c1])
      assert.deepEqual(ids((await list({ path: 'src' })).body), [sha.c2, sha.c1])
      assert.deepEqual(ids((await list({ path: 'README.md', ref_name: 'feature/x' })).body), [sha.c1])
      const none = await list({ path: 'missing.txt' })
      assert.deepEqual(none.body, [])
      assert.equal(none.headers['x-total'], '0')
      // Literal paths: a pattern matches nothing.
      assert.deepEqual((await list({ path: '*.md' })).body, [])
    })

    it('lists every ref\'s commits with all, combined with the other filters', async () => {
      const res = await list({ all: true })
      assert.deepEqual(ids(res.body), [sha.c4, sha.c3, sha.c2, sha.c1])
      assert.equal(res.headers['x-total'], '4')
      assert.deepEqual(ids((await list({ all: true, path: 'other.txt' })).body), [sha.c4])
      assert.deepEqual(ids((await list({ all: true, since: '2020-01-03T00:00:00Z' })).body), [sha.c4, sha.c3])
    })

    it('adds each commit\'s stats with with_stats only', async () => {
      const res = await list({ with_stats: true })
      assert.deepEqual(res.body.map((c: { stats: unknown }) => c.stats), [
        { additions: 2, deletions: 1, total: 3 },
        { additions: 1, deletions: 0, total: 1 },
        { additions: 2, deletions: 0, total: 2 },
      ])
      assert.deepEqual(Object.keys(res.body[0]).sort(), [
        'author_email', 'author_name', 'authored_date', 'committed_date', 'committer_email', 'committer_name', 'created_at', 'id',
        'message', 'parent_ids', 'short_id', 'stats', 'title',
      ])
      assert.equal((await list({ with_stats: false })).body[0].stats, undefined)
    })

    it('paginates with the seven headers, counting the whole selection', async () => {
      const res = await expectPaginates({ t, path: `${base}/commits?ref_name=master`, token: null, total: 3 })
      assert.deepEqual(ids(res.body), [sha.c2])
      await expectPaginates({ t, path: `${base}/commits?all=true`, token: null, total: 4 })
      await expectRejectsBadPagination(t, `${base}/commits`, null)
      const beyond = await list({ page: 9 })
      assert.deepEqual(beyond.body, [])
      assert.equal(beyond.headers['x-total'], '3')
    })

    it('answers 404 for an unknown or option-looking ref_name, 400 for bad dates and escaping paths', async () => {
      for (const ref of ['nope', '--all', '-n1', 'master..feature/x']) {
        const res = await list({ ref_name: ref })
        assert.equal(res.status, 404, ref)
        assert.deepEqual(res.body, { message: '404 Ref Not Found' })
      }
      // A reflog expression searches the history: refused outright.
      assert.equal((await list({ ref_name: 'HEAD@{1}' })).status, 400)
      for (const [param, value] of [['since', 'yesterday'], ['until', '2020-13-45'], ['since', '--all']] as const) {
        const res = await list({ [param]: value })
        assert.equal(res.status, 400, `${param}=${value}`)
        assert.deepEqual(res.body, { error: `${param} is invalid` })
      }
      for (const path of ['../etc', 'src/../../x', '-p', '/abs']) {
        const res = await list({ path })
        assert.equal(res.status, 400, path)
        assert.deepEqual(res.body, { error: 'path is invalid' })
      }
      assert.deepEqual((await list({ all: 'maybe' })).body, { error: 'all is invalid' })
    })

    it('lists nothing for an empty repository', async () => {
      const empty = await makeProject(t, owner, { visibility: 'public' })
      const res = await t.api('GET', `/projects/${empty.id}/repository/commits`, { token: null })
      assert.equal(res.status, 200)
      assert.deepEqual(res.body, [])
      assert.equal(res.headers['x-total'], '0')
    })
  })

  describe('GET /projects/:id/repository/commits/:sha', () => {
    it('shows a commit with stats, status and last_pipeline', async () => {
      const res = await t.api('GET', `${base}/commits/${sha.c2}`, { token: null })
      assert.equal(res.status, 200, res.text)
      assert.deepEqual(res.body, {
        id: sha.c2,
        short_id: sha.c2.slice(0, 8),
        title: 'Add b',
        created_at: inPlusTwo('2020-01-02T00:00:00Z'),
        parent_ids: [sha.c1],
        message: 'Add b',
        author_name: BOB.name,
        author_email: BOB.email,
        authored_date: inPlusTwo('2020-01-02T00:00:00Z'),
        committer_name: BOB.name,
        committer_email: BOB.email,
        committed_date: inPlusTwo('2020-01-02T00:00:00Z'),
        stats: { additions: 1, deletions: 0, total: 1 },
        status: null,
        last_pipeline: null,
      })
    })

    it('leaves stats out with stats=false', async () => {
      const res = await t.api('GET', `${base}/commits/${sha.c2}`, { token: null, query: { stats: false } })
      assert.equal(res.body.stats, undefined)
      assert.equal(res.body.status, null)
      assert.equal(res.body.last_pipeline, null)
    })

    it('finds a commit by short id, branch (URL-encoded) or tag', async () => {
      for (const [name, expected] of [[sha.c2.slice(0, 10), sha.c2], ['feature%2Fx', sha.c4], ['v1', sha.c2], ['master', sha.c3]]) {
        const res = await t.api('GET', `${base}/commits/${name}`, { token: null })
        assert.equal(res.status, 200, name)
        assert.equal(res.body.id, expected, name)
      }
    })

    it('answers 404 Commit Not Found for unknown or option-looking names', async () => {
      for (const name of ['deadbeefdeadbeef', 'nope', '--output=x', encodeURIComponent('master..v1'), 'HEAD%7E9']) {
        const res = await t.api('GET', `${base}/commits/${name}`, { token: null })
        assert.equal(res.status, 404, name)
        assert.deepEqual(res.body, { message: '404 Commit Not Found' })
      }
    })
  })

  describe('GET /projects/:id/repository/commits/:sha/refs', () => {
    it('lists the branches then the tags containing the commit, filtered by type', async () => {
      let res = await t.api('GET', `${base}/commits/${sha.c1}/refs`, { token: null })
      assert.equal(res.status, 200)
      assert.deepEqual(res.body, [{ type: 'branch', name: 'feature/x' }, { type: 'branch', name: 'master' }, { type: 'tag', name: 'v1' }])
      res = await t.api('GET', `${base}/commits/${sha.c1}/refs`, { token: null, query: { type: 'branch' } })
      assert.deepEqual(res.body, [{ type: 'branch', name: 'feature/x' }, { type: 'branch', name: 'master' }])
      res = await t.api('GET', `${base}/commits/${sha.c1}/refs`, { token: null, query: { type: 'tag' } })
      assert.deepEqual(res.body, [{ type: 'tag', name: 'v1' }])
      res = await t.api('GET', `${base}/commits/${sha.c4}/refs`, { token: null })
      assert.deepEqual(res.body, [{ type: 'branch', name: 'feature/x' }])
      await expectPaginates({ t, path: `${base}/commits/${sha.c1}/refs`, token: null, total: 3 })
    })

    it('refuses an unknown type (400) and an unknown commit (404)', async () => {
      const res = await t.api('GET', `${base}/commits/${sha.c1}/refs`, { token: null, query: { type: 'remote' } })
      assert.equal(res.status, 400)
      assert.deepEqual(res.body, { error: 'type is invalid' })
      const missing = await t.api('GET', `${base}/commits/deadbeefdeadbeef/refs`, { token: null })
      assert.deepEqual([missing.status, missing.body], [404, { message: '404 Commit Not Found' }])
    })
  })

  describe('GET /projects/:id/repository/commits/:sha/diff', () => {
    it('shows the changes against the first parent, a root commit against nothing', async () => {
      let res = await t.api('GET', `${base}/commits/${sha.c2}/diff`, { token: null })
      assert.equal(res.status, 200)
      const diff: string = res.body[0].diff
      assert.match(diff, /@@ -1 \+1,2 @@\n a\n\+b\n$/)
      assert.deepEqual(res.body, [{
        old_path: 'src/a.txt', new_path: 'src/a.txt', a_mode: '100644', b_mode: '100644',
        new_file: false, renamed_file: false, deleted_file: false, diff, too_large: false, collapsed: false,
      }])
      res = await t.api('GET', `${base}/commits/${sha.c1}/diff`, { token: null })
      assert.deepEqual(res.body.map((d: { new_path: string; new_file: boolean; a_mode: string }) => [d.new_path, d.new_file, d.a_mode]),
        [['README.md', true, '0'], ['src/a.txt', true, '0']])
    })

    it('paginates the files', async () => {
      const wide = await makeProject(t, owner, { visibility: 'public' })
      await commitFiles(t, wide.id, { 'a.txt': '1\n', 'b.txt': '2\n', 'c.txt': '3\n' })
      await expectPaginates({ t, path: `/projects/${wide.id}/repository/commits/master/diff`, token: null, total: 3 })
    })

    it('answers 404 for an unknown commit', async () => {
      const res = await t.api('GET', `${base}/commits/nope/diff`, { token: null })
      assert.deepEqual([res.status, res.body], [404, { message: '404 Commit Not Found' }])
    })
  })

  describe('commit comments', () => {
    const author = () => ({
      id: owner.user.id, name: owner.user.name, username: owner.user.username, state: 'active', avatar_url: null,
      web_url: `${EXTERNAL_URL}/${owner.user.username}`,
    })
    const comment = (ref: string, body: Record<string, unknown>, token: string | null = owner.token) =>
      t.api('POST', `${base}/commits/${ref}/comments`, { token, body })

    it('places a comment on a line the commit added, with the exact fields, stored in notes', async () => {
      const res = await comment(sha.c2, { note: 'Nice line', path: 'src/a.txt', line: 2, line_type: 'new' })
      assert.equal(res.status, 201, res.text)
      assert.deepEqual(res.body, {
        note: 'Nice line', path: 'src/a.txt', line: 2, line_type: 'new', author: author(), created_at: res.body.created_at,
      })
      assert.match(res.body.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
      const row = await t.ctx.db.selectFrom('notes').selectAll().where('project_id', '=', project.id)
        .where('body', '=', 'Nice line').executeTakeFirstOrThrow()
      assert.equal(row.noteable_type, 'Commit')
      assert.equal(row.commit_id, sha.c2)
      assert.equal(row.author_id, owner.user.id)
      assert.deepEqual([row.path, row.line, row.line_type], ['src/a.txt', 2, 'new'])
      const event = await t.ctx.db.selectFrom('events').selectAll().where('project_id', '=', project.id)
        .where('action', '=', 'commented').where('target_id', '=', row.id).executeTakeFirst()
      assert.equal(event?.target_type, 'Note')
    })

    it('places a comment on a removed line with line_type old; line_type defaults to new', async () => {
      let res = await comment(sha.c3, { note: 'Was one', path: 'README.md', line: 1, line_type: 'old' })
      assert.deepEqual([res.body.path, res.body.line, res.body.line_type], ['README.md', 1, 'old'])
      res = await comment(sha.c3, { note: 'Now two', path: 'README.md', line: 2 })
      assert.deepEqual([res.body.path, res.body.line, res.body.line_type], ['README.md', 2, 'new'])
    })

    it('falls back to the whole commit when the line, path or line type names no changed line', async () => {
      const cases: Record<string, unknown>[] = [
        { path: 'src/a.txt', line: 1, line_type: 'new' }, // a context line
        { path: 'src/a.txt', line: 99, line_type: 'new' },
        { path: 'src/a.txt', line: 2, line_type: 'old' },
        { path: 'missing.txt', line: 1, line_type: 'new' },
        { path: '../src/a.txt', line: 2, line_type: 'new' },
        { path: 'README.md', line: 1, line_type: 'new' }, // not changed by this commit
        {},
      ]
      for (const placement of cases) {
        const res = await comment(sha.c2, { note: 'General', ...placement })
        assert.equal(res.status, 201, JSON.stringify(placement))
        assert.deepEqual([res.body.path, res.body.line, res.body.line_type], [null, null, null], JSON.stringify(placement))
      }
      // A branch name with an invalid line: on the branch's last commit, as a whole.
      const res = await comment('feature%2Fx', { note: 'On the tip', path: 'other.txt', line: 7 })
      assert.equal(res.status, 201)
      assert.deepEqual([res.body.path, res.body.line, res.body.line_type], [null, null, null])
      const row = await t.ctx.db.selectFrom('notes').select('commit_id').where('body', '=', 'On the tip').executeTakeFirstOrThrow()
      assert.equal(row.commit_id, sha.c4)
    })

    it('lists a commit\'s comments oldest first, paginated; a branch name lists its tip\'s', async () => {
      const fresh = await commitFiles(t, project.id, { 'notes.txt': 'n\n' }, { branch: 'feature/x', message: 'For comments' })
      for (const note of ['first', 'second', 'third']) assert.equal((await comment(fresh, { note })).status, 201)
      const res = await t.api('GET', `${base}/commits/${fresh}/comments`, { token: null })
      assert.equal(res.status, 200)
      assert.deepEqual(res.body.map((c: { note: string }) => c.note), ['first', 'second', 'third'])
      assert.deepEqual(res.body[0], {
        note: 'first', path: null, line: null, line_type: null, author: author(), created_at: res.body[0].created_at,
      })
      await expectPaginates({ t, path: `${base}/commits/${fresh}/comments`, token: null, total: 3 })
      const byBranch = await t.api('GET', `${base}/commits/feature%2Fx/comments`, { token: null })
      assert.deepEqual(byBranch.body.map((c: { note: string }) => c.note), ['first', 'second', 'third'])
      const none = await t.api('GET', `${base}/commits/${sha.c1}/comments`, { token: null })
      assert.deepEqual([none.status, none.body, none.headers['x-total']], [200, [], '0'])
    })

    it('refuses bad input: a missing or blank note, a path without its line, an unknown commit', async () => {
      let res = await comment(sha.c2, {})
      assert.deepEqual([res.status, res.body], [400, { error: 'note is missing' }])
      res = await comment(sha.c2, { note: '  ' })
      assert.deepEqual([res.status, res.body], [400, { message: 'Failed to save note {:note=>["can\'t be blank"]}' }])
      res = await comment(sha.c2, { note: 'x', path: 'src/a.txt' })
      assert.deepEqual([res.status, res.body], [400, { error: 'line is missing' }])
      res = await comment(sha.c2, { note: 'x', path: 'src/a.txt', line: 2, line_type: 'context' })
      assert.deepEqual([res.status, res.body], [400, { error: 'line_type is invalid' }])
      res = await comment(sha.c2, { note: 'x', path: 'src/a.txt', line: 'two' })
      assert.deepEqual([res.status, res.body], [400, { error: 'line is invalid' }])
      res = await comment('deadbeefdeadbeef', { note: 'x' })
      assert.deepEqual([res.status, res.body], [404, { message: '404 Commit Not Found' }])
      res = await comment(sha.c2, { note: 'x' }, null)
      assert.deepEqual([res.status, res.body], [401, { message: '401 Unauthorized' }])
    })
  })

  describe('POST /projects/:id/repository/commits/:sha/cherry_pick and revert', () => {
    let picks: ProjectRow
    let pickBase: string
    const p = { root: '', left: '', right: '', clash: '' }

    before(async () => {
      picks = await makeProject(t, owner, { visibility: 'public' })
      pickBase = `/projects/${picks.id}/repository/commits`
      p.root = await commitFiles(t, picks.id, { 'README.md': 'one\n', 'a.txt': 'a\n' }, { message: 'Root' })
      const repo = t.ctx.repositories.open(picks.id)
      assert.ok(await repo.compareAndSwapRef('refs/heads/topic', p.root, NULL_OID))
      assert.ok(await repo.compareAndSwapRef('refs/heads/clash', p.root, NULL_OID))
      p.left = await commitFiles(t, picks.id, { 'README.md': 'uno\n' }, { message: 'Spanish readme' })
      p.right = await commitFiles(t, picks.id, { 'b.txt': 'b\n' }, { branch: 'topic', author: BOB, message: 'Add b\n\nBecause.\n' })
      p.clash = await commitFiles(t, picks.id, { 'README.md': 'ONE\n' }, { branch: 'clash', message: 'Shout readme' })
    })

    it('cherry-picks onto a branch: original author, the caller as committer, the original\'s message', async () => {
      const res = await t.api('POST', `${pickBase}/${p.right}/cherry_pick`, { token: owner.token, body: { branch: 'master' } })
      assert.equal(res.status, 201, res.text)
      const repo = t.ctx.repositories.open(picks.id)
      const tip = (await repo.resolveCommit('master'))!
      const right = (await repo.readCommit(p.right))!
      assert.deepEqual(Object.keys(res.body).sort(), [
        'author_email', 'author_name', 'authored_date', 'committed_date', 'committer_email', 'committer_name', 'created_at', 'id',
        'message', 'parent_ids', 'short_id', 'title',
      ])
      assert.equal(res.body.id, tip)
      assert.deepEqual(res.body.parent_ids, [p.left])
      assert.equal(res.body.title, 'Add b')
      assert.equal(res.body.message, `Add b\n\nBecause.\n\n(cherry picked from commit ${p.right})`)
      assert.deepEqual([res.body.author_name, res.body.author_email], [BOB.name, BOB.email])
      assert.equal(res.body.authored_date, (await t.api('GET', `${pickBase}/${p.right}`, { token: null })).body.authored_date)
      assert.deepEqual([res.body.committer_name, res.body.committer_email], [owner.user.name, owner.user.email])
      const picked = (await repo.readCommit(tip))!
      assert.equal(picked.author.time, right.author.time)
      assert.equal((await repo.read(`${tip}:b.txt`))?.data.toString(), 'b\n')
      assert.equal((await repo.read(`${tip}:README.md`))?.data.toString(), 'uno\n')
      // The push path ran: a pushed event for master.
      const event = await t.ctx.db.selectFrom('events').selectAll().where('project_id', '=', picks.id)
        .where('action', '=', 'pushed').orderBy('id', 'desc').executeTakeFirstOrThrow()
      assert.match(String(event.push_data), /"commit_to":"[0-9a-f]{40}"/)
      assert.equal(JSON.parse(String(event.push_data)).commit_to, tip)
    })

    it('refuses a pick that changes nothing (already picked) or conflicts, leaving the branch alone', async () => {
      const repo = t.ctx.repositories.open(picks.id)
      const before = await repo.resolveCommit('master')
      let res = await t.api('POST', `${pickBase}/${p.right}/cherry_pick`, { token: owner.token, body: { branch: 'master' } })
      assert.deepEqual([res.status, res.body], [400, { message: CANNOT_CHERRY_PICK }])
      res = await t.api('POST', `${pickBase}/${p.clash}/cherry_pick`, { token: owner.token, body: { branch: 'master' } })
      assert.deepEqual([res.status, res.body], [400, { message: CANNOT_CHERRY_PICK }])
      assert.equal(await repo.resolveCommit('master'), before)
    })

    it('cherry-picks a commit named by its branch', async () => {
      const res = await t.api('POST', `${pickBase}/topic/cherry_pick`, { token: owner.token, body: { branch: 'clash' } })
      assert.equal(res.status, 201, res.text)
      assert.deepEqual(res.body.parent_ids, [p.clash])
    })

    it('reverts a commit on a branch, authored and committed by the caller', async () => {
      const res = await t.api('POST', `${pickBase}/${p.left}/revert`, { token: owner.token, body: { branch: 'master' } })
      assert.equal(res.status, 201, res.text)
      const repo = t.ctx.repositories.open(picks.id)
      const tip = (await repo.resolveCommit('master'))!
      assert.equal(res.body.id, tip)
      assert.equal(res.body.title, 'Revert "Spanish readme"')
      assert.equal(res.body.message, `Revert "Spanish readme"\n\nThis reverts commit ${p.left}`)
      assert.deepEqual([res.body.author_name, res.body.author_email], [owner.user.name, owner.user.email])
      assert.deepEqual([res.body.committer_name, res.body.committer_email], [owner.user.name, owner.user.email])
      assert.equal((await repo.read(`${tip}:README.md`))?.data.toString(), 'one\n')
      assert.equal((await repo.read(`${tip}:b.txt`))?.data.toString(), 'b\n')
      const again = await t.api('POST', `${pickBase}/${p.left}/revert`, { token: owner.token, body: { branch: 'master' } })
      assert.deepEqual([again.status, again.body], [400, { message: CANNOT_REVERT }])
    })

    it('cherry-picks a merge commit as its change against the first parent', async () => {
      const repo = t.ctx.repositories.open(picks.id)
      assert.ok(await repo.compareAndSwapRef('refs/heads/side', p.root, NULL_OID))
      const side = await commitFiles(t, picks.id, { 's.txt': 's\n' }, { branch: 'side', message: 'Side' })
      const sideTree = (await repo.readCommit(side))!.tree
      const merge = (await repo.run(['commit-tree', '-p', p.root, '-p', side, '-m', 'Merge side', sideTree], {
        env: { GIT_AUTHOR_NAME: ADA.name, GIT_AUTHOR_EMAIL: ADA.email, GIT_COMMITTER_NAME: ADA.name, GIT_COMMITTER_EMAIL: ADA.email },
      })).trim()
      assert.ok(await repo.compareAndSwapRef('refs/heads/merged', merge, NULL_OID))
      const stats = await t.api('GET', `${pickBase}/${merge}`, { token: null })
      assert.deepEqual(stats.body.stats, { additions: 1, deletions: 0, total: 1 })
      const res = await t.api('POST', `${pickBase}/merged/cherry_pick`, { token: owner.token, body: { branch: 'topic' } })
      assert.equal(res.status, 201, res.text)
      assert.deepEqual(res.body.parent_ids, [p.right])
      assert.equal((await repo.read(`${res.body.id}:s.txt`))?.data.toString(), 's\n')
      assert.equal((await repo.read(`${res.body.id}:b.txt`))?.data.toString(), 'b\n')
    })

    it('refuses a revert that conflicts', async () => {
      const res = await t.api('POST', `${pickBase}/${p.left}/revert`, { token: owner.token, body: { branch: 'clash' } })
      assert.deepEqual([res.status, res.body], [400, { message: CANNOT_REVERT }])
    })

    it('answers 404 for an unknown commit or branch, 400 for a missing branch', async () => {
      for (const action of ['cherry_pick', 'revert']) {
        let res = await t.api('POST', `${pickBase}/deadbeefdeadbeef/${action}`, { token: owner.token, body: { branch: 'master' } })
        assert.deepEqual([res.status, res.body], [404, { message: '404 Commit Not Found' }])
        res = await t.api('POST', `${pickBase}/${p.right}/${action}`, { token: owner.token, body: { branch: 'nope' } })
        assert.deepEqual([res.status, res.body], [404, { message: '404 Branch Not Found' }])
        res = await t.api('POST', `${pickBase}/${p.right}/${action}`, { token: owner.token, body: { branch: '--force' } })
        assert.deepEqual([res.status, res.body], [404, { message: '404 Branch Not Found' }])
        res = await t.api('POST', `${pickBase}/${p.right}/${action}`, { token: owner.token, body: {} })
        assert.deepEqual([res.status, res.body], [400, { error: 'branch is missing' }])
        res = await t.api('POST', `${pickBase}/${p.right}/${action}`, { token: owner.token, body: { branch: '' } })
        assert.deepEqual([res.status, res.body], [400, { error: 'branch is invalid' }])
      }
    })
  })

  describe('POST /projects/:id/repository/commits', () => {
    it('commits actions onto a branch: 201 with the detail and its stats', async () => {
      const target = await makeProject(t, owner, { visibility: 'public' })
      const root = await commitFiles(t, target.id, { 'README.md': 'hello\n', 'old.txt': 'old\n' })
      const res = await t.api('POST', `/projects/${target.id}/repository/commits`, {
        token: owner.token,
        body: {
          branch: 'master',
          commit_message: 'Several changes',
          actions: [
            { action: 'create', file_path: 'docs/new.md', content: '# New\nline\n' },
            { action: 'update', file_path: 'README.md', content: 'hello world\n' },
            { action: 'delete', file_path: 'old.txt' },
            { action: 'create', file_path: 'bin.dat', content: Buffer.from([0, 1, 2]).toString('base64'), encoding: 'base64' },
          ],
        },
      })
      assert.equal(res.status, 201, res.text)
      const repo = t.ctx.repositories.open(target.id)
      const tip = (await repo.resolveCommit('master'))!
      const commit = (await repo.readCommit(tip))!
      assert.equal(res.body.id, tip)
      assert.deepEqual(res.body.parent_ids, [root])
      assert.equal(res.body.message, 'Several changes')
      assert.deepEqual([res.body.author_name, res.body.author_email, res.body.committer_name, res.body.committer_email],
        [owner.user.name, owner.user.email, owner.user.name, owner.user.email])
      assert.deepEqual(res.body.stats, { additions: 3, deletions: 2, total: 5 })
      assert.equal(res.body.status, null)
      assert.equal(res.body.last_pipeline, null)
      assert.equal(res.body.created_at, res.body.committed_date)
      assert.ok(commit.committer.time > 0)
      assert.deepEqual((await repo.read(`${tip}:bin.dat`))?.data, Buffer.from([0, 1, 2]))
      assert.equal(await repo.info(`${tip}:old.txt`), null)
    })

    it('creates a branch from start_branch, takes author overrides, and leaves stats out with stats=false', async () => {
      const res = await t.api('POST', `${base}/commits`, {
        token: owner.token,
        body: {
          branch: 'from-api', start_branch: 'master', commit_message: 'On a new branch', stats: false,
          author_name: 'Grace Hopper', author_email: 'grace@example.com',
          actions: [{ action: 'create', file_path: 'api.txt', content: 'via the API\n' }],
        },
      })
      assert.equal(res.status, 201, res.text)
      assert.equal(res.body.stats, undefined)
      assert.deepEqual(res.body.parent_ids, [sha.c3])
      assert.deepEqual([res.body.author_name, res.body.author_email], ['Grace Hopper', 'grace@example.com'])
      assert.deepEqual([res.body.committer_name, res.body.committer_email], [owner.user.name, owner.user.email])
      const branch = await t.api('GET', `${base}/commits/from-api`, { token: null })
      assert.equal(branch.body.id, res.body.id)
    })

    it('answers the service\'s refusal (400) and refuses malformed bodies', async () => {
      const post = (body: unknown) => t.api('POST', `${base}/commits`, { token: owner.token, body })
      let res = await post({ branch: 'master', commit_message: 'x', actions: [{ action: 'update', file_path: 'missing.txt', content: 'y' }] })
      assert.deepEqual([res.status, res.body], [400, { message: "A file with this name doesn't exist" }])
      const create = [{ action: 'create', file_path: 'new.txt', content: 'n' }]
      res = await post({ branch: '--force', start_branch: 'master', commit_message: 'x', actions: create })
      assert.equal(res.status, 400)
      assert.match(res.body.message, /Branch name is invalid/)
      res = await post({ branch: 'fresh', start_branch: '--orphan', commit_message: 'x', actions: create })
      assert.deepEqual([res.status, res.body], [400, { message: 'You can only create or edit files when you are on a branch' }])
      res = await post({ branch: 'master', commit_message: 'x' })
      assert.deepEqual([res.status, res.body], [400, { error: 'actions is missing' }])
      res = await post({ branch: 'master', actions: [] })
      assert.deepEqual([res.status, res.body], [400, { error: 'commit_message is missing' }])
      res = await post({ commit_message: 'x', actions: [] })
      assert.deepEqual([res.status, res.body], [400, { error: 'branch is missing' }])
      res = await post({ branch: 'master', commit_message: 'x', actions: [{ action: 'rename', file_path: 'a' }] })
      assert.deepEqual([res.status, res.body], [400, { error: 'actions[0][action] is invalid' }])
      res = await post({ branch: 'master', commit_message: 'x', actions: [{ action: 'create' }] })
      assert.deepEqual([res.status, res.body], [400, { error: 'actions[0][file_path] is missing' }])
      assert.equal((await t.ctx.repositories.open(project.id).resolveCommit('master')), sha.c3)
    })
  })

  describe('who may call them', () => {
    let m: Matrix
    let mBase: string
    let tipCommit: string
    let topicCommit: string

    before(async () => {
      m = await makeMatrix(t, 'private')
      mBase = `/projects/${m.project.id}/repository/commits`
      // A default branch set without protection (commitFiles bypasses the first-push bookkeeping).
      await t.ctx.db.updateTable('projects').set({ default_branch: 'master' }).where('id', '=', m.project.id).execute()
      tipCommit = await commitFiles(t, m.project.id, { 'README.md': 'one\n' }, { message: 'Root' })
      const repo = t.ctx.repositories.open(m.project.id)
      assert.ok(await repo.compareAndSwapRef('refs/heads/topic', tipCommit, NULL_OID))
      topicCommit = await commitFiles(t, m.project.id, { 'topic.txt': 't\n' }, { branch: 'topic', message: 'Topic' })
    })

    it('reads: 404 for those who cannot see a private project, 403 for its Guests', async () => {
      const reads = [
        `${mBase}`, `${mBase}/${tipCommit}`, `${mBase}/${tipCommit}/refs`, `${mBase}/${tipCommit}/diff`, `${mBase}/${tipCommit}/comments`,
      ]
      for (const path of reads) {
        await expectStatuses(m, (token) => t.api('GET', path, { token }), {
          anonymous: 404, nonMember: 404, external: 404, guest: 403, reporter: 200, developer: 200, admin: 200, blocked: 403,
        })
      }
      const res = await t.api('GET', mBase, { token: m.tokens.nonMember })
      assert.deepEqual(res.body, { message: '404 Project Not Found' })
    })

    it('reads: anyone signed in on an internal project, but external users', async () => {
      const internal = await makeMatrix(t, 'internal')
      await commitFiles(t, internal.project.id, { 'README.md': 'x\n' })
      await expectStatuses(internal, (token) => t.api('GET', `/projects/${internal.project.id}/repository/commits`, { token }), {
        anonymous: 404, nonMember: 200, guest: 200, external: 404,
      })
    })

    it('comments: signed-in callers who may read the code', async () => {
      await expectStatuses(m, (token) => t.api('POST', `${mBase}/${tipCommit}/comments`, { token, body: { note: 'hi' } }), {
        anonymous: 401, nonMember: 404, guest: 403, reporter: 201, developer: 201, admin: 201,
      })
    })

    it('cherry-pick, revert and commits: Developers and up; anonymous 401', async () => {
      await expectStatuses(m, (token) => t.api('POST', `${mBase}/${topicCommit}/cherry_pick`, { token, body: { branch: 'master' } }), {
        anonymous: 401, nonMember: 404, guest: 403, reporter: 403,
      })
      await expectStatuses(m, (token) => t.api('POST', `${mBase}/${topicCommit}/revert`, { token, body: { branch: 'topic' } }), {
        anonymous: 401, nonMember: 404, guest: 403, reporter: 403,
      })
      const create = (token: string | null) => t.api('POST', mBase, {
        token, body: { branch: 'master', commit_message: 'm', actions: [{ action: 'create', file_path: `f-${Math.random()}.txt`, content: 'x' }] },
      })
      await expectStatuses(m, create, { anonymous: 401, nonMember: 404, guest: 403, reporter: 403, developer: 201, maintainer: 201 })
      const picked = await t.api('POST', `${mBase}/${topicCommit}/cherry_pick`, { token: m.tokens.developer, body: { branch: 'master' } })
      assert.equal(picked.status, 201, picked.text)
      const reverted = await t.api('POST', `${mBase}/${topicCommit}/revert`, { token: m.tokens.developer, body: { branch: 'topic' } })
      assert.equal(reverted.status, 201, reverted.text)
      const forbidden = await t.api('POST', `${mBase}/${topicCommit}/cherry_pick`, { token: m.tokens.reporter, body: { branch: 'master' } })
      assert.deepEqual(forbidden.body, { message: '403 Forbidden' })
    })

    it('a protected branch refuses Developers (403) and takes Maintainers', async () => {
      const protect = await t.api('POST', `/projects/${m.project.id}/protected_branches`, {
        token: m.tokens.owner, body: { name: 'master', push_access_level: 40, merge_access_level: 40 },
      })
      assert.equal(protect.status, 201, protect.text)
      const repo = t.ctx.repositories.open(m.project.id)
      const before = await repo.resolveCommit('master')
      const refused = { status: 403, body: { message: '403 Forbidden - You are not allowed to push into this branch' } }
      let res = await t.api('POST', `${mBase}/${tipCommit}/revert`, { token: m.tokens.developer, body: { branch: 'master' } })
      assert.deepEqual({ status: res.status, body: res.body }, refused)
      res = await t.api('POST', mBase, {
        token: m.tokens.developer, body: { branch: 'master', commit_message: 'm', actions: [{ action: 'create', file_path: 'p.txt', content: 'x' }] },
      })
      assert.deepEqual({ status: res.status, body: res.body }, refused)
      assert.equal(await repo.resolveCommit('master'), before)
      res = await t.api('POST', mBase, {
        token: m.tokens.maintainer, body: { branch: 'master', commit_message: 'm', actions: [{ action: 'create', file_path: 'p.txt', content: 'x' }] },
      })
      assert.equal(res.status, 201, res.text)
    })
  })
})
