// An accessibility scan of the main pages (code, issues, merge requests, CI and its artifacts, wiki,
// members, settings and integrations, new project and import, dashboard, explore, groups and their
// settings, users, profile, admin area) with axe-core in real headless Chromium, in the light and
// the dark colour scheme: no serious or critical WCAG 2.1 A/AA violation (contrast, names of links,
// buttons and fields, landmarks, headings, language). Each page is loaded as a signed-in
// administrator sees it (the most links and forms), the sign-in page as an anonymous visitor does.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Browser, Page } from 'playwright-core'
import yazl from 'yazl'
import { makeGroup, makeProject, makeToken } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import { makeIssue } from '../helpers/issues.js'
import { makeMergeRequest } from '../helpers/merge-requests.js'
import { MULTIPART_TYPE, multipartBody, newPipeline, rawRequest, runJob } from '../helpers/running-jobs.js'
import { appendTrace } from '../../src/services/ci/trace.js'
import { postNote } from '../../src/services/notes/create-note.js'
import { issueNoteable } from '../../src/services/notes/noteable.js'
import {
  launchChromium, openPage, seriousAccessibilityViolations, startListeningApp, submitSignIn, type ListeningApp,
} from '../helpers/chromium.js'

const README = `# Demo

A table, a task list and code:

| a | b |
|---|---|
| 1 | 2 |

- [x] done
- [ ] to do

\`\`\`ts
const answer: number = 42
\`\`\`
`

function oneFileZip(name: string, text: string): Promise<Buffer> {
  const zip = new yazl.ZipFile()
  zip.addBuffer(Buffer.from(text), name)
  zip.end()
  const parts: Buffer[] = []
  return new Promise((resolve, reject) => {
    zip.outputStream.on('data', (part: Buffer) => parts.push(part)).on('end', () => resolve(Buffer.concat(parts))).on('error', reject)
  })
}

describe('Accessibility of the main pages (axe-core in Chromium)', () => {
  let server: ListeningApp
  let browser: Browser
  let pages: string[]
  before(async () => {
    ;[server, browser] = await Promise.all([startListeningApp(), launchChromium()])
    const group = await makeGroup(server.t, { visibility: 'public', path: 'team' })
    const project = await makeProject(server.t, null, { visibility: 'public', description: 'A demo project', namespace: group })
    const master = await commitFiles(server.t, project.id, {
      'README.md': README, 'src/main.ts': 'export const a = 1\n// a comment\nexport function f(x: string) { return `${x}!` }\n', '.gitlab-ci.yml': 'build: { script: make }\n',
    })
    await server.t.ctx.db.updateTable('projects').set({ default_branch: 'master' }).where('id', '=', project.id).execute()
    const issue = await makeIssue(server.t, project, null, { title: 'A bug', description: 'Steps **here**', labels: ['bug'] })
    await postNote(server.t.ctx, { noteable: issueNoteable(issue), authorId: 1, body: 'A comment with `code`' })
    const mr = await makeMergeRequest(server.t, project, null, { title: 'A change', description: `Fixes #${issue.iid}` })
    const lineDiscussion = await server.t.api('POST', `/projects/${project.id}/merge_requests/${mr.iid}/discussions`, {
      body: { body: 'A line comment', position: { new_path: `${mr.source_branch}.txt`, old_path: `${mr.source_branch}.txt`, new_line: 1 } },
    })
    assert.equal(lineDiscussion.status, 201, lineDiscussion.text)
    const pipeline = await newPipeline(server.t, project.id, (await makeToken(server.t, 1)).token)
    const job = await runJob(server.t, pipeline.jobs.build!)
    await appendTrace(server.t.ctx, job.id, 0, Buffer.from('\x1b[32mok\x1b[0m \x1b[31mfailed\x1b[0m \x1b[1mbold\x1b[0m\n'))
    await server.t.api('POST', `/projects/${project.id}/wikis`, { token: (await makeToken(server.t, 1)).token, body: { title: 'home', content: '# Wiki' } })
    const rootToken = (await makeToken(server.t, 1)).token
    const snippet = await server.t.api('POST', `/projects/${project.id}/snippets`, { token: rootToken, body: { title: 'A snippet', file_name: 'a.ts', content: 'export const b = 2\n', visibility: 'public' } })
    const environment = await server.t.api('POST', `/projects/${project.id}/environments`, { token: rootToken, body: { name: 'staging', external_url: 'https://staging.example.com' } })
    await server.t.api('POST', `/projects/${project.id}/variables`, { token: rootToken, body: { key: 'DEPLOY_TOKEN', value: 'secret' } })
    await server.t.api('POST', `/projects/${project.id}/protected_branches`, { token: rootToken, body: { name: 'release/*' } })
    assert.equal((await server.t.api('POST', '/runners', { token: null, body: { token: project.runners_token, description: 'A runner' } })).status, 201)
    const upload = await rawRequest(server.t, 'POST', `/jobs/${job.id}/artifacts?artifact_type=archive&artifact_format=zip`,
      { 'job-token': job.token, 'content-type': MULTIPART_TYPE }, multipartBody({ name: 'artifacts.zip', data: await oneFileZip('out/report.txt', 'ok\n') }))
    assert.equal(upload.status, 201, upload.text)
    const base = `/team/${project.path}`
    pages = [
      `${base}/-/settings/repository`, `${base}/-/settings/ci_cd?reveal=1`, `${base}/-/jobs/${job.id}/artifacts/browse/out`,
      `${base}/snippets`, `${base}/snippets/${snippet.body.id}`, `${base}/environments`, `${base}/environments/${environment.body.id}`,
      `${base}/wikis/home/history`, `${base}/wikis/home/edit`,
      base, `${base}/tree/master/src`, `${base}/blob/master/src/main.ts`, `${base}/blob/master/README.md`, `${base}/commits/master`,
      `${base}/commit/${master}`, `${base}/blame/master/src/main.ts`, `${base}/compare/master...${mr.source_branch}`, `${base}/branches`, `${base}/tags`,
      `${base}/issues`, `${base}/issues/${issue.iid}`, `${base}/issues/new`, `${base}/merge_requests`, `${base}/merge_requests/${mr.iid}`,
      `${base}/merge_requests/${mr.iid}/diffs`, `${base}/merge_requests/${mr.iid}/diffs?line_code=diff-0__1`, `${base}/merge_requests/${mr.iid}/edit`,
      `${base}/merge_requests/new`, `${base}/pipelines`, `${base}/pipelines/${pipeline.id}`, `${base}/-/jobs/${job.id}`,
      `${base}/wikis/home`, `${base}/edit/master/src/main.ts`,
      `${base}/project_members`, '/groups/team/-/group_members', '/groups/team/-/edit', '/groups/new',
      `${base}/edit`, `${base}/-/settings/integrations`, `${base}/-/services/issue-tracker-workflow/edit`, '/projects/new', '/import/gitlab_project/new',
      '/', '/dashboard/issues', '/explore/projects', '/groups/team', '/root',
      '/help', '/profile/personal_access_tokens', '/profile/keys',
      '/admin/users/root', '/admin/users/root/edit', '/admin/runners', '/admin/background_jobs', '/admin/hooks', '/admin/application_settings',
    ]
  })
  after(async () => {
    await browser?.close()
    await server?.close()
  })

  async function assertAccessible(page: Page, path: string, scheme: 'light' | 'dark'): Promise<void> {
    await page.emulateMedia({ colorScheme: scheme })
    const response = await page.goto(path)
    assert.equal(response?.status(), 200, path)
    const violations = await seriousAccessibilityViolations(page)
    assert.deepEqual(violations, [], `${path} (${scheme}): ${JSON.stringify(violations, null, 1)}`)
  }

  it('finds nothing serious on the sign-in page of an anonymous visitor', async () => {
    const { page, close } = await openPage(browser, server.url)
    try {
      for (const scheme of ['light', 'dark'] as const) await assertAccessible(page, '/users/sign_in', scheme)
    } finally {
      await close()
    }
  })

  it('finds nothing serious on the project, code and profile pages of a signed-in administrator', async () => {
    const { page, close } = await openPage(browser, server.url)
    try {
      await page.goto('/users/sign_in')
      await submitSignIn(page)
      await page.waitForURL(`${server.url}/`)
      for (const path of pages) {
        for (const scheme of ['light', 'dark'] as const) await assertAccessible(page, path, scheme)
      }
    } finally {
      await close()
    }
  })
})
