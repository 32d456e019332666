"""python-gitlab against a running Ingot's environments and deployments: a project whose CI file
deploys to `production`, a pipeline whose jobs a runner registered here takes and finishes through
the runner protocol (gl.http_request, as no python-gitlab call speaks it), then
project.deployments.list/get, and project.environments list, create, save, stop and delete.
11.5 has no GET of one environment, so environments are reached with lazy objects.

Usage: environments.py <url> <admin token>. Exits non-zero with the failing step on stderr.
"""
import sys
import uuid

import gitlab

CI_FILE = """
deploy:
  script: ./deploy
  environment:
    name: production
    url: https://prod.example.com
"""

url, token = sys.argv[1:3]
gl = gitlab.Gitlab(url, private_token=token)

project = gl.projects.create({'name': 'environments-' + uuid.uuid4().hex[:8]})
runner = gl.runners.create({'token': gl.projects.get(project.id).runners_token, 'description': 'python deployer'})
project.files.create({'file_path': '.gitlab-ci.yml', 'branch': 'master', 'content': CI_FILE, 'commit_message': 'Deploy'})
project.pipelines.create({'ref': 'master'})

# Every job the runner is given (the push's pipeline's too) succeeds.
finished = 0
while True:
    answer = gl.http_request('post', '/jobs/request', post_data={'token': runner.token, 'info': {'name': 'gitlab-runner', 'version': '17.0.0'}})
    if answer.status_code != 201:
        break
    job = answer.json()
    gl.http_request('put', f"/jobs/{job['id']}", post_data={'token': job['token'], 'state': 'success'})
    finished += 1
assert finished >= 1, finished

deployments = project.deployments.list(sort='desc', order_by='iid')
assert len(deployments) == finished, deployments
last = project.deployments.get(deployments[0].id)
assert last.iid == finished and last.ref == 'master', last
assert last.environment['name'] == 'production' and last.environment['external_url'] == 'https://prod.example.com', last
assert last.deployable['name'] == 'deploy' and last.deployable['status'] == 'success', last
assert last.user['username'] == 'root', last

production = project.environments.list()[0]
assert production.name == 'production' and production.slug == 'production', production
staging = project.environments.create({'name': 'Staging', 'external_url': 'https://staging.example.com'})
assert staging.slug.startswith('staging-') and len(staging.slug) == len('staging-') + 6, staging
staging.name = 'staging-2'
staging.save()
assert [e.name for e in project.environments.list()] == ['production', 'staging-2']
project.environments.get(production.id, lazy=True).stop()
project.environments.delete(staging.id)
assert [e.name for e in project.environments.list()] == ['production']
try:
    project.environments.create({'name': 'production'})
    raise AssertionError('a taken name was accepted')
except gitlab.exceptions.GitlabCreateError as error:
    assert error.response_code == 400, error

gl.runners.delete(runner.id)
print('ok')
