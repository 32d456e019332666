// The screenshots in docs/images/: the pages as a person sees them, taken in headless Chromium
// against a test instance holding a small demo project (`npm run screenshots`; needs Debian's
// chromium). Run it after changing a page that docs/ or the README shows, and commit the images
// with the change.
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Page } from 'playwright-core'
import { makeProject } from '../test/helpers/factories.js'
import { commitFiles } from '../test/helpers/git.js'
import { launchChromium, openPage, startListeningApp, submitSignIn } from '../test/helpers/chromium.js'
import { makeApplication } from '../test/helpers/oauth.js'
import { makeIssue } from '../test/helpers/issues.js'
import { makeMergeRequest } from '../test/helpers/merge-requests.js'
import { newPipeline, runJob } from '../test/helpers/running-jobs.js'
import { makeToken } from '../test/helpers/factories.js'
import { appendTrace } from '../src/services/ci/trace.js'
import { postNote } from '../src/services/notes/create-note.js'
import { issueNoteable } from '../src/services/notes/noteable.js'
import { refreshStatistics } from '../src/services/projects/refresh-statistics.js'

if (process.argv.includes('--help')) {
  console.log('Usage: npm run screenshots\nWrites the PNG screenshots of docs/images/ from a demo instance, in headless Chromium (/usr/bin/chromium).')
  process.exit(0)
}

const IMAGES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'images')

const README = `# Demo

A small project to show Ingot's pages: **Markdown** with tables, task lists and code.

| Feature | State |
|---|---|
| Pages | rendered on the server |
| Scripts | a few, none needed |

- [x] Read code in the browser
- [ ] Everything else

\`\`\`ts
export function greet(name: string): string {
  return \`Hello, \${name}!\`
}
\`\`\`
`

const MAIN_TS = `// The demo's entry point.
import { greet } from './greet.js'

interface Options {
  loud: boolean
  times: number
}

export function main(options: Options): void {
  for (let i = 0; i < options.times; i++) {
    const text = greet('world')
    console.log(options.loud ? text.toUpperCase() : text)
  }
}
`

async function shoot(page: Page, file: string, fullPage = false): Promise<void> {
  await page.screenshot({ path: path.join(IMAGES, file), fullPage })
}

const [server, browser] = await Promise.all([startListeningApp(), launchChromium()])
try {
  const client = await makeApplication(server.t, { name: 'Team chat', redirectUri: 'https://chat.example.com/oauth/callback', scopes: 'read_user openid' })
  const project = await makeProject(server.t, null, { name: 'Demo', path: 'demo', visibility: 'public', description: 'A small project to show the pages' })
  await commitFiles(server.t, project.id, { 'README.md': README, 'src/main.ts': MAIN_TS, 'src/greet.ts': 'export const greet = (name: string) => `Hello, ${name}!`\n' }, { message: 'Add the demo' })
  await server.t.ctx.db.updateTable('projects').set({ default_branch: 'master' }).where('id', '=', project.id).execute()
  await commitFiles(server.t, project.id, { '.gitlab-ci.yml': 'build:\n  script: npm run build\n' }, { message: 'Build in CI' })
  // What the job after a push does: the counts the overview shows.
  await refreshStatistics(server.t.ctx, project.id)
  const issue = await makeIssue(server.t, project, null, { title: 'Greet people by name', description: 'The greeting should use the **visitor\'s name**.', labels: ['feature'] })
  await postNote(server.t.ctx, { noteable: issueNoteable(issue), authorId: 1, body: 'Good idea: `greet(name)` already takes one.' })
  const mergeRequest = await makeMergeRequest(server.t, project, null, { title: 'Greet by name', description: 'Closes #1' })
  const pipeline = await newPipeline(server.t, project.id, (await makeToken(server.t, 1)).token)
  const job = await runJob(server.t, pipeline.jobs.build!)
  await appendTrace(server.t.ctx, job.id, 0, Buffer.from('\x1b[32;1mRunning with the built-in runner\x1b[0;m\n$ npm run build\n> demo@1.0.0 build\n> tsc -p .\n\x1b[32mBuilt in 2.1 s\x1b[0m\n'))

  const { page, close } = await openPage(browser, server.url)
  await page.setViewportSize({ width: 900, height: 640 })
  await page.goto('/users/sign_in')
  await submitSignIn(page)
  await page.waitForURL(`${server.url}/`)

  await page.goto(`/oauth/authorize?${new URLSearchParams({
    client_id: client.uid, redirect_uri: 'https://chat.example.com/oauth/callback', response_type: 'code', scope: 'read_user openid', state: 'x',
  })}`)
  await shoot(page, 'oauth-consent.png')

  await page.goto('/profile/personal_access_tokens')
  await page.fill('#personal_access_token_name', 'laptop')
  await page.check('#personal_access_token_scopes_api')
  await page.locator('#new_personal_access_token').getByRole('button').click()
  await page.locator('#created-personal-access-token').waitFor()
  await shoot(page, 'personal-access-tokens.png', true)

  await page.setViewportSize({ width: 1200, height: 800 })
  await page.goto('/root/demo')
  await shoot(page, 'project-overview.png')
  await page.goto('/root/demo/blob/master/src/main.ts#L9')
  await shoot(page, 'file.png')
  await page.emulateMedia({ colorScheme: 'dark' })
  await shoot(page, 'file-dark.png')
  await page.emulateMedia({ colorScheme: 'light' })
  await page.goto(`/root/demo/issues/${issue.iid}`)
  await shoot(page, 'issue.png')
  await page.goto(`/root/demo/merge_requests/${mergeRequest.iid}/diffs`)
  await shoot(page, 'merge-request-changes.png')
  await page.goto(`/root/demo/-/jobs/${job.id}`)
  await shoot(page, 'job-log.png')
  await page.emulateMedia({ colorScheme: 'light' })
  await page.setViewportSize({ width: 390, height: 780 })
  await page.goto('/root/demo')
  await shoot(page, 'project-overview-phone.png')
  await close()
  console.log(`Screenshots written to ${IMAGES}`)
} finally {
  await browser.close()
  await server.close()
}
