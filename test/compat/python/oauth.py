"""python-gitlab against a running Ingot as an OAuth provider: an administrator registers an
application (gl.applications), a token comes from the password grant, and python-gitlab works
with it as oauth_token; the application is then listed and deleted.

Usage: oauth.py <url> <admin token> <username> <password>. Exits non-zero with the failing step on stderr.
"""
import sys

import gitlab
import requests

url, token, username, password = sys.argv[1:5]
gl = gitlab.Gitlab(url, private_token=token)

application = gl.applications.create({
    'name': 'python-client', 'redirect_uri': 'https://client.example/callback', 'scopes': 'api read_user',
})
assert len(application.secret) == 64, application.secret
assert application.application_name == 'python-client'
assert [a.application_id for a in gl.applications.list() if a.id == application.id] == [application.application_id]

answer = requests.post(url + '/oauth/token', data={
    'grant_type': 'password', 'username': username, 'password': password, 'scope': 'api',
    'client_id': application.application_id, 'client_secret': application.secret,
}, timeout=30)
assert answer.status_code == 200, answer.text
assert answer.headers['Cache-Control'] == 'no-store'

oauth = gitlab.Gitlab(url, oauth_token=answer.json()['access_token'])
oauth.auth()
assert oauth.user.username == username, oauth.user.username
assert isinstance(oauth.projects.list(), list)

gl.applications.delete(application.id)
assert application.id not in [a.id for a in gl.applications.list()]
try:
    oauth.auth()
    raise AssertionError('a token of a deleted application still works')
except gitlab.exceptions.GitlabAuthenticationError:
    pass
print('ok')
