// Query strings and form bodies read as the original's Rack reads them (parse_nested_query): arrays
// of hashes as the ruby `gitlab` gem (HTTParty) encodes them keep every element, arrays and hashes
// of every query and form endpoint, and shapes that cannot be (`a=1&a[]=2`) answered 400.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import { parseNestedParams } from '../../src/api/nested-params.js'

describe('parseNestedParams (Rack::Utils.parse_nested_query)', () => {
  it('reads strings, arrays, hashes and arrays of hashes as Rack does', () => {
    const cases: [string, unknown][] = [
      ['a=1&b=x+y%21', { a: '1', b: 'x y!' }],
      ['a=1&a=2', { a: '2' }],
      ['a', { a: '' }],
      ['a[]=1&a[]=2', { a: ['1', '2'] }],
      ['h[k]=v&h[j][x]=w', { h: { k: 'v', j: { x: 'w' } } }],
      ['a[0]=x&a[1]=y', { a: { 0: 'x', 1: 'y' } }],
      ['x[][k]=1&x[][j]=2&x[][k]=3&x[][j]=4', { x: [{ k: '1', j: '2' }, { k: '3', j: '4' }] }],
      ['x[][k]=1&x[][k]=2', { x: [{ k: '1' }, { k: '2' }] }],
      ['x[][k]=1&x[][j]=2&x[][j]=3', { x: [{ k: '1', j: '2' }, { j: '3' }] }],
      ['x[][h][a]=1&x[][h][b]=2&x[][h][a]=3', { x: [{ h: { a: '1', b: '2' } }, { h: { a: '3' } }] }],
      ['x[][]=1', { x: [['1']] }],
      ['a[=1', { 'a[': '1' }],
      ['&&a=%ZZ&', { a: '%ZZ' }],
      ['__proto__[x]=1&constructor=2&h[toString]=3&ok=4', { h: {}, ok: '4' }],
    ]
    for (const [text, expected] of cases) assert.deepEqual(parseNestedParams(text), expected, text)
    assert.equal(({} as Record<string, unknown>).x, undefined)
  })

  it('refuses parameters whose parts disagree on their shape, or nest past Rack\'s limit', () => {
    for (const text of ['a=1&a[]=2', 'a=1&a[k]=2', 'a[]=1&a[k]=2', 'a[k]=1&a[]=2', `a${'[b]'.repeat(100)}=1`]) {
      assert.throws(() => parseNestedParams(text), /is invalid/, text)
    }
    assert.doesNotThrow(() => parseNestedParams(`a${'[b]'.repeat(99)}=1`))
    assert.throws(() => parseNestedParams(`a[${'b'.repeat(70_000)}]=1`), /^Error: a is invalid$/)
  })
})

describe('form-encoded and query parameters over HTTP', () => {
  let t: TestApp
  let owner: TestUser
  let projectId: number
  before(async () => {
    t = await buildTestApp()
    owner = await makeUser(t)
    projectId = (await makeProject(t, owner)).id
    await commitFiles(t, projectId, { 'README.md': '# r\n' })
  })
  after(async () => { await t.close() })

  const files = async (ref: string) => {
    const res = await t.api('GET', `/projects/${projectId}/repository/tree?ref=${ref}`, { token: owner.token })
    return res.body.map((entry: { path: string }) => entry.path).sort()
  }

  it('commits every action of a form-encoded commit, as the ruby gem sends two', async () => {
    // Gitlab::Client#create_commit: HTTParty's encoding of { branch:, commit_message:, actions: [{…}, {…}] }.
    const form = [
      'branch=master', 'commit_message=Two+files',
      'actions[][action]=create', 'actions[][file_path]=a.txt', 'actions[][content]=first',
      'actions[][action]=create', 'actions[][file_path]=b.txt', 'actions[][content]=second',
    ].join('&')
    const res = await t.api('POST', `/projects/${projectId}/repository/commits`, { token: owner.token, form })
    assert.equal(res.status, 201, res.text)
    assert.deepEqual(await files('master'), ['README.md', 'a.txt', 'b.txt'])
    const b = await t.api('GET', `/projects/${projectId}/repository/files/b.txt/raw?ref=master`, { token: owner.token })
    assert.equal(b.text, 'second')
  })

  it('takes the actions in the query string, the rest in the form, alike', async () => {
    const query = 'actions[][action]=create&actions[][file_path]=c.txt&actions[][content]=c&actions[][action]=delete&actions[][file_path]=a.txt'
    const res = await t.api('POST', `/projects/${projectId}/repository/commits?${query}`, {
      token: owner.token, form: 'branch=master&commit_message=Mixed',
    })
    assert.equal(res.status, 201, res.text)
    assert.deepEqual(await files('master'), ['README.md', 'b.txt', 'c.txt'])
  })

  it('reads `labels[]=a&labels[]=b` in a form and in a query string, and `iids[]` lists', async () => {
    const form = await t.api('POST', `/projects/${projectId}/issues`, { token: owner.token, form: 'title=Form&labels[]=a&labels[]=b' })
    assert.equal(form.status, 201, form.text)
    assert.deepEqual(form.body.labels, ['a', 'b'])
    // Writes take their parameters from the query string too (as @gitbeaker/rest sends some).
    const query = await t.api('POST', `/projects/${projectId}/issues?title=Query&labels[]=c&labels[]=d`, { token: owner.token })
    assert.equal(query.status, 201, query.text)
    assert.deepEqual(query.body.labels, ['c', 'd'])
    const listed = await t.api('GET', `/projects/${projectId}/issues?iids[]=${form.body.iid}&iids[]=${query.body.iid}&sort=asc`, { token: owner.token })
    assert.equal(listed.status, 200, listed.text)
    assert.deepEqual(listed.body.map((issue: { title: string }) => issue.title), ['Form', 'Query'])
  })

  it('answers 400 naming a parameter whose parts disagree on its shape', async () => {
    const query = await t.api('GET', `/projects/${projectId}/issues?iids=1&iids[]=2`, { token: owner.token })
    assert.equal(query.status, 400)
    assert.deepEqual(query.body, { error: 'iids[] is invalid' })
    const form = await t.api('POST', `/projects/${projectId}/issues`, { token: owner.token, form: 'title=x&labels[]=a&labels[k]=b' })
    assert.equal(form.status, 400)
    assert.deepEqual(form.body, { error: 'labels[k] is invalid' })
  })
})
