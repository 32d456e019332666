"""python-gitlab against a running Ingot's CI notifications: a project hook with pipeline_events and
job_events (create, get, save round trip) and the pipelines-email integration (project.services).

Usage: ci_notifications.py <url> <admin token>. Exits non-zero with the failing step on stderr.
"""
import sys
import uuid

import gitlab

url, token = sys.argv[1:3]
gl = gitlab.Gitlab(url, private_token=token)

project = gl.projects.create({'name': 'notifications-' + uuid.uuid4().hex[:8]})

hook = project.hooks.create({'url': 'https://hooks.example.com/ci', 'push_events': False, 'pipeline_events': True, 'job_events': True})
assert hook.pipeline_events is True and hook.job_events is True and hook.push_events is False, hook
fetched = project.hooks.get(hook.id)
assert fetched.pipeline_events is True and fetched.job_events is True, fetched
fetched.job_events = False
fetched.save()
assert project.hooks.get(hook.id).job_events is False

service = project.services.get('pipelines-email')
assert service.active is False, service
service.recipients = 'ci@example.com, ops@example.com'
service.notify_only_broken_pipelines = False
service.save()
saved = project.services.get('pipelines-email')
assert saved.active is True, saved
assert saved.properties['recipients'] == 'ci@example.com, ops@example.com', saved.properties
assert saved.properties['notify_only_broken_pipelines'] is False, saved.properties
project.services.delete('pipelines-email')
assert project.services.get('pipelines-email').active is False

print('ok')
