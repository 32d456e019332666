"""python-gitlab against a running Ingot's pipeline triggers and schedules: project.triggers
(create, list, get, save, delete), project.trigger_pipeline with variables, and
project.pipelineschedules (create, list by scope, get, save, take_ownership, delete) with their
variables (create, update, delete).

Usage: ci_triggers.py <url> <admin token>. Exits non-zero with the failing step on stderr.
"""
import sys
import uuid

import gitlab

url, token = sys.argv[1:3]
gl = gitlab.Gitlab(url, private_token=token)

project = gl.projects.create({'name': 'triggers-' + uuid.uuid4().hex[:8]})
project.files.create({
    'file_path': '.gitlab-ci.yml', 'branch': 'master', 'commit_message': 'Add CI',
    'content': 'build:\n  script: make\ndeploy:\n  script: deploy\n  only: [triggers]\n',
})

trigger = project.triggers.create({'description': 'deploy'})
assert len(trigger.token) == 30 and trigger.owner['username'] == 'root', trigger
assert [t.id for t in project.triggers.list()] == [trigger.id]
fetched = project.triggers.get(trigger.id)
assert fetched.token == trigger.token and fetched.last_used is None, fetched
fetched.description = 'renamed'
fetched.save()
assert project.triggers.get(trigger.id).description == 'renamed'

pipeline = project.trigger_pipeline('master', trigger.token, variables={'DEPLOY_TO': 'staging'})
assert pipeline.ref == 'master' and pipeline.status == 'pending', pipeline
assert sorted(job.name for job in project.pipelines.get(pipeline.id).jobs.list()) == ['build', 'deploy']
assert project.triggers.get(trigger.id).last_used is not None
try:
    project.trigger_pipeline('master', 'not-a-token')
    raise AssertionError('a wrong token triggered a pipeline')
except gitlab.exceptions.GitlabCreateError as err:
    assert err.response_code == 404, err
project.triggers.delete(trigger.id)
assert project.triggers.list() == []

schedule = project.pipelineschedules.create({
    'description': 'nightly', 'ref': 'master', 'cron': '0 1 * * *', 'cron_timezone': 'Europe/Berlin',
})
assert schedule.active is True and schedule.next_run_at.endswith(':00:00.000Z'), schedule
inactive = project.pipelineschedules.create({'description': 'off', 'ref': 'master', 'cron': '*/5 * * * *', 'active': False})
assert [s.id for s in project.pipelineschedules.list(scope='active')] == [schedule.id]
assert [s.id for s in project.pipelineschedules.list()] == [inactive.id, schedule.id]

variable = schedule.variables.create({'key': 'NIGHTLY', 'value': 'yes'})
assert variable.key == 'NIGHTLY' and variable.value == 'yes', variable
schedule.variables.update('NIGHTLY', {'key': 'NIGHTLY', 'value': 'no'})
details = project.pipelineschedules.get(schedule.id)
# The variables manager shadows the attribute of the same name.
assert details.attributes['variables'] == [{'key': 'NIGHTLY', 'value': 'no'}] and details.last_pipeline is None, details
details.cron = '30 2 * * *'
details.cron_timezone = 'UTC'
details.save()
again = project.pipelineschedules.get(schedule.id)
assert again.cron == '30 2 * * *' and again.next_run_at.endswith('T02:30:00.000Z'), again
again.take_ownership()
assert again.owner['username'] == 'root', again
try:
    project.pipelineschedules.create({'description': 'bad', 'ref': 'master', 'cron': 'never'})
    raise AssertionError('a bad cron was accepted')
except gitlab.exceptions.GitlabCreateError as err:
    assert err.response_code == 400, err
schedule.variables.delete('NIGHTLY')
assert project.pipelineschedules.get(schedule.id).attributes['variables'] == []
project.pipelineschedules.delete(schedule.id)
project.pipelineschedules.delete(inactive.id)
assert project.pipelineschedules.list() == []

print('ok')
