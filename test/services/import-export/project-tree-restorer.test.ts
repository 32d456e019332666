// Restoring project.json of the original's format 0.2.4 (project-tree-restorer.ts): the hand-built
// fixture (every relation kind, a note by an unknown author, EE-only and unknown keys, a fork merge
// request) restored as an administrator and as a normal user and read back through the API field
// by field; a tree that breaks midway leaves no rows; a generated tree of thousands of issues
// crosses the batch boundaries and comes back whole.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildTestApp, testDatabaseServer, type TestApp } from '../../helpers/app.js'
import { makeGroup, makeProject, makeUser, type TestUser } from '../../helpers/factories.js'
import { commitFiles } from '../../helpers/git.js'
import { discardRestoredTree, restoreProjectTree } from '../../../src/services/import-export/project-tree-restorer.js'
import type { ProjectRow } from '../../../src/db/schema.js'
import type { ValueMode } from '../../../src/services/import-export/restore-json-split.js'
import { readTree } from '../../helpers/project-json-reference.js'
import { readTopLevelValue, splitTree } from '../../../src/services/import-export/restore-json-split.js'

const FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/import-export/project.json')

describe(`project tree restorer (${testDatabaseServer() === null ? 'sqlite' : 'postgres'})`, () => {
  let t: TestApp
  let alice: TestUser
  let bob: TestUser
  let dave: TestUser
  let tmp: string

  before(async () => {
    t = await buildTestApp()
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'ingot-tree-'))
    // alice matches the archive's user 22 by email, bob its user 33 by username; 44 matches nobody.
    alice = await makeUser(t, { username: 'tree-alice', email: 'tree-alice@example.com', name: 'Alice Here' })
    bob = await makeUser(t, { username: 'tree-bob', email: 'bob-here@example.com', name: 'Bob Here' })
    dave = await makeUser(t, { username: 'tree-dave', email: 'dave@example.com' })
  })
  after(async () => {
    await fs.rm(tmp, { recursive: true, force: true })
    await t.close()
  })

  const get = async (url: string, token?: string) => {
    const res = await t.api('GET', url, token === undefined ? {} : { token })
    assert.equal(res.status, 200, `${url}: ${res.text}`)
    return res.body
  }

  describe('as an administrator', () => {
    let project: ProjectRow
    const root = () => t.root.user.id

    before(async () => {
      project = await makeProject(t, null, { visibility: 'private' })
      await restoreProjectTree(t.ctx, {
        projectId: project.id, importerId: t.root.user.id, treePath: FIXTURE, overrideParams: { description: 'Overridden description' },
      })
    })

    it('applies the archive attributes, project_feature and then override_params', async () => {
      const body = await get(`/projects/${project.id}`)
      assert.equal(body.description, 'Overridden description')
      assert.equal(body.visibility, 'public')
      assert.equal(body.merge_method, 'rebase_merge')
      assert.equal(body.only_allow_merge_if_pipeline_succeeds, true)
      assert.equal(body.only_allow_merge_if_all_discussions_are_resolved, true)
      assert.equal(body.request_access_enabled, true)
      assert.equal(body.shared_runners_enabled, false)
      assert.equal(body.ci_config_path, 'ci/config.yml')
      assert.equal(body.issues_enabled, true)
      assert.equal(body.wiki_enabled, false)
      assert.equal(body.jobs_enabled, true)
      assert.equal(body.open_issues_count, 2)
      const row = await t.ctx.db.selectFrom('projects').selectAll().where('id', '=', project.id).executeTakeFirstOrThrow()
      assert.equal(row.build_timeout, 7200)
      assert.notEqual(row.runners_token, 'exported-runners-token-must-not-survive')
      assert.equal(row.path, project.path)
    })

    it('restores issues with their iids, authors, assignees, labels, milestones, time and awards', async () => {
      const issues = await get(`/projects/${project.id}/issues?sort=asc&order_by=created_at`)
      assert.deepEqual(issues.map((i: { iid: number }) => i.iid), [10, 12, 3])
      const [first, closed, third] = issues
      assert.equal(first.title, 'Voluptatem')
      assert.equal(first.description, 'Aliquam enim illo et possimus.')
      assert.equal(first.author.id, alice.user.id)
      assert.deepEqual(first.assignees.map((a: { id: number }) => a.id).sort(), [alice.user.id, bob.user.id].sort())
      assert.deepEqual([...first.labels].sort(), ['only-on-issue', 'test2'])
      assert.equal(first.milestone.title, 'test milestone')
      assert.equal(first.milestone.iid, 1)
      assert.equal(first.due_date, '2016-07-01')
      assert.equal(first.created_at, '2016-06-14T15:02:08.340Z')
      assert.equal(first.user_notes_count, 2)
      assert.equal(first.upvotes, 1)
      assert.deepEqual([first.time_stats.time_estimate, first.time_stats.total_time_spent], [3600, 2400])
      assert.equal(closed.state, 'closed')
      assert.equal(closed.confidential, true)
      assert.equal(closed.discussion_locked, true)
      assert.equal(closed.closed_at, '2016-06-16T15:02:47.967Z')
      assert.equal(closed.closed_by.id, bob.user.id)
      // The unknown user 44 falls back to the importer; a nested milestone unknown so far is made.
      assert.equal(third.author.id, root())
      assert.deepEqual(third.assignees.map((a: { id: number }) => a.id), [root()])
      assert.equal(third.milestone.title, 'made by an issue')
      assert.deepEqual(third.labels, ['bug'])
    })

    it('keeps mapped authors and marks the unmapped one as 11.5 does', async () => {
      const notes = await get(`/projects/${project.id}/issues/10/notes?sort=asc`)
      assert.equal(notes.length, 3)
      const byBody = (start: string) => notes.find((n: { body: string }) => n.body.startsWith(start))
      const mapped = byBody('Quo reprehenderit')
      assert.equal(mapped.body, 'Quo reprehenderit aliquam qui dicta impedit cupiditate eligendi.')
      assert.equal(mapped.author.id, alice.user.id)
      const unknown = byBody('Ut enim')
      assert.equal(unknown.body, 'Ut enim ad minim veniam by someone unknown.\n\n *By Carol Unknown on 2016-06-14T15:02:48 (imported from GitLab project)*')
      assert.equal(unknown.author.id, root())
      const system = byBody('changed milestone')
      assert.equal(system.system, true)
      assert.equal(system.author.id, bob.user.id)
    })

    it('maps members by email or username with their levels, the importer Maintainer', async () => {
      const members = await get(`/projects/${project.id}/members`)
      const levels = Object.fromEntries(members.map((m: { username: string; access_level: number }) => [m.username, m.access_level]))
      assert.equal(levels['tree-alice'], 40)
      assert.equal(levels['tree-bob'], 30)
      assert.equal(levels.root, 40)
      assert.equal(Object.keys(levels).length, 3)
    })

    it('restores merge requests: fork source to this project, metrics, labels, milestone, diff notes', async () => {
      const mrs = await get(`/projects/${project.id}/merge_requests?sort=asc&order_by=created_at`)
      assert.deepEqual(mrs.map((m: { iid: number }) => m.iid), [9, 4])
      const [fork, merged] = mrs
      assert.equal(fork.source_project_id, project.id)
      assert.equal(fork.target_project_id, project.id)
      assert.equal(fork.source_branch, 'feature_conflict')
      assert.equal(fork.target_branch, 'feature')
      assert.equal(fork.author.id, alice.user.id)
      assert.equal(fork.assignee.id, bob.user.id)
      assert.deepEqual(fork.labels, ['bug'])
      assert.equal(fork.milestone.title, 'v2.0')
      assert.equal(fork.merge_when_pipeline_succeeds, false)
      assert.equal(fork.sha, '0a1b2c3d4e5f60718293a4b5c6d7e8f901234567')
      assert.equal(fork.user_notes_count, 1)
      assert.equal(merged.state, 'merged')
      assert.equal(merged.merged_by.id, alice.user.id)
      assert.equal(merged.merged_at, '2016-06-16T15:02:56.815Z')
      assert.equal(merged.merge_commit_sha, '2222222222222222222222222222222222222222')
      const notes = await get(`/projects/${project.id}/merge_requests/9/notes`)
      assert.equal(notes[0].type, 'DiffNote')
      assert.equal(notes[0].author.id, bob.user.id)
    })

    it('continues every number after the highest restored', async () => {
      const issue = await t.api('POST', `/projects/${project.id}/issues`, { body: { title: 'after the import' } })
      assert.equal(issue.status, 201, issue.text)
      assert.equal(issue.body.iid, 13)
      const milestone = await t.api('POST', `/projects/${project.id}/milestones`, { body: { title: 'after the import' } })
      assert.equal(milestone.status, 201, milestone.text)
      assert.equal(milestone.body.iid, 8)
      const sequences = await t.ctx.db.selectFrom('internal_ids').select(['usage', 'last_value'])
        .where('owner_type', '=', 'project').where('owner_id', '=', project.id).execute()
      const last = Object.fromEntries(sequences.map((s) => [s.usage, Number(s.last_value)]))
      assert.equal(last.merge_requests, 9)
      assert.equal(last.ci_pipelines, 5)
      assert.equal((await get(`/projects/${project.id}`)).open_issues_count, 3)
    })

    it('restores labels with priorities, milestones, snippets and releases', async () => {
      const labels = await get(`/projects/${project.id}/labels`)
      const bug = labels.find((l: { name: string }) => l.name === 'bug')
      assert.equal(bug.color, '#d9534f')
      assert.equal(bug.priority, 1)
      assert.equal(labels.length, 3)
      const milestones = await get(`/projects/${project.id}/milestones?per_page=100`)
      assert.deepEqual(milestones.map((m: { title: string }) => m.title).filter((s: string) => s !== 'after the import').sort(), ['made by an issue', 'test milestone', 'v2.0'])
      assert.equal(milestones.find((m: { title: string }) => m.title === 'v2.0').state, 'closed')
      const snippets = await get(`/projects/${project.id}/snippets`)
      assert.equal(snippets.length, 1)
      assert.equal(snippets[0].file_name, 'snippet.rb')
      assert.equal(snippets[0].author.id, alice.user.id)
      const snippetRow = await t.ctx.db.selectFrom('snippets').selectAll().where('project_id', '=', project.id).executeTakeFirstOrThrow()
      assert.equal(snippetRow.content, 'x = 1')
      const awards = await t.ctx.db.selectFrom('award_emoji').selectAll().where('awardable_type', '=', 'Snippet').where('awardable_id', '=', snippetRow.id).execute()
      assert.deepEqual(awards.map((a) => [a.name, a.user_id]), [['thumbsup', bob.user.id]])
      const release = await t.ctx.db.selectFrom('releases').selectAll().where('project_id', '=', project.id).executeTakeFirstOrThrow()
      assert.deepEqual([release.tag, release.description, release.author_id], ['v1.0.0', 'Release notes', alice.user.id])
    })

    it('restores pipelines as finished records, unnumbered last, and their jobs', async () => {
      const pipelines = await get(`/projects/${project.id}/pipelines?sort=asc`)
      assert.equal(pipelines.length, 3)
      const rows = await t.ctx.db.selectFrom('ci_pipelines').selectAll().where('project_id', '=', project.id).orderBy('iid').execute()
      assert.deepEqual(rows.map((p) => [p.iid, p.status, p.source]), [[2, 'failed', 'schedule'], [4, 'success', 'push'], [5, 'canceled', 'web']])
      const success = rows.find((p) => p.iid === 4)!
      assert.equal(success.user_id, alice.user.id)
      const jobs = await get(`/projects/${project.id}/pipelines/${success.id}/jobs`)
      const byName = Object.fromEntries(jobs.map((j: { name: string; status: string }) => [j.name, j.status]))
      assert.equal(byName.rspec, 'success')
      assert.equal(byName.deploy, 'canceled')
      const builds = await t.ctx.db.selectFrom('ci_builds').selectAll().where('pipeline_id', '=', success.id).execute()
      assert.ok(builds.every((b) => b.token_digest === null && b.runner_id === null))
      const external = builds.find((b) => b.name === 'external-check')!
      assert.deepEqual([external.kind, external.target_url], ['external', 'https://ci.example.com/1'])
      assert.deepEqual(JSON.parse(builds.find((b) => b.name === 'rspec')!.options).script, ['bundle exec rspec'])
    })

    it('restores triggers, schedules, integrations and hooks without the exported secrets', async () => {
      const triggers = await get(`/projects/${project.id}/triggers`)
      assert.equal(triggers.length, 1)
      assert.equal(triggers[0].description, 'deploy trigger')
      assert.equal(triggers[0].owner.id, bob.user.id)
      assert.notEqual(triggers[0].token, 'exported-trigger-token-must-not-survive')
      const schedules = await get(`/projects/${project.id}/pipeline_schedules`)
      assert.deepEqual(schedules.map((s: { cron: string; active: boolean; owner: { id: number } }) => [s.cron, s.active, s.owner.id]), [['0 4 * * 0', false, alice.user.id]])
      const hooks = await get(`/projects/${project.id}/hooks`)
      assert.equal(hooks.length, 1)
      assert.equal(hooks[0].url, 'http://hooks.example.com/receive')
      assert.equal(hooks[0].push_events_branch_filter, 'master')
      assert.equal(hooks[0].tag_push_events, true)
      const hookRow = await t.ctx.db.selectFrom('web_hooks').selectAll().where('project_id', '=', project.id).executeTakeFirstOrThrow()
      assert.equal(hookRow.encrypted_token, null)
      const emails = await get(`/projects/${project.id}/services/emails-on-push`)
      assert.equal(emails.active, true)
      assert.equal(emails.properties.recipients, 'team@example.com')
      const integrations = await t.ctx.db.selectFrom('integrations').selectAll().where('project_id', '=', project.id).execute()
      assert.equal(integrations.length, 2)
      const tracker = integrations.find((i) => i.kind === 'issue-tracker-workflow')!
      assert.equal(tracker.active, 0)
      const settings = JSON.parse(t.ctx.secrets.open('integrations.secrets', tracker.encrypted_properties!))
      assert.equal(settings.project_key, 'PROJ')
      assert.equal(settings.password, undefined)
      for (const table of ['web_hooks', 'ci_triggers', 'integrations', 'ci_builds', 'projects'] as const) {
        const dump = JSON.stringify(await t.ctx.db.selectFrom(table).selectAll().execute())
        assert.doesNotMatch(dump, /must-not-survive|exported-job-token|exported-jira-password/, table)
      }
    })

    it('restores protected branches and tags, badges and custom attributes; EE-only keys are ignored', async () => {
      const branches = await get(`/projects/${project.id}/protected_branches`)
      assert.equal(branches[0].name, 'master')
      assert.equal(branches[0].push_access_levels[0].access_level, 40)
      assert.equal(branches[0].merge_access_levels[0].access_level, 30)
      const tags = await get(`/projects/${project.id}/protected_tags`)
      assert.equal(tags[0].name, 'v*')
      assert.equal(tags[0].create_access_levels[0].access_level, 40)
      const badges = await get(`/projects/${project.id}/badges`)
      assert.equal(badges[0].link_url, 'http://www.example.com/%{project_path}')
      const attributes = await get(`/projects/${project.id}/custom_attributes`)
      assert.deepEqual(attributes.map((a: { key: string; value: string }) => `${a.key}=${a.value}`).sort(), ['bar=bar', 'foo=foo'])
      const events = await t.ctx.db.selectFrom('events').select(['action', 'target_type']).where('project_id', '=', project.id).execute()
      assert.ok(events.some((e) => e.action === 'created' && e.target_type === 'Issue'))
      assert.ok(events.some((e) => e.action === 'commented' && e.target_type === 'Note'))
      assert.ok(events.some((e) => e.action === 'created' && e.target_type === 'Milestone'))
    })

    it('deletes what it restored on demand, so a retry starts clean', async () => {
      const other = await makeProject(t, null, { visibility: 'private' })
      await restoreProjectTree(t.ctx, { projectId: other.id, importerId: t.root.user.id, treePath: FIXTURE, overrideParams: {} })
      await discardRestoredTree(t.ctx, other.id)
      assert.equal((await get(`/projects/${other.id}/issues`)).length, 0)
      assert.equal((await get(`/projects/${other.id}/labels`)).length, 0)
      await restoreProjectTree(t.ctx, { projectId: other.id, importerId: t.root.user.id, treePath: FIXTURE, overrideParams: {} })
      assert.equal((await get(`/projects/${other.id}/issues`)).length, 3)
      assert.equal((await get(`/projects/${other.id}`)).open_issues_count, 2)
    })
  })

  describe('as a normal user', () => {
    let project: ProjectRow

    before(async () => {
      const group = await makeGroup(t, { visibility: 'internal' })
      project = await makeProject(t, null, { visibility: 'private', namespace: group })
      await restoreProjectTree(t.ctx, { projectId: project.id, importerId: dave.user.id, treePath: FIXTURE, overrideParams: {} })
    })

    it('caps the archive visibility at the group', async () => {
      assert.equal((await get(`/projects/${project.id}`)).visibility, 'internal')
    })

    it('attributes everything to the importer and marks every note with its author', async () => {
      const issues = await get(`/projects/${project.id}/issues`)
      assert.equal(issues.length, 3)
      for (const issue of issues) assert.equal(issue.author.id, dave.user.id)
      const first = issues.find((i: { iid: number }) => i.iid === 10)
      assert.deepEqual(first.assignees.map((a: { id: number }) => a.id), [dave.user.id])
      const notes = await get(`/projects/${project.id}/issues/10/notes?sort=asc`)
      const mapped = notes.find((n: { body: string }) => n.body.startsWith('Quo reprehenderit'))
      assert.equal(mapped.body, 'Quo reprehenderit aliquam qui dicta impedit cupiditate eligendi.\n\n *By Alice Old on 2016-06-14T15:02:47 (imported from GitLab project)*')
      assert.equal(mapped.author.id, dave.user.id)
      const members = await get(`/projects/${project.id}/members`)
      assert.deepEqual(members.map((m: { username: string; access_level: number }) => [m.username, m.access_level]), [['tree-dave', 40]])
    })

    it('lets override_params win over the archive', async () => {
      const other = await makeProject(t, null, { visibility: 'private' })
      await restoreProjectTree(t.ctx, {
        projectId: other.id, importerId: dave.user.id, treePath: FIXTURE,
        overrideParams: { visibility: 'internal', wiki_enabled: 'true', merge_method: 'ff', description: 'mine' },
      })
      const body = await get(`/projects/${other.id}`)
      assert.deepEqual([body.visibility, body.wiki_enabled, body.merge_method, body.description], ['internal', true, 'ff', 'mine'])
    })
  })

  it('reads project.json the same with the fast splitter as with stream-json, whatever the chunk boundaries', async () => {
    const modeOf = (key: string): ValueMode => ['issues', 'labels', 'merge_requests', 'pipelines', 'list'].includes(key) ? 'items'
      : key.startsWith('skip') ? 'skip' : 'whole'
    const all = async (events: AsyncGenerator<unknown>) => { const out = []; for await (const e of events) out.push(e); return out }
    const tricky = path.join(tmp, 'tricky.json')
    await fs.writeFile(tricky, JSON.stringify({
      'k\\"ey': 'v\\\\', list: ['\\', '"', 1.5e3, -2, true, null, { x: '\\\\\\"]}' }, [[]], {}], skip1: [1, '\\', { '}': ']' }],
      'é': 'ü\u2028😀', n: 0, issues: [], o: { '[': '{' },
    }, null, 2))
    // One item per line, as Ingot writes them; then lines the fast path must give up on to the scan:
    // two items on a line, an item over two lines, an indented one.
    const lines = path.join(tmp, 'lines.json')
    await fs.writeFile(lines, '{"labels":[\n{"a":"x,\\n}"},\n{"b":[1,{"c":"]"}]}\n],"issues":[\n{"d":1}\n],"list":[\n{"e":2},{"f":3},\n{"g":\n4}\n, {\n  "h": 5\n}\n],"n":1}')
    for (const file of [FIXTURE, tricky, lines]) {
      const expected = await all(readTree(file, modeOf))
      for (const chunkBytes of [1, 2, 3, 7, 64, 4096]) assert.deepEqual(await all(splitTree(file, modeOf, undefined, chunkBytes)), expected, `${file} ${chunkBytes}`)
    }
    const members = await readTopLevelValue(FIXTURE, 'project_members') as { user: { username: string } }[]
    assert.deepEqual(members.map((m) => m.user.username), ['alice-on-the-old-instance', 'tree-bob', 'carol-unknown'])
    for (const bad of ['{"issues":[\n{"x":1}\n{"y":2}\n]}', '{"issues":[\n{"x":1},\n]}', '{"issues":[\n{"x":1\n]}', '{"a":[1,2', '{"list":[1,,2]}', '{"a" 1}', '{"b":tru}', '{"b":1}x', '[1]', '{"issues":[{"x":1}{"y":2}]}', '{"b":"x}', '{"b":1,}']) {
      await fs.writeFile(tricky, bad)
      await assert.rejects(all(splitTree(tricky, modeOf, undefined, 3)), /Incorrect JSON format/, bad)
    }
  })

  it("creates a fork merge request's source branch (and a missing target) from its commits in the restored repository", async () => {
    const project = await makeProject(t, null, { visibility: 'private' })
    const base = await commitFiles(t, project.id, { 'README.md': 'base\n' })
    const head = await commitFiles(t, project.id, { 'x.txt': 'x\n' }, { branch: 'scratch' })
    const text = (await fs.readFile(FIXTURE, 'utf8'))
      .replaceAll('0a1b2c3d4e5f60718293a4b5c6d7e8f901234567', head).replaceAll('ae73cb07c9eeaf35924a10f713b364d32b2dd34f', base)
    const tree = path.join(tmp, 'fork.json')
    await fs.writeFile(tree, text)
    const result = await restoreProjectTree(t.ctx, { projectId: project.id, importerId: t.root.user.id, treePath: tree, overrideParams: {} })
    assert.equal(result.forkBranchesCreated, 2)
    const repo = t.ctx.repositories.open(project.id)
    assert.equal(await repo.resolveCommit('refs/heads/feature_conflict'), head)
    assert.equal(await repo.resolveCommit('refs/heads/feature'), base)
    const mr = await get(`/projects/${project.id}/merge_requests/9`)
    assert.deepEqual([mr.source_project_id, mr.source_branch, mr.sha], [project.id, 'feature_conflict', head])
  })

  it('fails on a tree that breaks midway and leaves no rows behind', async () => {
    const text = await fs.readFile(FIXTURE, 'utf8')
    // Cut inside the merge requests, after the labels, milestones and more issues than one read
    // chunk and one SQLite transaction hold (so that batches of them are committed before the break is read).
    const filler = Array.from({ length: 4500 }, (_, i) => JSON.stringify({
      iid: 100 + i, title: `filler ${i}`, author_id: 22, state: 'opened', description: 'x'.repeat(200),
      notes: [{ note: 'a note', author_id: 22, author: { name: 'A' } }],
    })).join(',')
    const cut = text.indexOf('"title": "Merged one"')
    const broken = path.join(tmp, 'broken.json')
    await fs.writeFile(broken, `${text.slice(0, cut).replace('"issues": [', `"issues": [${filler},`)} "title": ]] }`)
    const project = await makeProject(t, null, { visibility: 'private' })
    let issueInserts = 0
    const db = t.ctx.db.withPlugin({
      transformQuery: (args) => {
        const node = args.node as { kind: string; into?: { table: { identifier: { name: string } } } }
        if (node.kind === 'InsertQueryNode' && node.into?.table.identifier.name === 'issues') issueInserts += 1
        return args.node
      },
      transformResult: async (args) => args.result,
    })
    await assert.rejects(
      // A normal importer: no members to read first, so labels, milestones and issues are written before the break.
      restoreProjectTree(Object.create(t.ctx, { db: { value: db } }), { projectId: project.id, importerId: dave.user.id, treePath: broken, overrideParams: {} }),
      /Incorrect JSON format/,
    )
    assert.ok(issueInserts >= 2, `issues were written before the break (${issueInserts} inserts)`)
    const count = async (table: 'issues' | 'labels' | 'milestones' | 'notes' | 'merge_requests' | 'snippets' | 'events') => {
      const column = table === 'merge_requests' ? 'target_project_id' : 'project_id'
      const row = await t.ctx.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).where(column, '=', project.id).executeTakeFirstOrThrow()
      return Number(row.n)
    }
    for (const table of ['issues', 'labels', 'milestones', 'notes', 'merge_requests', 'snippets', 'events'] as const) {
      assert.equal(await count(table), 0, table)
    }
    assert.equal((await get(`/projects/${project.id}`)).open_issues_count, 0)
    const members = await t.ctx.db.selectFrom('members').select('user_id').where('source_type', '=', 'project').where('source_id', '=', project.id).execute()
    assert.deepEqual(members.map((m) => m.user_id), members.length === 0 ? [] : [t.root.user.id])
  })

  it('restores a generated tree of thousands of issues whole, across batch boundaries', async () => {
    const issues = 3_001
    const file = path.join(tmp, 'generated.json')
    const out = await fs.open(file, 'w')
    await out.write('{"description":"generated","visibility_level":0,"labels":[{"id":1,"title":"gen","color":"#000000"}],"issues":[')
    let chunk = ''
    for (let i = 1; i <= issues; i++) {
      const notes = [0, 1, 2].map((j) => ({
        id: i * 3 + j, note: `note ${j} of ${i}`, noteable_type: 'Issue', author_id: 22, created_at: '2020-01-01T00:00:00.000Z',
        updated_at: '2020-01-01T00:00:00.000Z', system: false, type: null, author: { name: 'Gen' }, events: [],
      }))
      chunk += `${i > 1 ? ',' : ''}${JSON.stringify({
        id: i, iid: i, title: `issue ${i}`, author_id: 22, state: i % 3 === 0 ? 'closed' : 'opened', created_at: '2020-01-01T00:00:00.000Z',
        updated_at: '2020-01-01T00:00:00.000Z', notes, label_links: [{ label_id: 1, label: { id: 1, title: 'gen', color: '#000000' } }],
        issue_assignees: [{ user_id: 22 }], events: [{ action: 1, author_id: 22, created_at: '2020-01-01T00:00:00.000Z' }],
      })}`
      if (chunk.length > 1 << 16) { await out.write(chunk); chunk = '' }
    }
    await out.write(`${chunk}],"project_members":[{"access_level":30,"user":{"id":22,"email":"tree-alice@example.com","username":"x"}}]}`)
    await out.close()
    const project = await makeProject(t, null, { visibility: 'private' })
    const started = process.hrtime.bigint()
    const result = await restoreProjectTree(t.ctx, { projectId: project.id, importerId: t.root.user.id, treePath: file, overrideParams: {} })
    const seconds = Number(process.hrtime.bigint() - started) / 1e9
    console.log(`# restored ${issues} issues with ${issues * 3} notes in ${seconds.toFixed(2)} s: ${Math.round(issues / seconds)} issues/s`)
    assert.equal(result.counts.issues, issues)
    const count = await t.api('GET', `/projects/${project.id}/issues`, { query: { per_page: 1 } })
    assert.equal(count.headers['x-total'], String(issues))
    const notes = await t.ctx.db.selectFrom('notes').select((eb) => eb.fn.countAll<number>().as('n')).where('project_id', '=', project.id).executeTakeFirstOrThrow()
    assert.equal(Number(notes.n), issues * 3)
    const links = await t.ctx.db.selectFrom('label_links').innerJoin('labels', 'labels.id', 'label_links.label_id')
      .select((eb) => eb.fn.countAll<number>().as('n')).where('labels.project_id', '=', project.id).executeTakeFirstOrThrow()
    assert.equal(Number(links.n), issues)
    const last = await get(`/projects/${project.id}/issues/${issues}`)
    assert.equal(last.author.id, alice.user.id)
    assert.equal(last.user_notes_count, 3)
    assert.equal((await get(`/projects/${project.id}`)).open_issues_count, issues - Math.floor(issues / 3))
    const created = await t.api('POST', `/projects/${project.id}/issues`, { body: { title: 'next' } })
    assert.equal(created.body.iid, issues + 1)
  })
})
