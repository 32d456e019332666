// Project export and import at scale (BENCH_PARTS=import-export), on each database: a project with
// the M repository (20,000 commits) and BENCH_EXPORT_ISSUES issues (100,000) with three comments each.
//   - Export through the API (POST …/export until GET …/export says finished) beside its floor
//     measured in the same run: `git bundle create --all` of the repository plus writing the same
//     project.json (parsed from the export) with a streaming writer; and the server's memory growth.
//   - Import of that archive through POST /projects/import until GET …/import says finished, the
//     server re-pinned to both cores: issues with their comments per second over the whole import
//     and over the tree restore alone, and the server's memory growth; beside it, what the
//     repository alone costs (`git fetch` of the archive's bundle into an empty repository).
import fs from 'node:fs'
import { pipeline } from 'node:stream/promises'
import { Readable } from 'node:stream'
import { once } from 'node:events'
import { createGunzip } from 'node:zlib'
import os from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { execFile, type ChildProcess } from 'node:child_process'
import { promisify } from 'node:util'
import tar from 'tar-stream'
import { runGit } from '../src/git/command.js'
import { RepositoryStorage } from '../src/git/storage.js'
import { openDatabase } from '../src/db/index.js'
import { ensureFixtures } from './git-fixtures.js'
import { seedIssueNotes, seedIssues } from './issues-seed.js'
import { benchDatabase, cpuOf, log, ROOT_TOKEN, rssOf, type Row, startBuiltServer, stop } from './harness.js'

const ISSUES = Number(process.env.BENCH_EXPORT_ISSUES ?? 100_000)
const NOTES_PER_ISSUE = 3
const EXPORT_RATIO_TARGET = 1.5
const EXPORT_RSS_TARGET_MB = 50
const IMPORT_RATE_TARGET = 5_000
const IMPORT_RSS_TARGET_MB = 80
const WAIT_LIMIT_MS = 30 * 60_000

export async function measureImportExport(dialects: readonly ('sqlite' | 'postgres')[]): Promise<Row[]> {
  const rows: Row[] = []
  for (const dialect of dialects) rows.push(...await measureDialect(dialect))
  return rows
}

async function measureDialect(dialect: 'sqlite' | 'postgres'): Promise<Row[]> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), `ingot-bench-import-export-${dialect}-`))
  const dataDir = path.join(work, 'data')
  const database = await benchDatabase(dialect, 'import_export_')
  const port = 18_560 + (dialect === 'sqlite' ? 0 : 1)
  const base = `http://127.0.0.1:${port}`
  let server: ChildProcess | null = null
  try {
    fs.mkdirSync(dataDir)
    server = await startBuiltServer({
      INGOT_DATA_DIR: dataDir, INGOT_DATABASE_URL: database.url, INGOT_ROOT_TOKEN: ROOT_TOKEN,
      INGOT_LOG_LEVEL: 'warn', INGOT_PORT: String(port), INGOT_EXTERNAL_URL: base,
    })
    const serverPid = server.pid!
    const api = async (method: string, url: string, body?: unknown): Promise<any> => {
      const res = await fetch(`${base}/api/v4${url}`, {
        method, headers: { 'private-token': ROOT_TOKEN, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
      })
      const text = await res.text()
      if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text.slice(0, 300)}`)
      return text === '' ? null : JSON.parse(text)
    }
    await api('PUT', '/application/settings', { max_import_size: 0 })
    const root = await api('GET', '/user') as { id: number; username: string }
    const project = await api('POST', '/projects', { name: 'bench-export' }) as { id: number }
    const { M } = await ensureFixtures()
    log(`[import-export ${dialect}] pushing M, seeding ${ISSUES} issues with ${NOTES_PER_ISSUE} comments each`)
    await runGit(['--git-dir', M, 'push', '--quiet', `${base}/${root.username}/bench-export.git`.replace('http://', `http://${root.username}:${ROOT_TOKEN}@`), 'refs/heads/master:refs/heads/master'], { timeoutMs: 600_000 })
    const handle = await openDatabase({ databaseUrl: database.url, dataDir })
    try {
      await seedIssues(handle.db, project.id, root.id, ISSUES)
      await seedIssueNotes(handle.db, project.id, root.id, NOTES_PER_ISSUE)
    } finally {
      await handle.close()
    }
    // A maintained repository, as the floor's bundle finds it: housekept (one pack with bitmaps);
    // 409 when the push started its housekeeping itself.
    const housekeeping = await fetch(`${base}/api/v4/projects/${project.id}/housekeeping`, { method: 'POST', headers: { 'private-token': ROOT_TOKEN } })
    if (housekeeping.status !== 201 && housekeeping.status !== 409) throw new Error(`housekeeping: ${housekeeping.status} ${await housekeeping.text()}`)
    const packDir = path.join(dataDir, 'repositories', `${RepositoryStorage.diskPath(project.id)}.git`, 'objects', 'pack')
    await until(async () => fs.readdirSync(packDir).some((file) => file.endsWith('.bitmap')), 'the repository has bitmaps')
    await untilIdle(serverPid)

    // Export.
    let rssBefore = rssOf(serverPid)
    let rssPeak = rssBefore
    let started = performance.now()
    await api('POST', `/projects/${project.id}/export`)
    await until(async () => {
      rssPeak = Math.max(rssPeak, rssOf(serverPid))
      return (await api('GET', `/projects/${project.id}/export`)).export_status === 'finished'
    }, 'the export finished')
    const exportMs = performance.now() - started
    const exportGrowth = rssPeak - rssBefore
    const archive = path.join(work, 'export.tar.gz')
    const download = await fetch(`${base}/api/v4/projects/${project.id}/export/download`, { headers: { 'private-token': ROOT_TOKEN } })
    if (download.status !== 200 || download.body === null) throw new Error(`export download: ${download.status}`)
    await pipeline(Readable.fromWeb(download.body as import('node:stream/web').ReadableStream), fs.createWriteStream(archive))

    const bundleMs = await timedMs(() => runGit(['bundle', 'create', path.join(work, 'floor.bundle'), '--all'],
      { gitDir: path.join(dataDir, 'repositories', `${RepositoryStorage.diskPath(project.id)}.git`), timeoutMs: 600_000 }))
    const treeFile = path.join(work, 'project.json')
    await extractMember(archive, 'project.json', treeFile)
    const tree = JSON.parse(fs.readFileSync(treeFile, 'utf8')) as Record<string, unknown>
    const jsonMs = await timedMs(() => writeStreaming(tree, path.join(work, 'floor.json')))
    const floorMs = bundleMs + jsonMs
    const rows: Row[] = [{
      metric: `${dialect}: export of M and ${ISSUES.toLocaleString('en')} issues with ${(ISSUES * NOTES_PER_ISSUE).toLocaleString('en')} comments (${mb(fs.statSync(archive).size)} archive), beside \`git bundle create --all\` + writing the same project.json (${mb(fs.statSync(treeFile).size)}) streaming`,
      value: `${seconds(exportMs)} = ${(exportMs / floorMs).toFixed(2)}× (${seconds(bundleMs)} + ${seconds(jsonMs)}); server RSS +${exportGrowth.toFixed(0)} MB`,
      target: `≤ ${EXPORT_RATIO_TARGET}×, RSS growth ≤ ${EXPORT_RSS_TARGET_MB} MB`,
      ok: exportMs <= floorMs * EXPORT_RATIO_TARGET && exportGrowth <= EXPORT_RSS_TARGET_MB,
    }]

    // Import: the server may use both cores from here on (the export above ran on CPU 0 alone), so
    // that git indexing the bundle runs beside the tree restore as on any server with two cores;
    // git's children started from now on inherit it.
    await untilIdle(serverPid)
    await runCommand('taskset', ['-a', '-p', '-c', '0,1', String(serverPid)])
    rssBefore = rssOf(serverPid)
    rssPeak = rssBefore
    started = performance.now()
    const form = new FormData()
    form.set('path', 'bench-imported')
    form.set('namespace', root.username)
    form.set('file', await fs.openAsBlob(archive), 'export.tar.gz')
    const posted = await fetch(`${base}/api/v4/projects/import`, { method: 'POST', headers: { 'private-token': ROOT_TOKEN }, body: form })
    if (posted.status !== 201) throw new Error(`POST /projects/import: ${posted.status} ${await posted.text()}`)
    const imported = await posted.json() as { id: number }
    // The tree restore's own rate, from the issues the database holds at each poll: from the first
    // poll that sees some to the first that sees them all (each restore transaction commits
    // issues with their comments).
    const reader = await openDatabase({ databaseUrl: database.url, dataDir })
    type Seen = { at: number; issues: number }
    const restored: { first: Seen | null; last: Seen | null } = { first: null, last: null }
    try {
      await until(async () => {
        rssPeak = Math.max(rssPeak, rssOf(serverPid))
        const state = await api('GET', `/projects/${imported.id}/import`) as { import_status: string; import_error?: string }
        if (state.import_status === 'failed') throw new Error(`the import failed: ${state.import_error}`)
        if (restored.last === null) {
          const at = performance.now()
          const { count } = await reader.db.selectFrom('issues').select((eb) => eb.fn.countAll<number>().as('count'))
            .where('project_id', '=', imported.id).executeTakeFirstOrThrow()
          const issues = Number(count)
          if (issues > 0 && restored.first === null) restored.first = { at, issues }
          if (issues === ISSUES) restored.last = { at, issues }
        }
        return state.import_status === 'finished'
      }, 'the import finished')
    } finally {
      await reader.close()
    }
    const importMs = performance.now() - started
    const importGrowth = rssPeak - rssBefore
    const { first, last } = restored
    const treeRate = first === null || last === null || last.at === first.at ? null : (last.issues - first.issues) / ((last.at - first.at) / 1000)
    const issues = await fetch(`${base}/api/v4/projects/${imported.id}/issues?per_page=1&state=all`, { headers: { 'private-token': ROOT_TOKEN } })
    const total = Number(issues.headers.get('x-total'))
    await issues.arrayBuffer()
    if (total !== ISSUES) throw new Error(`the imported project has ${total} issues, not ${ISSUES}`)
    const rate = ISSUES / (importMs / 1000)
    // What any import of the repository costs: git indexing the bundle's pack into an empty
    // repository (its objects hashed, its deltas resolved) and checking its connectivity.
    const floorRepository = path.join(work, 'floor-import.git')
    await extractMember(archive, 'project.bundle', path.join(work, 'import.bundle'))
    await runGit(['init', '--quiet', '--bare', floorRepository])
    const repositoryMs = await timedMs(() => runGit(['fetch', '--quiet', '--no-tags', path.join(work, 'import.bundle'), '+refs/*:refs/*'],
      { gitDir: floorRepository, timeoutMs: 600_000 }))
    rows.push({
      metric: `${dialect}: import of that archive (POST /projects/import until finished; the server on CPUs 0 and 1, the export on CPU 0 alone), beside \`git fetch\` of its project.bundle into an empty repository`,
      value: `${seconds(importMs)}: ${Math.round(rate)} issues with their comments/s; the tree restore alone ${treeRate === null ? 'not seen' : `${Math.round(treeRate)}/s`} (the repository alone: ${seconds(repositoryMs)}); server RSS +${importGrowth.toFixed(0)} MB`,
      target: dialect === 'sqlite' ? `≥ ${IMPORT_RATE_TARGET}/s, RSS growth ≤ ${IMPORT_RSS_TARGET_MB} MB` : `RSS growth ≤ ${IMPORT_RSS_TARGET_MB} MB`,
      ok: (dialect === 'postgres' || rate >= IMPORT_RATE_TARGET) && importGrowth <= IMPORT_RSS_TARGET_MB,
    })
    return rows
  } finally {
    if (server !== null) await stop(server)
    fs.rmSync(work, { recursive: true, force: true })
    await database.drop()
  }
}

const runCommand = promisify(execFile)

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`

async function timedMs(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now()
  await work()
  return performance.now() - started
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (const deadline = Date.now() + WAIT_LIMIT_MS; !(await check());) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`)
    await sleep(100)
  }
}

/** Waits until the server has used under 5% of a CPU for a second (the push's and seed's jobs are done). */
async function untilIdle(pid: number): Promise<void> {
  for (let previous = cpuOf(pid).self; ;) {
    await sleep(1000)
    const now = cpuOf(pid).self
    if (now - previous < 0.05) return
    previous = now
  }
}

/** Writes one member of a .tar.gz (named with or without `./`) to `target`. */
async function extractMember(archive: string, name: string, target: string): Promise<void> {
  const extract = tar.extract()
  let found = false
  extract.on('entry', (header, stream, next) => {
    if (header.name.replace(/^\.\//, '') !== name) {
      stream.on('end', next)
      stream.resume()
      return
    }
    found = true
    pipeline(stream, fs.createWriteStream(target)).then(() => next(), next)
  })
  await pipeline(fs.createReadStream(archive), createGunzip(), extract)
  if (!found) throw new Error(`no ${name} in the archive`)
}

/** The floor's writer: the object's keys one by one, each array item by item, through a file stream. */
async function writeStreaming(tree: Record<string, unknown>, target: string): Promise<void> {
  const out = fs.createWriteStream(target)
  const write = async (text: string) => { if (!out.write(text)) await once(out, 'drain') }
  let first = true
  await write('{')
  for (const [key, value] of Object.entries(tree)) {
    await write(`${first ? '' : ','}${JSON.stringify(key)}:`)
    first = false
    if (!Array.isArray(value)) {
      await write(JSON.stringify(value))
      continue
    }
    await write('[')
    for (let i = 0; i < value.length; i++) await write(`${i === 0 ? '' : ','}${JSON.stringify(value[i])}`)
    await write(']')
  }
  await write('}')
  out.end()
  await once(out, 'finish')
}
