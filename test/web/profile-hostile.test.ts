// The profile and application forms meet malformed input from a signed-in administrator (the API
// fuzz test reaches these routes only anonymously): fields of the wrong shape, huge and odd
// strings, lists where text is expected. Every answer is a page (2xx, 3xx or 4xx), never a 5xx.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { ROOT_PASSWORD, buildTestApp, type TestApp } from '../helpers/app.js'
import { createApplication } from '../../src/services/oauth/applications.js'
import { Browser, metaToken } from './browser.js'

const HOSTILE_VALUES = ['', 'a'.repeat(70_000), 'é'.repeat(5_000), '\uFFFF', '1e309', '-1', '../../etc/passwd', '<script>x</script>']

describe('Web profile forms under malformed input', () => {
  let t: TestApp
  before(async () => { t = await buildTestApp() })
  after(async () => { await t.close() })

  it('answers every form with a page, whatever its fields hold', async () => {
    const b = new Browser(t)
    await b.signIn('root', ROOT_PASSWORD)
    const token = metaToken((await b.get('/profile/keys')).text)
    const { application } = await createApplication(t.ctx.db, { name: 'Target', redirectUri: 'https://t.example/cb', scopes: 'api', ownerId: null })
    const forms: [string, string, string][] = [
      ['/profile/personal_access_tokens', 'personal_access_token', ''],
      ['/profile/personal_access_tokens/1/revoke', 'personal_access_token', 'put'],
      ['/profile/password', 'user', 'put'],
      ['/profile/keys', 'key', ''],
      ['/profile/keys/1', 'key', 'delete'],
      ['/oauth/applications', 'doorkeeper_application', ''],
      ['/admin/applications', 'doorkeeper_application', ''],
      [`/admin/applications/${application.id}`, 'doorkeeper_application', 'put'],
      ['/oauth/authorized_applications/1', 'doorkeeper_application', 'delete'],
    ]
    const failures: string[] = []
    const statuses = new Set<number>()
    for (const [path, scope, method] of forms) {
      for (const value of HOSTILE_VALUES) {
        const bodies: string[] = [
          // Each field of the forms holding the value, a list, or a hash.
          ...['name', 'expires_at', 'scopes', 'key', 'title', 'redirect_uri', 'trusted', 'current_password', 'password', 'password_confirmation']
            .flatMap((field) => [`${scope}[${field}]=${encodeURIComponent(value)}`, `${scope}[${field}][]=${encodeURIComponent(value)}`, `${scope}[${field}][x]=1`]),
          `${scope}=${encodeURIComponent(value)}`,
          `${scope}[scopes][]=${encodeURIComponent(value)}&${scope}[scopes][]=api`,
        ]
        for (const body of bodies) {
          const res = await b.request('POST', path, `authenticity_token=${token}&_method=${method}&${body}`, {
            'content-type': 'application/x-www-form-urlencoded',
          })
          statuses.add(res.status)
          if (res.status >= 500) failures.push(`${path} ${body.slice(0, 120)}: ${res.status} ${res.text.slice(0, 200)}`)
        }
      }
    }
    assert.deepEqual(failures, [])
    // The forms reached their handlers: refused forms shown again, and ids that name nothing.
    assert.ok(statuses.has(200) && statuses.has(404) && !statuses.has(422), [...statuses].join())
  })
})
