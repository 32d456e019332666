"""python-gitlab against a running Ingot's runner API: a runner registers with a project's
registration token (gl.runners.create), is verified, listed (gl.runners.list, gl.runners.all,
project.runners.list), shown and edited (save), enabled on a second project
(project.runners.create) and disabled there, lists its jobs, and is removed.

Usage: runners.py <url> <admin token>. Exits non-zero with the failing step on stderr.
"""
import sys
import uuid

import gitlab

url, token = sys.argv[1:3]
gl = gitlab.Gitlab(url, private_token=token)

first = gl.projects.create({'name': 'runners-' + uuid.uuid4().hex[:8]})
second = gl.projects.create({'name': 'runners-' + uuid.uuid4().hex[:8]})
registration_token = gl.projects.get(first.id).runners_token

runner = gl.runners.create({'token': registration_token, 'description': 'python', 'tag_list': ['docker', 'linux']})
assert isinstance(runner.token, str) and runner.token, runner
gl.runners.verify(runner.token)

assert runner.id in [r.id for r in gl.runners.list(all=True)]
assert runner.id in [r.id for r in gl.runners.all(scope='specific', all=True)]
assert [r.id for r in first.runners.list(type='project_type')] == [runner.id]

details = gl.runners.get(runner.id)
assert details.description == 'python' and details.tag_list == ['docker', 'linux'], details
# verify recorded the contact: the runner is online.
assert details.status == 'online' and details.online is True and details.is_shared is False, details
details.description = 'renamed'
details.active = False
details.save()
again = gl.runners.get(runner.id)
assert again.description == 'renamed' and again.active is False, again

second.runners.create({'runner_id': runner.id})
assert sorted(p['id'] for p in gl.runners.get(runner.id).projects) == sorted([first.id, second.id])
second.runners.delete(runner.id)
assert [r.id for r in second.runners.list()] == []
assert list(gl.runners.get(runner.id).jobs.list()) == []

gl.runners.delete(runner.id)
try:
    gl.runners.get(runner.id)
    raise AssertionError('a removed runner is still shown')
except gitlab.exceptions.GitlabGetError as error:
    assert error.response_code == 404, error

print('ok')
