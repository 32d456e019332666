// The pages' forms in a real browser (headless Chromium), as a person goes through them: sign in,
// browse to a file, create an issue, preview and post a comment, close the issue, edit a file,
// open and merge a merge request, and follow a running job's log as it grows (the page's script
// under the strict CSP). Nothing the pages do may be refused by the CSP or fail in the console.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Browser } from 'playwright-core'
import { makeProject } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import { launchChromium, openPage, startListeningApp, submitSignIn, type ListeningApp } from '../helpers/chromium.js'
import { newPipeline, runJob } from '../helpers/running-jobs.js'
import { makeToken } from '../helpers/factories.js'
import { appendTrace } from '../../src/services/ci/trace.js'

describe('Working in the pages in Chromium', () => {
  let server: ListeningApp
  let browser: Browser
  let base: string
  let projectId: number
  before(async () => {
    ;[server, browser] = await Promise.all([startListeningApp(), launchChromium()])
    const project = await makeProject(server.t, null, { visibility: 'private', path: 'demo' })
    projectId = project.id
    const master = await commitFiles(server.t, project.id, {
      'README.md': '# Demo\n', 'src/main.ts': 'export const greeting = "hello"\n', '.gitlab-ci.yml': 'build: { script: make }\n',
    })
    await commitFiles(server.t, project.id, { 'feature.txt': 'a feature\n' }, { branch: 'add-feature', parent: master, message: 'Add a feature' })
    await server.t.ctx.db.updateTable('projects').set({ default_branch: 'master' }).where('id', '=', project.id).execute()
    base = '/root/demo'
  })
  after(async () => {
    await browser?.close()
    await server?.close()
  })

  it('signs in, browses to a file, creates an issue, previews and posts a comment, and closes the issue', async () => {
    const { page, consoleErrors, close } = await openPage(browser, server.url)
    try {
      await page.goto('/users/sign_in')
      await submitSignIn(page)
      await page.waitForURL(`${server.url}/`)
      await page.goto(base)
      await page.getByRole('link', { name: 'Files', exact: true }).click()
      await page.getByRole('link', { name: 'src/', exact: true }).click()
      await page.getByRole('link', { name: 'main.ts', exact: true }).click()
      await page.waitForURL(`${server.url}${base}/blob/master/src/main.ts`)
      assert.match(await page.locator('#L1').textContent() ?? '', /greeting/)

      await page.locator('.project-tabs').getByRole('link', { name: 'Issues', exact: true }).click()
      await page.getByRole('link', { name: 'New issue' }).click()
      await page.fill('#issue_title', 'The greeting is too quiet')
      await page.fill('#issue_description', 'It should **shout**.')
      await page.getByRole('button', { name: 'Create issue' }).click()
      await page.waitForURL(/\/issues\/1$/)
      assert.equal(await page.locator('.issuable-main strong').first().textContent(), 'shout')

      await page.fill('#note_note', 'Agreed, _loudly_.')
      await page.getByRole('button', { name: 'Preview' }).click()
      assert.equal(await page.locator('.preview em').textContent(), 'loudly')
      assert.equal(await page.inputValue('#note_note'), 'Agreed, _loudly_.')
      await page.getByRole('button', { name: 'Comment' }).click()
      await page.waitForURL(/\/issues\/1#note_\d+$/)
      assert.equal(await page.locator('.note em').last().textContent(), 'loudly')

      await page.getByRole('button', { name: 'Close issue' }).click()
      await page.getByRole('button', { name: 'Reopen issue' }).waitFor()
      assert.equal(await page.locator('.issuable-header .badge').first().textContent(), 'Closed')
      assert.deepEqual(consoleErrors, [])
    } finally {
      await close()
    }
  })

  it('edits a file in the browser, then opens and merges a merge request', async () => {
    const { page, consoleErrors, close } = await openPage(browser, server.url)
    try {
      await page.goto('/users/sign_in')
      await submitSignIn(page)
      await page.waitForURL(`${server.url}/`)
      await page.goto(`${base}/blob/master/README.md`)
      await page.getByRole('link', { name: 'Edit', exact: true }).click()
      await page.fill('#file_content', '# Demo\n\nNow with more words.\n')
      await page.fill('#commit_message', 'Say more in the README')
      await page.getByRole('button', { name: 'Commit changes' }).click()
      await page.waitForURL(`${server.url}${base}/blob/master/README.md`)
      assert.match(await page.locator('.markdown').first().textContent() ?? '', /Now with more words/)

      await page.goto(`${base}/merge_requests/new?merge_request%5Bsource_branch%5D=add-feature`)
      await page.getByRole('button', { name: 'Create merge request' }).click()
      await page.waitForURL(/\/merge_requests\/1$/)
      await page.getByRole('link', { name: /^Changes/ }).click()
      assert.match(await page.locator('.diff-file h3').first().textContent() ?? '', /feature\.txt/)
      await page.getByRole('link', { name: 'Overview', exact: true }).last().click()
      await page.getByRole('button', { name: 'Merge', exact: true }).click()
      await page.waitForURL(/\/merge_requests\/1$/)
      assert.match(await page.locator('.issuable-header .badge').first().textContent() ?? '', /Merged/)
      const master = await server.t.ctx.repositories.open(projectId).read('master:feature.txt')
      assert.equal(master?.data.toString(), 'a feature\n')
      assert.deepEqual(consoleErrors, [])
    } finally {
      await close()
    }
  })

  it('follows a running job\'s log as it grows, through the page\'s script', async () => {
    const token = (await makeToken(server.t, 1)).token
    const pipeline = await newPipeline(server.t, projectId, token)
    const job = await runJob(server.t, pipeline.jobs.build!)
    await appendTrace(server.t.ctx, job.id, 0, Buffer.from('\x1b[32mStarting the build\x1b[0m\n'))
    const { page, consoleErrors, close } = await openPage(browser, server.url)
    try {
      await page.goto('/users/sign_in')
      await submitSignIn(page)
      await page.waitForURL(`${server.url}/`)
      await page.goto(`${base}/-/jobs/${job.id}`)
      assert.equal(await page.locator('#job-log .term-fg-green').textContent(), 'Starting the build')
      const more = 'Compiling <everything>\n'
      await appendTrace(server.t.ctx, job.id, Buffer.byteLength('\x1b[32mStarting the build\x1b[0m\n'), Buffer.from(more))
      // The script polls every two seconds; the page is not reloaded (the log grows in place).
      await page.locator('#job-log', { hasText: 'Compiling <everything>' }).waitFor({ timeout: 8000 })
      assert.equal(await page.locator('#job-status').textContent(), 'running')
      assert.deepEqual(consoleErrors, [])
    } finally {
      await close()
    }
  })
})
