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

print('ok')
