"""python-gitlab against a running Ingot's badges API: a group's badge (group.badges) is shown
on its project's list with kind "group" and rendered for the project; a project's badge
(project.badges) is created, rendered, changed (save) and deleted; render() fills the
placeholders without saving; a URL that is not http(s) is refused with 400.

Usage: badges.py <url> <admin token>. Exits non-zero with the failing step on stderr.
"""
import sys
import uuid

import gitlab

url, token = sys.argv[1:3]
gl = gitlab.Gitlab(url, private_token=token)

group_path = 'badges-' + uuid.uuid4().hex[:8]
group = gl.groups.create({'name': group_path, 'path': group_path})
project = gl.projects.create({'name': 'badges-' + uuid.uuid4().hex[:8], 'namespace_id': group.id})
full_path = project.path_with_namespace

group_badge = group.badges.create({'link_url': 'https://example.com/%{project_path}', 'image_url': 'https://example.com/b.svg'})
assert group_badge.kind == 'group' and group_badge.rendered_link_url == 'https://example.com/%{project_path}', group_badge

badge = project.badges.create({
    'link_url': 'https://example.com/%{project_path}',
    'image_url': url + '/%{project_path}/badges/%{default_branch}/pipeline.svg',
})
assert badge.kind == 'project' and badge.rendered_link_url == 'https://example.com/' + full_path, badge

listed = project.badges.list(all=True)
# In the order they were made.
assert [(b.id, b.kind) for b in listed] == [(group_badge.id, 'group'), (badge.id, 'project')], listed
assert listed[0].rendered_link_url == 'https://example.com/' + full_path, listed[1]
assert [b.id for b in group.badges.list(all=True)] == [group_badge.id]

rendered = project.badges.render('https://example.com/%{project_id}', 'https://example.com/i.svg')
assert rendered['rendered_link_url'] == 'https://example.com/%d' % project.id, rendered

badge.link_url = 'https://example.org/'
badge.save()
assert project.badges.get(badge.id).link_url == 'https://example.org/'

try:
    project.badges.create({'link_url': 'ftp://example.com', 'image_url': 'https://example.com/b.svg'})
    raise AssertionError('an ftp URL was taken')
except gitlab.exceptions.GitlabCreateError as error:
    assert error.response_code == 400 and 'Only allowed protocols' in str(error.error_message), error

project.badges.delete(badge.id)
group.badges.delete(group_badge.id)
assert project.badges.list(all=True) == []
try:
    project.badges.get(badge.id)
    raise AssertionError('a deleted badge is still shown')
except gitlab.exceptions.GitlabGetError as error:
    assert error.response_code == 404, error

print('ok')
