"""python-gitlab against a running Ingot's project export: project.exports.create() starts one,
export.refresh() follows its status to "finished" with _links, export.download() fetches the
archive (whole, and streamed to a file), which is a gzip'd tar of the original's layout.

Usage: project_export.py <url> <admin token>. Exits non-zero with the failing step on stderr.
"""
import io
import sys
import tarfile
import tempfile
import time
import uuid

import gitlab

url, token = sys.argv[1:3]
gl = gitlab.Gitlab(url, private_token=token)

project = gl.projects.create({'name': 'export-' + uuid.uuid4().hex[:8], 'initialize_with_readme': True})

export = project.exports.create({'description': 'as exported'})
export = project.exports.get()
deadline = time.time() + 60
while export.export_status != 'finished':
    assert export.export_status in ('none', 'started', 'after_export_action'), export.export_status
    assert time.time() < deadline, 'the export did not finish within a minute'
    time.sleep(0.2)
    export.refresh()

assert export.path_with_namespace == project.path_with_namespace, export
assert export._links['api_url'] == '%s/api/v4/projects/%d/export/download' % (url, project.id), export._links
assert export._links['web_url'] == '%s/%s/download_export' % (url, project.path_with_namespace), export._links

data = export.download()
with tarfile.open(fileobj=io.BytesIO(data), mode='r:gz') as archive:
    names = archive.getnames()
    assert names[0] == '.' or names[0] == './', names
    assert './VERSION' in names and './project.json' in names and './project.bundle' in names, names
    assert archive.extractfile('./VERSION').read() == b'0.2.4'
    assert b'"as exported"' in archive.extractfile('./project.json').read()

with tempfile.TemporaryFile() as f:
    export.download(streamed=True, action=f.write)
    assert f.tell() == len(data), (f.tell(), len(data))

# Another export while none runs is accepted too.
project.exports.create({})
print('ok')
