# python-gitlab's project import against Ingot: gl.projects.import_project(file, path=…, namespace=…,
# override_params=…) answers the scheduled import, project.imports.get() follows it to finished, and
# the imported repository's branches are there. Usage: project_import.py <url> <token> <archive> <namespace>
import sys
import time

import gitlab

url, token, archive, namespace = sys.argv[1:5]
gl = gitlab.Gitlab(url, private_token=token)

with open(archive, 'rb') as f:
    output = gl.projects.import_project(f, path='compat-imported', namespace=namespace, override_params={'description': 'Through python-gitlab'})
assert output['import_status'] in ('scheduled', 'started', 'finished'), output
assert output['path_with_namespace'] == namespace + '/compat-imported', output

project = gl.projects.get(output['id'])
project_import = project.imports.get()
deadline = time.time() + 60
while project_import.import_status not in ('finished', 'failed') and time.time() < deadline:
    time.sleep(0.2)
    project_import.refresh()
assert project_import.import_status == 'finished', project_import.attributes

project = gl.projects.get(output['id'])
assert project.default_branch == 'master', project.default_branch
assert sorted(b.name for b in project.branches.list()) == ['master', 'topic']
assert project.description == 'Through python-gitlab', project.description

# A second import at the same path is refused as the original refuses it.
with open(archive, 'rb') as f:
    try:
        gl.projects.import_project(f, path='compat-imported', namespace=namespace)
        raise AssertionError('a taken path was accepted')
    except gitlab.exceptions.GitlabImportError as err:
        assert err.response_code == 400, err

print('ok')
