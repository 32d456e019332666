"""python-gitlab against a running Ingot's deploy keys: project.keys.create() adds a key
(read-only unless can_push), project.keys.list()/get() show it with can_push, save() changes its
title and can_push, project.keys.enable() enables it on a second project, delete() disables it
there, gl.deploykeys.list() lists the instance's keys, and a key that is not one is refused (400).

Usage: deploy_keys.py <url> <admin token> <public key> <public key>. Exits non-zero with the
failing step on stderr.
"""
import sys
import uuid

import gitlab

url, token, first_key, second_key = sys.argv[1:5]
gl = gitlab.Gitlab(url, private_token=token)

project = gl.projects.create({'name': 'deploy-keys-' + uuid.uuid4().hex[:8]})
other = gl.projects.create({'name': 'deploy-keys-' + uuid.uuid4().hex[:8]})

key = project.keys.create({'title': 'CI', 'key': first_key})
assert key.title == 'CI' and key.key == first_key and key.can_push is False, key.attributes
pusher = project.keys.create({'title': 'pusher', 'key': second_key, 'can_push': True})
assert pusher.can_push is True, pusher.attributes

listed = project.keys.list(all=True)
assert [(k.id, k.can_push) for k in listed] == [(key.id, False), (pusher.id, True)], [k.attributes for k in listed]
assert project.keys.get(key.id).title == 'CI'

key.title = 'CI renamed'
key.can_push = True
key.save()
again = project.keys.get(key.id)
assert again.title == 'CI renamed' and again.can_push is True, again.attributes

enabled = other.keys.enable(key.id)
assert enabled['id'] == key.id and 'can_push' not in enabled, enabled
assert [(k.id, k.can_push) for k in other.keys.list(all=True)] == [(key.id, False)]

other.keys.get(key.id).delete()
assert other.keys.list(all=True) == []
assert project.keys.get(key.id).title == 'CI renamed'

instance_ids = [k.id for k in gl.deploykeys.list(all=True)]
assert key.id in instance_ids and pusher.id in instance_ids, instance_ids

try:
    project.keys.create({'title': 'bad', 'key': 'not a key'})
    raise AssertionError('an invalid key was accepted')
except gitlab.exceptions.GitlabCreateError as err:
    assert err.response_code == 400, err

try:
    other.keys.enable(999999999)
    raise AssertionError('an unknown key was enabled')
except gitlab.exceptions.GitlabProjectDeployKeyError as err:
    assert err.response_code == 404, err

pusher.delete()
assert [k.id for k in project.keys.list(all=True)] == [key.id]
print('ok')
