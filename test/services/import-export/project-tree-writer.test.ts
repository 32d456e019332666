// project.json as the export writes it (the original's format 0.2.4): a project with data of every
// kind, made through Ingot's own API and services, written to a buffer through a stream that
// pushes back, parsed, and checked against the original's layout field by field; an empty
// project's empty relations; and a few hundred issues with notes across batch boundaries.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { Writable } from 'node:stream'
import { buildTestApp, countQueries, type ApiResponse, type TestApp } from '../../helpers/app.js'
import { makeGroup, makeMember, makeProject, makeUser, type TestUser } from '../../helpers/factories.js'
import { commitFiles } from '../../helpers/git.js'
import { makeMergeRequest } from '../../helpers/merge-requests.js'
import type { NamespaceRow, ProjectRow } from '../../../src/db/schema.js'
import { writeProjectTree } from '../../../src/services/import-export/project-tree-writer.js'
import { BATCH_SIZE } from '../../../src/services/import-export/export-tree-json.js'

/** Collects what is written, taking it slowly (a tiny buffer and an asynchronous write), so the writer must wait for drains. */
class SlowSink extends Writable {
  readonly chunks: Buffer[] = []
  drains = 0
  constructor() {
    super({ highWaterMark: 64 })
    this.on('drain', () => { this.drains += 1 })
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.chunks.push(chunk)
    setImmediate(callback)
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8')
  }
}

type Json = Record<string, any>

const ok = (res: ApiResponse, status = 201) => {
  assert.equal(res.status, status, `${res.status} ${res.text}`)
  return res.body
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/** The project's attributes the original's export writes (the real fixture's top-level keys Ingot has). */
const ATTRIBUTE_KEYS = [
  'description', 'visibility_level', 'archived', 'shared_runners_enabled', 'build_coverage_regex', 'build_allow_git_fetch',
  'build_timeout', 'pending_delete', 'public_builds', 'last_repository_check_failed', 'container_registry_enabled',
  'only_allow_merge_if_pipeline_succeeds', 'has_external_issue_tracker', 'request_access_enabled', 'has_external_wiki',
  'only_allow_merge_if_all_discussions_are_resolved', 'printing_merge_request_link_enabled', 'auto_cancel_pending_pipelines',
  'ci_config_path', 'delete_error', 'merge_requests_rebase_enabled', 'merge_requests_ff_only_enabled',
  'resolve_outdated_diff_discussions', 'jobs_cache_index', 'pages_https_only',
]

const ARRAY_RELATIONS = [
  'labels', 'milestones', 'issues', 'snippets', 'releases', 'project_members', 'merge_requests', 'pipelines', 'triggers',
  'pipeline_schedules', 'services', 'hooks', 'protected_branches', 'protected_tags', 'custom_attributes', 'project_badges',
]

/** Attributes the original leaves out of the export (import_export.yml excluded_attributes.project). */
const EXCLUDED = [
  'name', 'path', 'namespace_id', 'creator_id', 'import_url', 'import_status', 'avatar', 'import_type', 'import_source',
  'import_error', 'mirror', 'runners_token', 'repository_storage', 'lfs_enabled', 'import_jid', 'created_at', 'updated_at',
  'id', 'star_count', 'last_activity_at', 'description_html', 'merge_method', 'public_jobs',
]

describe('project tree writer (project.json of format 0.2.4)', () => {
  let t: TestApp
  before(async () => { t = await buildTestApp() })
  after(async () => { await t.close() })

  async function exportTree(projectId: number, options: { description?: string } = {}): Promise<{ tree: Json; text: string; sink: SlowSink }> {
    const sink = new SlowSink()
    await writeProjectTree(t.ctx, projectId, sink, options)
    assert.equal(sink.writableEnded, false, 'the writer leaves the stream open')
    sink.end()
    await once(sink, 'finish')
    const text = sink.text()
    return { tree: JSON.parse(text) as Json, text, sink }
  }

  describe('an empty project', () => {
    it('writes its attributes, the empty relations, and the objects', async () => {
      const project = await makeProject(t, null, { description: 'Nothing here yet' })
      const { tree } = await exportTree(project.id)
      assert.deepEqual(Object.keys(tree), [
        ...ATTRIBUTE_KEYS, 'labels', 'milestones', 'issues', 'snippets', 'releases', 'project_members', 'merge_requests', 'pipelines',
        'triggers', 'pipeline_schedules', 'services', 'hooks', 'protected_branches', 'protected_tags', 'project_feature',
        'custom_attributes', 'project_badges', 'ci_cd_settings',
      ])
      for (const key of ARRAY_RELATIONS.filter((relation) => relation !== 'project_members')) assert.deepEqual(tree[key], [], key)
      // Its creator is its only member.
      assert.deepEqual(tree.project_members.map((member: Json) => [member.user.username, member.access_level]), [['root', 40]])
      assert.equal(tree.description, 'Nothing here yet')
      assert.equal(tree.visibility_level, 0)
      assert.deepEqual(tree.ci_cd_settings, { group_runners_enabled: true })
      assert.equal(typeof tree.project_feature, 'object')
      assert.equal('auto_devops' in tree, false)
    })

    it('replaces the description with the export request\'s', async () => {
      const project = await makeProject(t, null, { description: 'Own words' })
      assert.equal((await exportTree(project.id, { description: 'Exported words' })).tree.description, 'Exported words')
      assert.equal((await exportTree(project.id, { description: '' })).tree.description, '')
    })
  })

  describe('a project with data of every kind', () => {
    let group: NamespaceRow
    let project: ProjectRow
    let developer: TestUser
    let groupMember: TestUser
    let parentMember: TestUser
    let tree: Json
    let text: string
    let sink: SlowSink
    const ids: Record<string, number> = {}
    const shas: Record<string, string> = {}

    before(async () => {
      const parent = await makeGroup(t)
      group = await makeGroup(t, { parent })
      developer = await makeUser(t)
      groupMember = await makeUser(t)
      parentMember = await makeUser(t)
      project = await makeProject(t, null, { namespace: group, description: 'Everything' })
      const base = `/projects/${project.id}`
      await makeMember(t, { type: 'project', id: project.id }, developer, 30)
      await makeMember(t, { type: 'group', id: group.id }, groupMember, 20)
      await makeMember(t, { type: 'group', id: parent.id }, parentMember, 40)
      // A member of the project and of the group is written once, as the project's.
      await makeMember(t, { type: 'group', id: group.id }, developer, 50)

      shas.master = await commitFiles(t, project.id, { 'README.md': '# readme\nline two\n', '.gitlab-ci.yml': 'build:\n  stage: build\n  script: make\ntest:\n  stage: test\n  script: make test\n' })

      const label = ok(await t.api('POST', `${base}/labels`, { body: { name: 'bug', color: '#ff0000', description: 'Broken', priority: 2 } }))
      ids.label = label.id
      ok(await t.api('POST', `${base}/labels`, { body: { name: 'feature', color: '#00ff00' } }))
      const milestone = ok(await t.api('POST', `${base}/milestones`, { body: { title: 'v1', description: 'First', due_date: '2030-01-31' } }))
      ids.milestone = milestone.id

      const issue = ok(await t.api('POST', `${base}/issues`, {
        body: { title: 'First issue', description: 'Details', labels: 'bug', milestone_id: milestone.id, assignee_ids: [developer.user.id], confidential: true },
      }))
      ids.issue = issue.id
      const note = ok(await t.api('POST', `${base}/issues/${issue.iid}/notes`, { body: { body: 'A comment' } }))
      ids.issueNote = note.id
      ok(await t.api('POST', `${base}/issues/${issue.iid}/award_emoji`, { body: { name: 'heart' } }))
      ok(await t.api('POST', `${base}/issues/${issue.iid}/add_spent_time`, { body: { duration: '1h' } }), 201)
      ok(await t.api('PUT', `${base}/issues/${issue.iid}`, { body: { state_event: 'close' } }), 200)
      ok(await t.api('POST', `${base}/issues`, { body: { title: 'Second issue' } }))

      const mr = await makeMergeRequest(t, project, null, { title: 'Change things', labels: ['bug'], milestoneId: milestone.id })
      ids.mr = mr.id
      shas.mrHead = mr.sha!
      ok(await t.api('POST', `${base}/merge_requests/${mr.iid}/notes`, { body: { body: 'Looks good' } }))

      const snippet = ok(await t.api('POST', `${base}/snippets`, { body: { title: 'Snip', file_name: 'a.rb', code: 'puts 1', visibility: 'private' } }))
      ok(await t.api('POST', `${base}/snippets/${snippet.id}/notes`, { body: { body: 'Snippet note' } }))
      ok(await t.api('POST', `${base}/snippets/${snippet.id}/award_emoji`, { body: { name: 'tada' } }))

      ok(await t.api('POST', `${base}/repository/tags`, { body: { tag_name: 'v1.0', ref: 'master', release_description: 'First release' } }))
      ok(await t.api('POST', `${base}/repository/commits/${shas.master}/comments`, { body: { note: 'On a line', path: 'README.md', line: 2, line_type: 'new' } }))
      ok(await t.api('POST', `${base}/pipeline`, { query: { ref: 'master' } }))
      const merged = await makeMergeRequest(t, project, null, { title: 'Merged change' })
      shas.mergedHead = merged.sha!
      ok(await t.api('PUT', `${base}/merge_requests/${merged.iid}/merge`, { body: {} }), 200)
      shas.masterAfterMerge = (await t.ctx.repositories.open(project.id).resolveCommit('refs/heads/master'))!

      ok(await t.api('POST', `${base}/triggers`, { body: { description: 'deploy' } }))
      ok(await t.api('POST', `${base}/pipeline_schedules`, { body: { description: 'nightly', ref: 'master', cron: '0 1 * * *' } }))
      ok(await t.api('PUT', `${base}/services/issue-tracker-workflow`, {
        body: { url: 'https://203.0.113.10/tracker', project_key: 'PRJ', username: 'bot', password: 'tracker-password-secret' },
      }), 200)
      ok(await t.api('PUT', `${base}/services/external-wiki`, { body: { external_wiki_url: 'https://203.0.113.10/wiki' } }), 200)
      ok(await t.api('POST', `${base}/hooks`, { body: { url: 'https://203.0.113.10/hook', token: 'hook-token-secret', issues_events: true } }))
      ok(await t.api('POST', `${base}/protected_branches`, { body: { name: 'release/*', push_access_level: 0, merge_access_level: 40 } }))
      ok(await t.api('POST', `${base}/protected_tags`, { body: { name: 'v*', create_access_level: 40 } }))
      ok(await t.api('POST', `${base}/badges`, { body: { link_url: 'https://example.com/%{project_path}', image_url: 'https://example.com/badge.svg' } }))
      ok(await t.api('PUT', `${base}/custom_attributes/team`, { body: { value: 'core' } }), 200)

      ok(await t.api('PUT', base, {
        body: {
          merge_method: 'ff', ci_config_path: 'ci/pipeline.yml', public_jobs: false, request_access_enabled: true,
          only_allow_merge_if_pipeline_succeeds: true, only_allow_merge_if_all_discussions_are_resolved: true,
          resolve_outdated_diff_discussions: true, printing_merge_request_link_enabled: false, snippets_enabled: false,
        },
      }), 200)
      ;({ tree, text, sink } = await exportTree(project.id))
    })

    it('writes through the stream as it drains', () => {
      assert.ok(sink.drains > 0, 'the writer waited for the stream')
    })

    it('writes the attributes under the original\'s names and none it leaves out', () => {
      for (const key of ATTRIBUTE_KEYS) assert.ok(key in tree, key)
      for (const key of EXCLUDED) assert.equal(key in tree, false, key)
      assert.equal(tree.description, 'Everything')
      assert.equal(tree.public_builds, false)
      assert.equal(tree.merge_requests_ff_only_enabled, true)
      assert.equal(tree.merge_requests_rebase_enabled, false)
      assert.equal(tree.ci_config_path, 'ci/pipeline.yml')
      assert.equal(tree.request_access_enabled, true)
      assert.equal(tree.only_allow_merge_if_pipeline_succeeds, true)
      assert.equal(tree.only_allow_merge_if_all_discussions_are_resolved, true)
      assert.equal(tree.resolve_outdated_diff_discussions, true)
      assert.equal(tree.printing_merge_request_link_enabled, false)
      assert.equal(tree.has_external_issue_tracker, true)
      assert.equal(tree.has_external_wiki, true)
      assert.equal(tree.build_timeout, 3600)
      assert.equal(tree.shared_runners_enabled, true)
    })

    it('writes no token, password or sealed value', () => {
      for (const secret of ['hook-token-secret', 'tracker-password-secret', project.runners_token]) assert.equal(text.includes(secret), false, secret)
      assert.equal(/"(token|encrypted_[a-z_]*|token_digest|runners_token|invite_token|trace)"/.test(text), false)
    })

    it('labels with their type and priorities, milestones with their events', () => {
      const bug = tree.labels.find((label: Json) => label.title === 'bug')
      assert.deepEqual(Object.keys(bug).sort(), [
        'color', 'created_at', 'description', 'group_id', 'id', 'priorities', 'project_id', 'template', 'title', 'type', 'updated_at',
      ])
      assert.equal(bug.type, 'ProjectLabel')
      assert.equal(bug.color, '#ff0000')
      assert.equal(bug.priorities.length, 1)
      assert.equal(bug.priorities[0].priority, 2)
      assert.deepEqual(tree.labels.find((label: Json) => label.title === 'feature').priorities, [])
      assert.equal(tree.milestones.length, 1)
      const [milestone] = tree.milestones
      assert.equal(milestone.title, 'v1')
      assert.equal(milestone.due_date, '2030-01-31')
      assert.equal(milestone.state, 'active')
      assert.match(milestone.created_at, ISO)
      assert.deepEqual(milestone.events.map((event: Json) => [event.action, event.target_type]), [[1, 'Milestone']])
    })

    it('issues with events, notes, label links, milestone, assignees, time logs and award emoji', () => {
      assert.deepEqual(tree.issues.map((issue: Json) => issue.title), ['First issue', 'Second issue'])
      const [issue, second] = tree.issues
      assert.equal(issue.id, ids.issue)
      assert.equal(issue.iid, 1)
      assert.equal(issue.state, 'closed')
      assert.equal(issue.confidential, true)
      assert.equal(issue.description, 'Details')
      assert.match(issue.created_at, ISO)
      assert.match(issue.closed_at, ISO)
      assert.equal('milestone_id' in issue, false)
      assert.deepEqual(issue.events.map((event: Json) => event.action), [1, 3])
      for (const event of issue.events) {
        assert.deepEqual(Object.keys(event).sort(), ['action', 'author_id', 'created_at', 'id', 'project_id', 'target_id', 'target_type', 'updated_at'])
        assert.equal(event.target_type, 'Issue')
        assert.equal(event.target_id, ids.issue)
      }
      const comment = issue.notes.find((note: Json) => note.id === ids.issueNote)
      assert.equal(comment.note, 'A comment')
      assert.equal(comment.noteable_type, 'Issue')
      assert.equal(comment.noteable_id, ids.issue)
      assert.equal(comment.system, false)
      assert.deepEqual(comment.author, { name: t.root.user.name })
      assert.deepEqual(comment.events.map((event: Json) => [event.action, event.target_type]), [[6, 'Note']])
      assert.ok(issue.notes.some((note: Json) => note.system === true), 'system notes are written too')
      assert.equal(issue.label_links.length, 1)
      assert.equal(issue.label_links[0].target_type, 'Issue')
      assert.equal(issue.label_links[0].label.title, 'bug')
      assert.equal(issue.label_links[0].label.type, 'ProjectLabel')
      assert.equal(issue.label_links[0].label.priorities.length, 1)
      assert.equal(issue.milestone.title, 'v1')
      assert.ok(Array.isArray(issue.milestone.events))
      assert.deepEqual(issue.issue_assignees, [{ user_id: developer.user.id, issue_id: ids.issue }])
      assert.deepEqual(issue.timelogs.map((log: Json) => log.time_spent), [3600])
      assert.deepEqual(issue.resource_label_events, [])
      assert.deepEqual(issue.award_emoji.map((award: Json) => award.name), ['heart'])
      assert.equal('awardable_id' in issue.award_emoji[0], false)
      assert.equal('milestone' in second, false, 'no milestone: the key is left out')
      assert.deepEqual(second.timelogs, [])
    })

    it('snippets with award emoji and notes, releases', () => {
      assert.equal(tree.snippets.length, 1)
      const [snippet] = tree.snippets
      assert.equal(snippet.type, 'ProjectSnippet')
      assert.equal(snippet.content, 'puts 1')
      assert.equal(snippet.file_name, 'a.rb')
      assert.equal(snippet.visibility_level, 0)
      assert.deepEqual(snippet.award_emoji.map((award: Json) => award.name), ['tada'])
      assert.deepEqual(snippet.notes.map((note: Json) => [note.note, note.noteable_type, note.author.name]), [['Snippet note', 'Snippet', t.root.user.name]])
      assert.equal('events' in snippet.notes[0], false)
      assert.deepEqual(tree.releases.map((release: Json) => [release.tag, release.description]), [['v1.0', 'First release']])
    })

    it('project members with their users, then the groups\' members as the project\'s', () => {
      const members = tree.project_members as Json[]
      const byUser = new Map(members.map((member) => [member.user_id, member]))
      assert.equal(byUser.size, members.length, 'each user once')
      for (const member of members) {
        assert.equal(member.source_type, 'Project')
        assert.deepEqual(Object.keys(member.user).sort(), ['email', 'id', 'username'])
        assert.equal(member.user.id, member.user_id)
      }
      assert.equal(byUser.get(developer.user.id)!.access_level, 30, 'the project membership wins over the group\'s')
      assert.equal(byUser.get(developer.user.id)!.user.email, developer.user.email)
      assert.equal(byUser.get(groupMember.user.id)!.access_level, 20)
      assert.equal(byUser.get(parentMember.user.id)!.access_level, 40)
      assert.equal(byUser.get(groupMember.user.id)!.source_id, project.id)
      const order = members.map((member) => member.user_id)
      assert.ok(order.indexOf(developer.user.id) < order.indexOf(groupMember.user.id), 'the project\'s own first')
      assert.ok(order.indexOf(groupMember.user.id) < order.indexOf(parentMember.user.id), 'then the nearest group\'s')
    })

    it('merge requests with metrics, notes, diff, events, label links and milestone', () => {
      assert.deepEqual(tree.merge_requests.map((mr: Json) => mr.title), ['Change things', 'Merged change'])
      const [mr, merged] = tree.merge_requests
      assert.equal(mr.id, ids.mr)
      assert.equal(mr.title, 'Change things')
      assert.equal(mr.target_branch, 'master')
      assert.equal(mr.source_project_id, project.id)
      assert.equal(mr.target_project_id, project.id)
      assert.equal(mr.diff_head_sha, shas.mrHead)
      assert.equal(mr.source_branch_sha, shas.mrHead)
      assert.equal(mr.target_branch_sha, shas.masterAfterMerge)
      assert.equal('milestone_id' in mr, false)
      assert.equal(mr.milestone.title, 'v1')
      assert.equal(typeof mr.merge_params, 'object')
      assert.equal(mr.metrics.merge_request_id, ids.mr)
      assert.deepEqual(mr.events.map((event: Json) => event.action), [1])
      assert.ok(mr.notes.some((note: Json) => note.note === 'Looks good' && note.author.name === t.root.user.name && Array.isArray(note.events)))
      assert.deepEqual(mr.label_links.map((link: Json) => link.label.title), ['bug'])
      assert.deepEqual(mr.timelogs, [])
      assert.deepEqual(mr.resource_label_events, [])
      const diff = mr.merge_request_diff
      assert.equal(diff.state, 'collected')
      assert.equal(diff.head_commit_sha, shas.mrHead)
      assert.ok([shas.master, shas.masterAfterMerge].includes(diff.start_commit_sha), 'the target head it was last compared with')
      assert.equal(diff.base_commit_sha, shas.master)
      assert.equal(diff.commits_count, 1)
      assert.equal(diff.real_size, '1')
      const [commit] = diff.merge_request_diff_commits
      assert.deepEqual(Object.keys(commit).sort(), [
        'author_email', 'author_name', 'authored_date', 'committed_date', 'committer_email', 'committer_name', 'message', 'relative_order', 'sha',
      ])
      assert.equal(commit.sha, shas.mrHead)
      assert.equal(commit.relative_order, 0)
      const [file] = diff.merge_request_diff_files
      assert.equal(file.new_file, true)
      assert.equal(file.deleted_file, false)
      assert.equal(file.b_mode, '100644')
      assert.equal(file.new_path, file.old_path)
      assert.match(file.utf8_diff, /^--- \/dev\/null\n\+\+\+ b\//)
      assert.equal('diff' in file, false)
      // A merged merge request keeps the diff it brought in.
      assert.equal(merged.state, 'merged')
      assert.match(merged.metrics.merged_at, ISO)
      assert.deepEqual(merged.merge_request_diff.merge_request_diff_commits.map((commit: Json) => commit.sha), [shas.mergedHead])
      assert.equal(merged.merge_request_diff.merge_request_diff_files.length, 1)
      assert.equal(merged.source_branch_sha, shas.mergedHead)
    })

    it('pipelines with their commit\'s notes and their stages of jobs', () => {
      assert.equal(tree.pipelines.length, 1)
      const [pipeline] = tree.pipelines
      assert.equal(pipeline.sha, shas.master)
      assert.equal(pipeline.ref, 'master')
      assert.equal(pipeline.iid, 1)
      assert.equal(pipeline.source, 'api')
      assert.deepEqual(pipeline.notes.map((note: Json) => [note.note, note.commit_id, note.noteable_type]), [['On a line', shas.master, 'Commit']])
      assert.equal(pipeline.notes[0].type, 'LegacyDiffNote')
      assert.match(pipeline.notes[0].line_code, /^[0-9a-f]{40}_0_2$/)
      assert.deepEqual(pipeline.stages.map((stage: Json) => stage.name), ['build', 'test'])
      for (const stage of pipeline.stages) assert.equal(typeof stage.status, 'number')
      const [build] = pipeline.stages[0].statuses
      assert.equal(build.type, 'Ci::Build')
      assert.equal(build.name, 'build')
      assert.equal(build.stage, 'build')
      assert.equal(build.stage_idx, 0)
      assert.equal(build.commit_id, pipeline.id)
      assert.deepEqual(build.options.script, ['make'])
      for (const key of ['trace', 'token', 'when', 'artifacts_file', 'artifacts_metadata', 'token_digest']) assert.equal(key in build, false, key)
    })

    it('triggers, schedules, services, hooks, protected refs, features, badges, settings and custom attributes', () => {
      assert.deepEqual(tree.triggers.map((trigger: Json) => trigger.description), ['deploy'])
      assert.equal('token' in tree.triggers[0], false)
      assert.deepEqual(tree.pipeline_schedules.map((schedule: Json) => [schedule.description, schedule.cron, schedule.cron_timezone, schedule.active]),
        [['nightly', '0 1 * * *', 'UTC', true]])
      const jira = tree.services.find((service: Json) => service.type === 'JiraService')
      assert.ok(jira, JSON.stringify(tree.services.map((service: Json) => service.type)))
      assert.equal(jira.active, true)
      assert.equal(jira.properties.url, 'https://203.0.113.10/tracker')
      assert.equal(jira.properties.username, 'bot')
      assert.equal('password' in jira.properties, false)
      assert.ok(tree.services.some((service: Json) => service.type === 'ExternalWikiService'))
      assert.equal(tree.hooks.length, 1)
      const [hook] = tree.hooks
      assert.equal(hook.url, 'https://203.0.113.10/hook')
      assert.equal(hook.type, 'ProjectHook')
      assert.equal(hook.issues_events, true)
      assert.equal('token' in hook, false)
      const [branch] = tree.protected_branches
      assert.equal(branch.name, 'release/*')
      assert.deepEqual(branch.push_access_levels.map((level: Json) => level.access_level), [0])
      assert.deepEqual(branch.merge_access_levels.map((level: Json) => level.access_level), [40])
      const [tag] = tree.protected_tags
      assert.equal(tag.name, 'v*')
      assert.deepEqual(tag.create_access_levels.map((level: Json) => level.access_level), [40])
      assert.deepEqual(tree.project_feature, {
        ...tree.project_feature,
        issues_access_level: 20, merge_requests_access_level: 20, wiki_access_level: 20, snippets_access_level: 0,
        builds_access_level: 20, repository_access_level: 20,
      })
      assert.deepEqual(tree.project_badges.map((badge: Json) => [badge.type, badge.image_url]), [['ProjectBadge', 'https://example.com/badge.svg']])
      assert.equal('group_id' in tree.project_badges[0], false)
      assert.deepEqual(tree.ci_cd_settings, { group_runners_enabled: true })
      assert.deepEqual(tree.custom_attributes.map((attribute: Json) => [attribute.key, attribute.value]), [['team', 'core']])
    })
  })

  it('stops with an error when the stream it writes to is closed midway', async () => {
    const project = await makeProject(t, null, { description: 'x'.repeat(1000) })
    const sink = new SlowSink()
    sink.once('drain', () => sink.destroy())
    await assert.rejects(writeProjectTree(t.ctx, project.id, sink), /closed/)
  })

  it('stops between batches once its signal is aborted (the job lost or over its time)', async () => {
    const project = await makeProject(t, null)
    const controller = new AbortController()
    controller.abort(new Error('the export job was stopped'))
    await assert.rejects(writeProjectTree(t.ctx, project.id, new SlowSink(), { signal: controller.signal }), /the export job was stopped/)
  })

  describe('many issues', () => {
    it('writes every issue and its notes, in order, across batch boundaries', async () => {
      const project = await makeProject(t, null)
      const count = BATCH_SIZE + 37
      const now = Date.now()
      const issues = Array.from({ length: count }, (_, i) => ({
        project_id: project.id, iid: i + 1, author_id: t.root.user.id, title: `Issue ${i + 1}`,
        created_at: now, updated_at: now,
      }))
      for (let at = 0; at < issues.length; at += 200) await t.ctx.db.insertInto('issues').values(issues.slice(at, at + 200)).execute()
      const rows = await t.ctx.db.selectFrom('issues').select(['id', 'iid']).where('project_id', '=', project.id).execute()
      const idOf = new Map(rows.map((row) => [row.iid, row.id]))
      // Two notes each, written in an order unlike the issues'.
      const notes = [...rows].reverse().flatMap((row) => [1, 2].map((n) => ({
        project_id: project.id, author_id: t.root.user.id, noteable_type: 'Issue', noteable_id: row.id, body: `Note ${n} of ${row.iid}`,
        discussion_id: `${String(row.id).padStart(20, '0')}${String(n).padStart(20, '0')}`, created_at: now, updated_at: now,
      })))
      for (let at = 0; at < notes.length; at += 200) await t.ctx.db.insertInto('notes').values(notes.slice(at, at + 200)).execute()

      const { queries, result: { tree } } = await countQueries(t, () => exportTree(project.id))
      assert.equal(tree.issues.length, count)
      // A few queries a batch, whatever the number of issues and notes in it (no query per issue).
      const small = await makeProject(t, null)
      await t.ctx.db.insertInto('issues').values(issues.slice(0, 3).map((issue) => ({ ...issue, project_id: small.id }))).execute()
      const { queries: smallQueries } = await countQueries(t, () => exportTree(small.id))
      assert.ok(queries - smallQueries <= 10, `${queries} queries for two batches, ${smallQueries} for one`)
      tree.issues.forEach((issue: Json, i: number) => {
        assert.equal(issue.iid, i + 1)
        assert.equal(issue.id, idOf.get(i + 1))
        assert.deepEqual(issue.notes.map((note: Json) => note.note), [`Note 1 of ${i + 1}`, `Note 2 of ${i + 1}`])
        assert.ok(issue.notes.every((note: Json) => note.noteable_id === issue.id))
      })
    })
  })
})
