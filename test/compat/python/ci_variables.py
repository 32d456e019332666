"""python-gitlab against a running Ingot's CI/CD variables API: a project's variables are
created (project.variables.create), listed, read, changed (save), and deleted; a group's
likewise (group.variables); a duplicate key is refused with the original's validation error.

Usage: ci_variables.py <url> <admin token>. Exits non-zero with the failing step on stderr.
"""
import sys
import uuid

import gitlab

url, token = sys.argv[1:3]
gl = gitlab.Gitlab(url, private_token=token)

project = gl.projects.create({'name': 'variables-' + uuid.uuid4().hex[:8]})
group_path = 'variables-' + uuid.uuid4().hex[:8]
group = gl.groups.create({'name': group_path, 'path': group_path})

for owner in (project, group):
    created = owner.variables.create({'key': 'DEPLOY_TOKEN', 'value': 's3cret-value', 'protected': True})
    assert created.key == 'DEPLOY_TOKEN' and created.value == 's3cret-value' and created.protected is True, created
    owner.variables.create({'key': 'PLAIN', 'value': 'plain'})

    assert sorted(v.key for v in owner.variables.list(all=True)) == ['DEPLOY_TOKEN', 'PLAIN']
    variable = owner.variables.get('PLAIN')
    assert variable.value == 'plain' and variable.protected is False, variable

    variable.value = 'changed'
    variable.protected = True
    variable.save()
    again = owner.variables.get('PLAIN')
    assert again.value == 'changed' and again.protected is True, again

    try:
        owner.variables.create({'key': 'PLAIN', 'value': 'again'})
        raise AssertionError('a duplicate key was taken')
    except gitlab.exceptions.GitlabCreateError as error:
        assert error.response_code == 400 and 'has already been taken' in str(error.error_message), error

    owner.variables.delete('PLAIN')
    assert [v.key for v in owner.variables.list(all=True)] == ['DEPLOY_TOKEN']
    try:
        owner.variables.get('PLAIN')
        raise AssertionError('a deleted variable is still shown')
    except gitlab.exceptions.GitlabGetError as error:
        assert error.response_code == 404, error

print('ok')
