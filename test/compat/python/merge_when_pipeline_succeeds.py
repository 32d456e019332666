"""python-gitlab against a running Ingot's merge flow with CI: a merge request whose source branch
has a pipeline (made by the push), mr.pipelines.list(), mr.merge(merge_when_pipeline_succeeds=True)
while the pipeline runs, mr.cancel_merge_when_pipeline_succeeds(), then again, and a runner
registered here that finishes the jobs through the runner protocol (gl.http_request): the merge
request is merged by the background job with the merge commit message given.

Usage: merge_when_pipeline_succeeds.py <url> <admin token>. Exits non-zero with the failing step on stderr.
"""
import sys
import time
import uuid

import gitlab

url, token = sys.argv[1:3]
gl = gitlab.Gitlab(url, private_token=token)


def wait_for(condition, what, seconds=30):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if condition():
            return
        time.sleep(0.2)
    raise AssertionError('timed out waiting for ' + what)


project = gl.projects.create({'name': 'mwps-' + uuid.uuid4().hex[:8]})
runner = gl.runners.create({'token': gl.projects.get(project.id).runners_token, 'description': 'python merger'})
project.files.create({'file_path': '.gitlab-ci.yml', 'branch': 'master', 'content': 'test: { script: make test }\n', 'commit_message': 'CI'})
project.branches.create({'branch': 'feature', 'ref': 'master'})
project.files.create({'file_path': 'feature.txt', 'branch': 'feature', 'content': 'feature\n', 'commit_message': 'Feature'})
mr = project.mergerequests.create({'source_branch': 'feature', 'target_branch': 'master', 'title': 'Feature'})

wait_for(lambda: len(mr.pipelines.list()) == 1, 'the push pipeline of the source branch')
pipeline = mr.pipelines.list()[0]
assert pipeline.ref == 'feature' and pipeline.status == 'pending', pipeline
assert project.mergerequests.get(mr.iid).pipeline['id'] == pipeline.id

answer = mr.merge(merge_when_pipeline_succeeds=True)
assert answer['merge_when_pipeline_succeeds'] is True and answer['state'] == 'opened', answer
assert mr.cancel_merge_when_pipeline_succeeds() == {'status': 'success'}
assert project.mergerequests.get(mr.iid).merge_when_pipeline_succeeds is False
answer = mr.merge(merge_when_pipeline_succeeds=True, merge_commit_message='Merged when green')
assert answer['merge_when_pipeline_succeeds'] is True, answer

# Every job the runner is given succeeds.
while True:
    answer = gl.http_request('post', '/jobs/request', post_data={'token': runner.token, 'info': {'name': 'gitlab-runner', 'version': '17.0.0'}})
    if answer.status_code != 201:
        break
    job = answer.json()
    gl.http_request('put', f"/jobs/{job['id']}", post_data={'token': job['token'], 'state': 'success'})

wait_for(lambda: project.mergerequests.get(mr.iid).state == 'merged', 'the automatic merge')
merged = project.mergerequests.get(mr.iid)
assert project.commits.get(merged.merge_commit_sha).message.strip() == 'Merged when green', merged
gl.runners.delete(runner.id)
print('ok')
