"""python-gitlab against a running Ingot: the calls people script every day, each checked.

Usage: smoke.py <url> <token>. Exits non-zero with the failing step on stderr.
"""
import base64
import sys

import gitlab

url, token = sys.argv[1], sys.argv[2]
gl = gitlab.Gitlab(url, private_token=token)
gl.auth()
assert gl.user.username == 'root', gl.user.username

group = gl.groups.create({'name': 'python-group', 'path': 'python-group'})
project = gl.projects.create({'name': 'python-project', 'namespace_id': group.id, 'initialize_with_readme': True})
assert project.default_branch == 'master', project.default_branch
assert [p.id for p in gl.projects.list(search='python-project')] == [project.id]
assert project.empty_repo is False

# Integrations by the original's product slugs, as python-gitlab names them.
chat = project.services.get('hangouts-chat')
assert not chat.active
chat.webhook = 'https://203.0.113.10/v1/spaces/room/messages'
chat.save()
assert project.services.get('hangouts-chat').active
project.services.delete('hangouts-chat')
assert not project.services.get('hangouts-chat').active

readme = project.files.get(file_path='README.md', ref='master')
assert readme.decode().startswith(b'# python-project'), readme.decode()
readme.content = 'Rewritten\n'
readme.save(branch='master', commit_message='Rewrite the README')
project.files.create({'file_path': 'docs/a.txt', 'branch': 'master', 'content': 'a\n', 'commit_message': 'Add a'})
assert project.files.raw(file_path='docs/a.txt', ref='master') == b'a\n'

commit = project.commits.create({
    'branch': 'feature', 'start_branch': 'master', 'commit_message': 'Add b',
    'actions': [{'action': 'create', 'file_path': 'b.bin', 'content': base64.b64encode(b'\0\1').decode(), 'encoding': 'base64'}],
})
assert commit.title == 'Add b', commit.title
assert [c.id for c in project.commits.list(ref_name='feature', per_page=1, get_all=False)] == [commit.id]
assert [d['new_path'] for d in commit.diff()] == ['b.bin']

branch = project.branches.create({'branch': 'topic', 'ref': 'master'})
assert branch.can_push and not branch.protected
assert 'topic' in [b.name for b in project.branches.list(get_all=True)]
project.protectedbranches.create({'name': 'release-*', 'push_access_level': 40})
assert sorted(p.name for p in project.protectedbranches.list()) == ['master', 'release-*']
project.branches.delete('topic')

tag = project.tags.create({'tag_name': 'v1.0', 'ref': 'master', 'message': 'First'})
assert tag.message == 'First', tag.message
assert [t.name for t in project.tags.list()] == ['v1.0']

tree = project.repository_tree(ref='feature', recursive=True, get_all=True)
assert sorted(entry['path'] for entry in tree if entry['type'] == 'blob') == ['README.md', 'b.bin', 'docs/a.txt']
assert project.repository_compare('master', 'feature')['commits'][0]['id'] == commit.id

label = project.labels.create({'name': 'bug', 'color': '#FF0000'})
milestone = project.milestones.create({'title': 'v1', 'due_date': '2030-01-31'})
issue = project.issues.create({'title': 'It crashes', 'description': 'On start', 'labels': ['bug', 'ui'],
                               'milestone_id': milestone.id, 'assignee_ids': [gl.user.id]})
assert issue.iid == 1 and sorted(issue.labels) == ['bug', 'ui'] and issue.milestone['id'] == milestone.id
assert [i.iid for i in project.issues.list(labels=['bug'], state='opened')] == [1]
note = issue.notes.create({'body': 'Seen it too'})
assert [n.body for n in issue.notes.list() if not n.system] == ['Seen it too'], note.body
issue.awardemojis.create({'name': 'tada'})
assert [a.name for a in issue.awardemojis.list()] == ['tada']
issue.state_event = 'close'
issue.save()
issue = project.issues.get(1)
assert issue.state == 'closed' and issue.user_notes_count == 1 and issue.upvotes == 0
assert issue.time_estimate('3h30m')['human_time_estimate'] == '3h 30m'
assert project.issues.get(1).time_stats()['time_estimate'] == 12600
assert [i.iid for i in milestone.issues()] == [1]

mr = project.mergerequests.create({'source_branch': 'feature', 'target_branch': 'master', 'title': 'Add b', 'labels': ['bug']})
assert mr.merge_status == 'can_be_merged', mr.merge_status
assert [c.id for c in mr.commits()] == [commit.id]
discussion = mr.discussions.create({'body': 'Please check'})
assert not discussion.attributes['individual_note']
mr.merge(should_remove_source_branch=True)
mr = project.mergerequests.get(mr.iid)
assert mr.state == 'merged' and mr.merged_by['id'] == gl.user.id, mr.state
assert [m.iid for m in project.mergerequests.list(state='merged')] == [mr.iid]

snippet = project.snippets.create({'title': 'Hello', 'file_name': 'hello.sh', 'content': 'echo hi\n', 'visibility': 'private'})
assert snippet.content() == b'echo hi\n'
snippet.notes.create({'body': 'Neat'})
assert [n.body for n in snippet.notes.list()] == ['Neat']

page = project.wikis.create({'title': 'Home', 'content': '# Home'})
assert page.slug == 'Home' and page.format == 'markdown', page.slug
page.content = 'Changed'
page.save()
assert project.wikis.get('Home').content == 'Changed'
assert [p.slug for p in project.wikis.list()] == ['Home']

hook = project.hooks.create({'url': 'https://93.184.216.34/ingot', 'issues_events': True, 'push_events': False})
assert hook.issues_events and not hook.push_events
assert [h.id for h in project.hooks.list()] == [hook.id]
project.hooks.delete(hook.id)

integration = project.integrations.get('emails-on-push')
assert not integration.active
integration.recipients = 'team@example.com'
integration.save()
assert project.integrations.get('emails-on-push').active

settings = project.notificationsettings.get()
settings.level = 'watch'
settings.save()
assert project.notificationsettings.get().level == 'watch'
assert gl.notificationsettings.get().level == 'participating'
assert gl.settings.get().default_branch_protection == 2

assert gl.lint('rspec:\n  script: rake spec\n') == (True, [])
assert gl.lint('rspec:\n  scrpt: rake spec\n') == (False, ['jobs:rspec config contains unknown keys: scrpt', "jobs:rspec script can't be blank"])

project.files.create({'file_path': '.gitlab-ci.yml', 'branch': 'master', 'content': 'build:\n  script: make\n', 'commit_message': 'Add CI'})
pipeline = project.pipelines.create({'ref': 'master', 'variables': [{'key': 'GREETING', 'value': 'hello'}]})
assert pipeline.status == 'pending', pipeline.status
assert pipeline.id in [p.id for p in project.pipelines.list(ref='master', get_all=True)]
jobs = pipeline.jobs.list()
assert [(j.name, j.status) for j in jobs] == [('build', 'pending')], jobs
job = project.jobs.get(jobs[0].id)
job.cancel()
assert project.jobs.get(job.id).status == 'canceled'
pipeline.retry()
assert project.pipelines.get(pipeline.id).status == 'pending'
pipeline.cancel()
assert project.pipelines.get(pipeline.id).status == 'canceled'

print('ok')
