// The sign-in page in a real browser (headless Chromium): what the inject-based tests cannot show —
// the form as Chromium fills and submits it, the redirects and cookies it follows, and a page
// that logs no errors to the console.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Browser } from 'playwright-core'
import { ROOT_PASSWORD } from '../helpers/app.js'
import { launchChromium, openPage, startListeningApp, submitSignIn, type ListeningApp, type OpenedPage } from '../helpers/chromium.js'

describe('Web sign-in in Chromium', () => {
  let server: ListeningApp
  let browser: Browser
  before(async () => {
    ;[server, browser] = await Promise.all([startListeningApp(), launchChromium()])
  })
  after(async () => {
    await browser?.close()
    await server?.close()
  })

  const signIn = async ({ page }: OpenedPage, password: string) => {
    await page.goto('/')
    assert.equal(page.url(), `${server.url}/users/sign_in`, 'an anonymous visitor of / is sent to sign in')
    await submitSignIn(page, 'root', password)
  }

  it('signs root in and lands on the home page, with no console errors', async () => {
    const opened = await openPage(browser, server.url)
    try {
      await signIn(opened, ROOT_PASSWORD)
      await opened.page.waitForURL(`${server.url}/`)
      assert.equal(await opened.page.locator('.site-nav .user').textContent(), '@root')
      const cookies = await opened.context.cookies()
      assert.ok(cookies.some((c) => c.name === '_service_session' && c.httpOnly), JSON.stringify(cookies))
      assert.deepEqual(opened.consoleErrors, [])
    } finally {
      await opened.close()
    }
  })

  it('refuses a wrong password on the sign-in page, with no console errors', async () => {
    const opened = await openPage(browser, server.url)
    try {
      await signIn(opened, 'not-the-password')
      const alert = opened.page.getByRole('alert')
      await alert.waitFor()
      assert.equal(await alert.textContent(), 'Invalid Login or password.')
      assert.equal(opened.page.url(), `${server.url}/users/sign_in`)
      assert.equal(await opened.page.inputValue('#user_login'), 'root', 'the login is kept, the password is not')
      assert.equal(await opened.page.inputValue('#user_password'), '')
      assert.ok(!(await opened.context.cookies()).some((c) => c.name === '_service_session'))
      assert.deepEqual(opened.consoleErrors, [])
    } finally {
      await opened.close()
    }
  })
})
