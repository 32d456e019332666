// A project's pages in a real browser (headless Chromium): sign in, open a private project's
// overview, browse to a file through the tree, follow a line's anchor, switch branch with the
// switcher's page and form; the stylesheet applies under the pages' CSP and nothing is refused (a CSP
// violation is a console error).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Browser } from 'playwright-core'
import { makeProject } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import { launchChromium, openPage, startListeningApp, submitSignIn, type ListeningApp } from '../helpers/chromium.js'

describe('Project pages in Chromium', () => {
  let server: ListeningApp
  let browser: Browser
  let projectPath: string
  before(async () => {
    ;[server, browser] = await Promise.all([startListeningApp(), launchChromium()])
    const project = await makeProject(server.t, null, { visibility: 'private' })
    const master = await commitFiles(server.t, project.id, { 'README.md': '# Readme\n', 'src/main.ts': 'const a = 1\nconst b = 2\n' })
    await commitFiles(server.t, project.id, { 'src/feature.ts': 'export {}\n' }, { branch: 'feature/x', parent: master })
    await server.t.ctx.db.updateTable('projects').set({ default_branch: 'master' }).where('id', '=', project.id).execute()
    projectPath = `/root/${project.path}`
  })
  after(async () => {
    await browser?.close()
    await server?.close()
  })

  it('signs in and browses from the overview to a file and its line, with the stylesheet applied and no CSP violation', async () => {
    const { page, consoleErrors, close } = await openPage(browser, server.url)
    try {
      await page.goto('/users/sign_in')
      await submitSignIn(page)
      await page.waitForURL(`${server.url}/`)
      await page.goto(projectPath)
      assert.equal(await page.locator('main h1').first().textContent(), projectPath.split('/').at(-1))
      const skipLink = await page.locator('.skip-link').boundingBox()
      assert.ok(skipLink !== null && skipLink.x < 0, 'the stylesheet applies: the skip link waits off screen for focus')

      await page.getByRole('link', { name: 'src/', exact: true }).click()
      await page.waitForURL(`${server.url}${projectPath}/tree/master/src`)
      await page.getByRole('link', { name: 'main.ts', exact: true }).click()
      await page.waitForURL(`${server.url}${projectPath}/blob/master/src/main.ts`)
      await page.locator('a[href="#L2"]').click()
      await page.waitForURL(`${server.url}${projectPath}/blob/master/src/main.ts#L2`)
      assert.equal(await page.locator('#L2 td').nth(1).textContent(), 'const b = 2')

      await page.getByRole('link', { name: 'Switch branch or tag' }).click()
      await page.selectOption('#ref-switcher-ref', 'feature/x')
      await page.getByRole('button', { name: 'Switch' }).click()
      await page.waitForURL(`${server.url}${projectPath}/blob/feature/x/src/main.ts`)
      assert.deepEqual(consoleErrors, [])
    } finally {
      await close()
    }
  })
})
