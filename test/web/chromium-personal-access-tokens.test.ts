// Creating a personal access token on the profile page in a real browser (headless Chromium):
// sign in (and come back to the page), fill the form, tick a scope, read the token shown once, and use it against the API.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Browser } from 'playwright-core'
import { launchChromium, openPage, startListeningApp, submitSignIn, type ListeningApp } from '../helpers/chromium.js'

describe('Personal access tokens page in Chromium', () => {
  let server: ListeningApp
  let browser: Browser
  before(async () => {
    ;[server, browser] = await Promise.all([startListeningApp(), launchChromium()])
  })
  after(async () => {
    await browser?.close()
    await server?.close()
  })

  it('creates a token with the ticked scope, shown once, that the API takes', async () => {
    const { page, consoleErrors, close } = await openPage(browser, server.url)
    try {
      await page.goto('/profile/personal_access_tokens')
      await page.waitForURL(`${server.url}/users/sign_in`)
      await submitSignIn(page)
      await page.waitForURL(`${server.url}/profile/personal_access_tokens`)
      await page.fill('#personal_access_token_name', 'laptop <script>')
      await page.check('#personal_access_token_scopes_read_user')
      await page.locator('#new_personal_access_token').getByRole('button').click()
      const created = page.locator('#created-personal-access-token')
      await created.waitFor()
      const token = await created.inputValue()
      assert.match(token, /^\S{20,}$/)
      assert.equal(await page.locator('table').getByText('laptop <script>').count(), 1, 'the name is shown as text')

      const user = await fetch(`${server.url}/api/v4/user`, { headers: { 'private-token': token } })
      assert.equal(user.status, 200)
      assert.equal(((await user.json()) as { username: string }).username, 'root')
      const projects = await fetch(`${server.url}/api/v4/projects`, { headers: { 'private-token': token } })
      assert.equal(projects.status, 403, 'read_user does not reach the api scope')

      await page.goto('/profile/personal_access_tokens')
      assert.equal(await page.locator('#created-personal-access-token').count(), 0, 'the token is shown once')
      assert.deepEqual(consoleErrors, [])
    } finally {
      await close()
    }
  })
})
