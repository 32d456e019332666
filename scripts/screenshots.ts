// The screenshots in docs/: the pages as a person sees them, taken in headless Chromium against a
// test instance (`node --import tsx scripts/screenshots.ts`; needs Debian's chromium). Run it after
// changing a page that docs/ shows, and commit the images with the change.
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { launchChromium, openPage, startListeningApp, submitSignIn } from '../test/helpers/chromium.js'
import { makeApplication } from '../test/helpers/oauth.js'

const IMAGES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'images')

const [server, browser] = await Promise.all([startListeningApp(), launchChromium()])
try {
  const client = await makeApplication(server.t, { name: 'Team chat', redirectUri: 'https://chat.example.com/oauth/callback', scopes: 'read_user openid' })
  const { page, close } = await openPage(browser, server.url)
  await page.setViewportSize({ width: 900, height: 640 })
  await page.goto('/users/sign_in')
  await submitSignIn(page)
  await page.waitForURL(`${server.url}/`)

  await page.goto(`/oauth/authorize?${new URLSearchParams({
    client_id: client.uid, redirect_uri: 'https://chat.example.com/oauth/callback', response_type: 'code', scope: 'read_user openid', state: 'x',
  })}`)
  await page.screenshot({ path: path.join(IMAGES, 'oauth-consent.png') })

  await page.goto('/profile/personal_access_tokens')
  await page.fill('#personal_access_token_name', 'laptop')
  await page.check('#personal_access_token_scopes_api')
  await page.locator('#new_personal_access_token').getByRole('button').click()
  await page.locator('#created-personal-access-token').waitFor()
  await page.screenshot({ path: path.join(IMAGES, 'personal-access-tokens.png'), fullPage: true })
  await close()
  console.log(`Screenshots written to ${IMAGES}`)
} finally {
  await browser.close()
  await server.close()
}
