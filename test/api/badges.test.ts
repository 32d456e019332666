// Badges: the pipeline and coverage SVGs of a ref (each status's text and colour, coverage and its
// thresholds, escaping, no caching, 404 to whoever may not see the project) and the badges API of
// projects and groups (who may do what, a project's list with its group's badges, placeholders
// rendered, 400 for bad URLs, 404 for private projects).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type ApiResponse, type TestApp } from '../helpers/app.js'
import { commitFiles } from '../helpers/git.js'
import { makeProject, makeUser } from '../helpers/factories.js'
import { expectStatuses, makeMatrix, type Matrix } from '../shared/permission-matrix.js'
import type { CiStatus } from '../../src/db/schema.js'
import { SESSION_COOKIE } from '../../src/auth/sessions.js'
import { startSession } from '../../src/services/sessions/sign-in.js'

const CI_FILE = 'test: { script: make test }\nlint: { script: make lint }\n'

/** The texts of an SVG badge and the fill of its value, read from the SVG. */
function readBadge(svg: string) {
  const texts = [...svg.matchAll(/<text[^>]*>\s*([^<]*?)\s*<\/text>/g)].map((match) => match[1])
  const fills = [...svg.matchAll(/<path fill="([^"]+)"/g)].map((match) => match[1])
  const width = /<svg [^>]*width="(\d+)"/.exec(svg)?.[1]
  return { key: texts[1], value: texts[3], keyColor: fills[0], valueColor: fills[1], width: Number(width), texts }
}

describe('badges', () => {
  let t: TestApp
  let m: Matrix
  let projectPath: string

  before(async () => {
    t = await buildTestApp()
    m = await makeMatrix(t)
    projectPath = `${m.group.full_path}/${m.project.path}`
    await commitFiles(t, m.project.id, { '.gitlab-ci.yml': CI_FILE })
  })
  after(async () => { await t.close() })

  function getBadge(path: string, token: string | null = m.tokens.reporter): Promise<ApiResponse> {
    return t.app.inject({ method: 'GET', url: path, headers: token === null ? {} : { 'private-token': token } })
      .then((res) => ({ status: res.statusCode, headers: res.headers, body: undefined, text: res.body }))
  }

  async function newPipeline(ref = 'master'): Promise<number> {
    const res = await t.api('POST', `/projects/${m.project.id}/pipeline`, { token: m.tokens.developer, body: { ref } })
    assert.equal(res.status, 201, res.text)
    return res.body.id
  }

  async function setStatus(pipelineId: number, status: CiStatus, coverage: string | null = null) {
    await t.ctx.db.updateTable('ci_pipelines').set({ status, coverage }).where('id', '=', pipelineId).execute()
  }

  describe('pipeline.svg', () => {
    it('is "unknown" and grey before any pipeline, never cached, an SVG', async () => {
      const res = await getBadge(`/${projectPath}/badges/master/pipeline.svg`)
      assert.equal(res.status, 200, res.text)
      assert.match(String(res.headers['content-type']), /^image\/svg\+xml/)
      assert.equal(res.headers['cache-control'], 'no-cache, no-store, max-age=0, must-revalidate')
      assert.equal(res.headers.pragma, 'no-cache')
      assert.deepEqual(readBadge(res.text), {
        key: 'pipeline', value: 'unknown', keyColor: '#555', valueColor: '#9f9f9f', width: 116,
        texts: ['pipeline', 'pipeline', 'unknown', 'unknown'],
      })
      assert.match(res.text, /<text x="31" y="14">/)
      assert.match(res.text, /<text x="89" y="14">/)
    })

    it('shows the newest pipeline of the ref\'s last commit in the original\'s words and colours', async () => {
      const id = await newPipeline()
      const expected: [CiStatus, string, string][] = [
        ['success', 'passed', '#4c1'],
        ['failed', 'failed', '#e05d44'],
        ['running', 'running', '#dfb317'],
        ['pending', 'pending', '#dfb317'],
        ['canceled', 'canceled', '#9f9f9f'],
        ['skipped', 'skipped', '#9f9f9f'],
        ['manual', 'manual', '#9f9f9f'],
      ]
      for (const [status, text, color] of expected) {
        await setStatus(id, status)
        const badge = readBadge((await getBadge(`/${projectPath}/badges/master/pipeline.svg`)).text)
        assert.deepEqual([badge.value, badge.valueColor], [text, color], status)
      }
      // A newer pipeline wins.
      await setStatus(await newPipeline(), 'failed')
      assert.equal(readBadge((await getBadge(`/${projectPath}/badges/master/pipeline.svg`)).text).value, 'failed')
    })

    it('ignores pipelines of an older commit of the ref', async () => {
      await commitFiles(t, m.project.id, { 'README.md': 'newer' })
      assert.equal(readBadge((await getBadge(`/${projectPath}/badges/master/pipeline.svg`)).text).value, 'unknown')
      await setStatus(await newPipeline(), 'success')
      assert.equal(readBadge((await getBadge(`/${projectPath}/badges/master/pipeline.svg`)).text).value, 'passed')
    })

    it('reads refs with slashes and refs that name nothing', async () => {
      const branch = await t.api('POST', `/projects/${m.project.id}/repository/branches`, { body: { branch: 'feature/badges', ref: 'master' } })
      assert.equal(branch.status, 201, branch.text)
      await setStatus(await newPipeline('feature/badges'), 'running')
      assert.equal(readBadge((await getBadge(`/${projectPath}/badges/feature/badges/pipeline.svg`)).text).value, 'running')
      assert.equal(readBadge((await getBadge(`/${projectPath}/badges/no-such-branch/pipeline.svg`)).text).value, 'unknown')
    })

    it('is 404 to whoever may not see the project\'s pipelines; a public project\'s are for everyone', async () => {
      const url = `/${projectPath}/badges/master/pipeline.svg`
      await expectStatuses(m, (token) => getBadge(url, token), {
        anonymous: 404, nonMember: 404, external: 404, guest: 200, reporter: 200, admin: 200,
      })
      // A browser shows a private project's badge to a member through the sign-in cookie.
      const { secret } = await startSession(t.ctx.db, m.users.reporter.user.id)
      const viaSession = await t.app.inject({ method: 'GET', url, headers: { cookie: `${SESSION_COOKIE}=${secret}` } })
      assert.equal(viaSession.statusCode, 200, viaSession.body)
      assert.equal((await getBadge(`/${projectPath}/badges/master/other.svg`)).status, 404)
      assert.equal((await getBadge(`/no-such/project/badges/master/pipeline.svg`)).status, 404)
      const owner = await makeUser(t)
      const open = await makeProject(t, owner, { visibility: 'public' })
      const openPath = `${owner.user.username}/${open.path}`
      const res = await getBadge(`/${openPath}/badges/master/pipeline.svg`, null)
      assert.equal(res.status, 200, res.text)
      assert.equal(readBadge(res.text).value, 'unknown')
      await t.api('PUT', `/projects/${open.id}`, { body: { jobs_enabled: false } })
      assert.equal((await getBadge(`/${openPath}/badges/master/pipeline.svg`, null)).status, 404)
    })
  })

  describe('coverage.svg', () => {
    it('shows the newest successful pipeline\'s coverage with the original\'s thresholds', async () => {
      const url = `/${projectPath}/badges/master/coverage.svg`
      const id = await newPipeline()
      const cases: [string | null, string, string, number][] = [
        [null, 'unknown', '#9f9f9f', 120],
        ['100.00', '100.00%', '#4c1', 116],
        ['95.00', '95.00%', '#4c1', 116],
        // Rounded first, as the original: the colour is the rounded value's.
        ['94.996', '95.00%', '#4c1', 116],
        ['94.994', '94.99%', '#a3c51c', 116],
        ['90.00', '90.00%', '#a3c51c', 116],
        ['80.5', '80.50%', '#dfb317', 116],
        ['75.00', '75.00%', '#dfb317', 116],
        ['12.345', '12.35%', '#e05d44', 116],
      ]
      for (const [coverage, text, color, width] of cases) {
        await setStatus(id, 'success', coverage)
        const badge = readBadge((await getBadge(url)).text)
        assert.deepEqual([badge.key, badge.value, badge.valueColor, badge.width], ['coverage', text, color, width], String(coverage))
      }
      // A failed pipeline after it does not count.
      await setStatus(await newPipeline(), 'failed', '10.00')
      assert.equal(readBadge((await getBadge(url)).text).value, '12.35%')
    })

    it('shows one job\'s coverage with ?job=, unknown for a job without one', async () => {
      const id = await newPipeline()
      await setStatus(id, 'success', '50.00')
      await t.ctx.db.updateTable('ci_builds').set({ coverage: 98.5 }).where('pipeline_id', '=', id).where('name', '=', 'test').execute()
      const url = `/${projectPath}/badges/master/coverage.svg`
      assert.equal(readBadge((await getBadge(url)).text).value, '50.00%')
      assert.equal(readBadge((await getBadge(`${url}?job=test`)).text).value, '98.50%')
      assert.equal(readBadge((await getBadge(`${url}?job=lint`)).text).value, 'unknown')
      assert.equal(readBadge((await getBadge(`${url}?job=nothing`)).text).value, 'unknown')
    })

    it('escapes what it shows', async () => {
      const id = await newPipeline()
      await setStatus(id, '<b>&"' as CiStatus)
      const res = await getBadge(`/${projectPath}/badges/master/pipeline.svg`)
      assert.ok(!res.text.includes('<b>'))
      assert.match(res.text, /&lt;b&gt;&amp;&quot;/)
      await setStatus(id, 'success')
    })
  })

  describe('the badges API', () => {
    const projectBase = () => `/projects/${m.project.id}/badges`
    const groupBase = () => `/groups/${m.group.id}/badges`
    let projectBadgeId: number
    let groupBadgeId: number

    it('creates a project badge (Maintainers and up), 201 with its rendered URLs', async () => {
      const body = { link_url: 'https://example.com/%{project_path}/-/commits/%{default_branch}', image_url: 'https://img.example.com/%{project_id}/%{commit_sha}.svg' }
      await expectStatuses(m, (token) => t.api('POST', projectBase(), { token, body }), {
        anonymous: 401, nonMember: 404, reporter: 403, developer: 403,
      })
      const res = await t.api('POST', projectBase(), { token: m.tokens.maintainer, body })
      assert.equal(res.status, 201, res.text)
      const head = (await t.api('GET', `/projects/${m.project.id}/repository/commits/master`)).body.id
      assert.deepEqual(res.body, {
        link_url: body.link_url,
        image_url: body.image_url,
        rendered_link_url: `https://example.com/${projectPath}/-/commits/master`,
        rendered_image_url: `https://img.example.com/${m.project.id}/${head}.svg`,
        id: res.body.id,
        kind: 'project',
      })
      assert.deepEqual(Object.keys(res.body), ['link_url', 'image_url', 'rendered_link_url', 'rendered_image_url', 'id', 'kind'])
      projectBadgeId = res.body.id
    })

    it('creates a group badge (Owners), rendered as it is on the group', async () => {
      const body = { link_url: 'http://ci.example.com/%{project_path}', image_url: 'http://ci.example.com/%{project_path}.svg' }
      await expectStatuses(m, (token) => t.api('POST', groupBase(), { token, body }), {
        anonymous: 401, nonMember: 404, maintainer: 403,
      })
      const res = await t.api('POST', groupBase(), { token: m.tokens.owner, body })
      assert.equal(res.status, 201, res.text)
      assert.equal(res.body.rendered_link_url, body.link_url)
      assert.equal(res.body.kind, 'group')
      groupBadgeId = res.body.id
    })

    it('lists a project\'s badges with its group\'s, rendered for the project; a group\'s own', async () => {
      const res = await t.api('GET', projectBase(), { token: m.tokens.guest })
      assert.equal(res.status, 200, res.text)
      assert.deepEqual(res.body.map((b: { id: number; kind: string }) => [b.id, b.kind]), [[projectBadgeId, 'project'], [groupBadgeId, 'group']])
      assert.equal(res.body[1].rendered_image_url, `http://ci.example.com/${projectPath}.svg`)
      assert.equal(res.headers['x-total'], '2')
      const group = await t.api('GET', groupBase(), { token: m.tokens.owner })
      assert.deepEqual(group.body.map((b: { id: number }) => b.id), [groupBadgeId])
      await expectStatuses(m, (token) => t.api('GET', projectBase(), { token }), { anonymous: 404, nonMember: 404, external: 404, guest: 200 })
      const open = await makeProject(t, null, { visibility: 'public' })
      const anonymous = await t.api('GET', `/projects/${open.id}/badges`, { token: null })
      assert.equal(anonymous.status, 200, anonymous.text)
      assert.deepEqual(anonymous.body, [])
    })

    it('gets one badge, 404 for another project\'s or none', async () => {
      const res = await t.api('GET', `${projectBase()}/${groupBadgeId}`, { token: m.tokens.reporter })
      assert.equal(res.status, 200, res.text)
      assert.equal(res.body.kind, 'group')
      const other = await makeProject(t, null)
      const missing = await t.api('GET', `/projects/${other.id}/badges/${projectBadgeId}`)
      assert.equal(missing.status, 404)
      assert.deepEqual(missing.body, { message: '404 Not found' })
      assert.equal((await t.api('GET', `${groupBase()}/${projectBadgeId}`)).status, 404)
      assert.equal((await t.api('GET', `${projectBase()}/99999999999999`)).status, 404)
      const notNumber = await t.api('GET', `${projectBase()}/abc`)
      assert.equal(notNumber.status, 400)
      assert.deepEqual(notNumber.body, { error: 'badge_id is invalid' })
    })

    it('refuses URLs that are not http or https URLs with 400', async () => {
      const res = await t.api('POST', projectBase(), { token: m.tokens.maintainer, body: { link_url: 'javascript:alert(1)', image_url: '' } })
      assert.equal(res.status, 400)
      assert.deepEqual(res.body, { message: {
        link_url: ['is blocked: Only allowed protocols are http, https'],
        image_url: ['must be a valid URL'],
      } })
      const notUrl = await t.api('PUT', `${projectBase()}/${projectBadgeId}`, { token: m.tokens.maintainer, body: { image_url: 'not a url' } })
      assert.equal(notUrl.status, 400)
      assert.deepEqual(notUrl.body, { message: { image_url: ['is blocked: URI is invalid'] } })
      const missing = await t.api('POST', projectBase(), { token: m.tokens.maintainer, body: { link_url: 'https://example.com' } })
      assert.equal(missing.status, 400)
    })

    it('renders URLs without saving them (admins of the project)', async () => {
      const query = { link_url: 'https://example.com/%{project_id}', image_url: 'https://example.com/%{unknown}/%{default_branch}' }
      const res = await t.api('GET', `${projectBase()}/render`, { token: m.tokens.maintainer, query })
      assert.equal(res.status, 200, res.text)
      assert.deepEqual(res.body, {
        link_url: query.link_url, image_url: query.image_url,
        rendered_link_url: `https://example.com/${m.project.id}`, rendered_image_url: 'https://example.com/%{unknown}/master',
      })
      assert.equal((await t.api('GET', `${projectBase()}/render`, { token: m.tokens.developer, query })).status, 403)
      assert.equal((await t.api('GET', `${projectBase()}/render`, { token: m.tokens.maintainer, query: { link_url: 'ftp://x', image_url: 'https://x' } })).status, 400)
    })

    it('updates a badge; a group\'s badge only on its group', async () => {
      const res = await t.api('PUT', `${projectBase()}/${projectBadgeId}`, { token: m.tokens.maintainer, body: { link_url: 'https://example.org/' } })
      assert.equal(res.status, 200, res.text)
      assert.equal(res.body.link_url, 'https://example.org/')
      assert.match(res.body.image_url, /%\{commit_sha\}/)
      assert.equal((await t.api('PUT', `${projectBase()}/${projectBadgeId}`, { token: m.tokens.developer, body: { link_url: 'https://x.org' } })).status, 403)
      const viaProject = await t.api('PUT', `${projectBase()}/${groupBadgeId}`, { token: m.tokens.owner, body: { link_url: 'https://x.org' } })
      assert.equal(viaProject.status, 403)
      const onGroup = await t.api('PUT', `${groupBase()}/${groupBadgeId}`, { token: m.tokens.owner, body: { link_url: 'https://x.org' } })
      assert.equal(onGroup.status, 200, onGroup.text)
    })

    it('deletes a badge with 204; a group\'s badge only on its group', async () => {
      const viaProject = await t.api('DELETE', `${projectBase()}/${groupBadgeId}`, { token: m.tokens.owner })
      assert.equal(viaProject.status, 403)
      assert.deepEqual(viaProject.body, { message: '403 Forbidden - To delete a Group badge please use the Group endpoint' })
      assert.equal((await t.api('DELETE', `${projectBase()}/${projectBadgeId}`, { token: m.tokens.developer })).status, 403)
      assert.equal((await t.api('DELETE', `${projectBase()}/${projectBadgeId}`, { token: m.tokens.maintainer })).status, 204)
      assert.equal((await t.api('DELETE', `${groupBase()}/${groupBadgeId}`, { token: m.tokens.owner })).status, 204)
      assert.deepEqual((await t.api('GET', projectBase())).body, [])
      assert.equal((await t.api('DELETE', `${projectBase()}/${projectBadgeId}`, { token: m.tokens.maintainer })).status, 404)
    })
  })
})
