// POST /ci/lint: the original 11.5's answer for valid and invalid CI files, without a caller.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'

describe('POST /ci/lint', () => {
  let t: TestApp
  before(async () => { t = await buildTestApp() })
  after(async () => { await t.close() })

  it('answers valid for a valid file, without credentials', async () => {
    const res = await t.api('POST', '/ci/lint', { token: null, body: { content: 'rspec:\n  script: rake spec\n' } })
    assert.equal(res.status, 200)
    assert.deepEqual(res.body, { status: 'valid', errors: [] })
  })

  it("answers invalid with the original's errors", async () => {
    const res = await t.api('POST', '/ci/lint', { body: { content: 'rspec:\n  scrpt: rake spec\n' } })
    assert.equal(res.status, 200)
    assert.deepEqual(res.body, { status: 'invalid', errors: ['jobs:rspec config contains unknown keys: scrpt', "jobs:rspec script can't be blank"] })
  })

  it('takes the content as a form too, and ignores a token it does not need', async () => {
    const res = await t.api('POST', '/ci/lint', { token: 'no-such-token', form: `content=${encodeURIComponent('a:\n  script: x\n')}` })
    assert.equal(res.status, 200)
    assert.deepEqual(res.body, { status: 'valid', errors: [] })
  })

  it('names a local include it cannot read without a project, and refuses remote ones', async () => {
    const res = await t.api('POST', '/ci/lint', { body: { content: 'include: [ci/a.yml, "https://example.com/b.yml"]\nrspec:\n  script: x\n' } })
    assert.deepEqual(res.body, {
      status: 'invalid',
      errors: ['Local file `ci/a.yml` does not have project!', 'Remote file `https://example.com/b.yml` was not fetched: Ingot does not fetch remote includes'],
    })
  })

  it('answers invalid for blank content and for YAML that is not a mapping', async () => {
    assert.deepEqual((await t.api('POST', '/ci/lint', { body: { content: '' } })).body, { status: 'invalid', errors: ['Please provide content of .gitlab-ci.yml'] })
    assert.deepEqual((await t.api('POST', '/ci/lint', { body: { content: 'just text' } })).body, { status: 'invalid', errors: ['Invalid configuration format'] })
  })

  it('answers 400 when content is missing or not text', async () => {
    const missing = await t.api('POST', '/ci/lint', { body: {} })
    assert.equal(missing.status, 400)
    assert.deepEqual(missing.body, { error: 'content is missing' })
    const notText = await t.api('POST', '/ci/lint', { body: { content: { rspec: { script: 'x' } } } })
    assert.equal(notText.status, 400)
    assert.deepEqual(notText.body, { error: 'content is invalid' })
  })
})
