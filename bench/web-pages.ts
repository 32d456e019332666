// The web pages' benchmarks (BENCH_PARTS=web), on SQLite: one public project holding a README, a
// directory of 2,000 entries, a 5,000-line TypeScript file, an issue with 200 comments and a
// merge request adding 5,000 lines (50 files of 100: one file of 5,000 lines would be past the
// diff's per-file size limit, shown as "too large"), each page
//   - rendered one request at a time (as one visitor after another): p99, beside the floor route
//     sending the page's own precomputed bytes from the same process (bench/server.ts), both asked
//     with `accept-encoding: gzip` as browsers ask over plain HTTP;
//   - and the first visit's transfer: the page and every stylesheet and script it links, as
//     transferred to a browser accepting Brotli (as browsers ask over HTTPS).
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { load, log, ROOT_TOKEN, rootApi, startBenchServer, stop, type Row } from './harness.js'

const PORT = 18_530
const BASE = `http://127.0.0.1:${PORT}`
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const COMMENTS = 200
const LINES = 5_000
const TREE_ENTRIES = 2_000
const DIFF_FILES = 50
const RENDER_TARGET_MS = 30
const TRANSFER_TARGET_BYTES = 60 * 1024

/** Plausible TypeScript, every line different, so highlighting and compression do real work. */
function typescriptLines(count: number, seed: string): string {
  const lines: string[] = []
  for (let i = 0; i < count; i++) {
    switch (i % 5) {
      case 0: lines.push(`export function ${seed}${i}(input: string, limit = ${i % 97}): string[] {`); break
      case 1: lines.push(`  const parts = input.split(',').map((part) => part.trim()) // line ${i}`); break
      case 2: lines.push(`  if (parts.length > limit) throw new Error(\`too many parts: \${parts.length} > ${i}\`)`); break
      case 3: lines.push(`  return parts.filter((part) => part !== '${seed}-${i * 7 % 1000}')`); break
      default: lines.push('}')
    }
  }
  return `${lines.join('\n')}\n`
}

const README = `# Web bench

A project for measuring the pages: **Markdown** with a table, a task list and code.

| measure | target |
|---|---|
| render p99 | ≤ 30 ms |
| first visit | ≤ 60 KB |

- [x] a done item
- [ ] an open item

\`\`\`ts
const answer: number = 42
\`\`\`
`.repeat(4)

function git(args: readonly string[], cwd: string): void {
  execFileSync('git', [...args], { cwd, stdio: 'ignore', env: { ...process.env, GIT_AUTHOR_NAME: 'Bench', GIT_AUTHOR_EMAIL: 'bench@example.com', GIT_COMMITTER_NAME: 'Bench', GIT_COMMITTER_EMAIL: 'bench@example.com' } })
}

/** The repository pushed to the project: master with the README, big/ and src/long.ts; `feature` adding 50 files of 100 lines. */
function pushRepository(work: string, pathWithNamespace: string): void {
  const clone = path.join(work, 'clone')
  fs.mkdirSync(path.join(clone, 'big'), { recursive: true })
  fs.mkdirSync(path.join(clone, 'src'))
  git(['init', '--quiet', '--initial-branch=master'], clone)
  fs.writeFileSync(path.join(clone, 'README.md'), README)
  for (let i = 0; i < TREE_ENTRIES; i++) fs.writeFileSync(path.join(clone, 'big', `file-${String(i).padStart(5, '0')}.txt`), `entry ${i}\n`)
  fs.writeFileSync(path.join(clone, 'src', 'long.ts'), typescriptLines(LINES, 'parse'))
  git(['add', '.'], clone)
  git(['commit', '--quiet', '-m', 'Initial commit'], clone)
  git(['checkout', '--quiet', '-b', 'feature'], clone)
  fs.mkdirSync(path.join(clone, 'src', 'generated'))
  for (let i = 0; i < DIFF_FILES; i++) fs.writeFileSync(path.join(clone, 'src', 'generated', `parser-${i}.ts`), typescriptLines(LINES / DIFF_FILES, `generated${i}_`))
  git(['add', '.'], clone)
  git(['commit', '--quiet', '-m', 'Add the generated parsers'], clone)
  const url = `${BASE}/${pathWithNamespace}.git`.replace('http://', `http://root:${ROOT_TOKEN}@`)
  git(['push', '--quiet', url, 'master', 'feature'], clone)
}

/** The bytes a URL's answer takes on the wire, asked with `accept-encoding`; fails on a non-200. */
function transferredBytes(url: string, acceptEncoding: string): Promise<{ bytes: number; body: string }> {
  return new Promise((resolve, reject) => {
    http.get(url, { headers: { 'accept-encoding': acceptEncoding } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => {
        if (res.statusCode !== 200) return reject(new Error(`${url}: ${res.statusCode}`))
        const raw = Buffer.concat(chunks)
        const headerBytes = Object.entries(res.headers).reduce((sum, [name, value]) => sum + name.length + String(value).length + 4, 0)
        resolve({ bytes: raw.length + headerBytes, body: res.headers['content-encoding'] === undefined ? raw.toString() : '' })
      })
    }).on('error', reject)
  })
}

/** A page's first visit: the page and each stylesheet and script it links, as transferred with Brotli accepted. */
async function firstVisitBytes(pagePath: string): Promise<number> {
  const plain = await transferredBytes(`${BASE}${pagePath}`, 'identity')
  const assets = [...plain.body.matchAll(/(?:href|src)="(\/-\/assets\/[^"]+)"/g)].map((match) => match[1]!)
  let total = (await transferredBytes(`${BASE}${pagePath}`, 'gzip, deflate, br')).bytes
  for (const asset of new Set(assets)) total += (await transferredBytes(`${BASE}${asset}`, 'gzip, deflate, br')).bytes
  return total
}

export async function measureWebPages(): Promise<Row[]> {
  const rows: Row[] = []
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ingot-bench-web-'))
  const env = {
    INGOT_DATA_DIR: path.join(work, 'data'), INGOT_DATABASE_URL: '', INGOT_ROOT_TOKEN: ROOT_TOKEN, INGOT_LOG_LEVEL: 'warn',
    INGOT_PORT: String(PORT), INGOT_EXTERNAL_URL: BASE,
  }
  try {
    log('[web] seeding: a repository, an issue with 200 comments, a merge request adding 5,000 lines')
    let server = await startBenchServer({ ...env, BENCH_TARGETS: '[]' })
    let base: string
    try {
      const project = await rootApi(BASE, 'POST', '/projects', { name: 'web-bench', visibility: 'public' }) as { id: number; path_with_namespace: string }
      pushRepository(work, project.path_with_namespace)
      await rootApi(BASE, 'PUT', `/projects/${project.id}`, { default_branch: 'master' })
      const issue = await rootApi(BASE, 'POST', `/projects/${project.id}/issues`, { title: 'Pages are slow', description: README }) as { iid: number }
      for (let i = 0; i < COMMENTS; i++) {
        await rootApi(BASE, 'POST', `/projects/${project.id}/issues/${issue.iid}/notes`, { body: `Comment ${i}: see #${issue.iid} and \`parse${i}\`, **measured** on _this_ machine.` })
      }
      const mr = await rootApi(BASE, 'POST', `/projects/${project.id}/merge_requests`, { title: 'Generated parsers', source_branch: 'feature', target_branch: 'master' }) as { iid: number }
      base = `/${project.path_with_namespace}`
      const targets = [
        { name: 'overview', path: base },
        { name: 'tree', path: `${base}/tree/master/big` },
        { name: 'file', path: `${base}/blob/master/src/long.ts` },
        { name: 'issue', path: `${base}/issues/${issue.iid}` },
        { name: 'merge-request-diff', path: `${base}/merge_requests/${mr.iid}/diffs` },
      ]
      const headers = { 'accept-encoding': 'gzip' }
      await stop(server)
      server = await startBenchServer({ ...env, BENCH_TARGETS: JSON.stringify(targets.map((target) => ({ ...target, token: ROOT_TOKEN, headers }))) })
      const labels: Record<string, string> = {
        overview: 'the project overview (README rendered)',
        tree: `a tree of ${TREE_ENTRIES.toLocaleString('en')} entries`,
        file: `a ${LINES.toLocaleString('en')}-line file, highlighted`,
        issue: `an issue with ${COMMENTS} comments`,
        'merge-request-diff': `a merge request's diff of ${LINES.toLocaleString('en')} lines in ${DIFF_FILES} files`,
      }
      for (const target of targets) {
        // The first render fills the caches (highlighting by blob, Markdown); a person's second visit is the common case.
        await load(`${BASE}${target.path}`, { headers, seconds: 2, connections: 1 })
        const page = await load(`${BASE}${target.path}`, { headers, seconds: SECONDS, connections: 1 })
        const floor = await load(`${BASE}/-/floor/${target.name}`, { headers, seconds: SECONDS, connections: 1 })
        rows.push({
          metric: `web: ${labels[target.name]}, p50 / p99 one at a time (floor: its bytes precomputed)`,
          value: `${page.p50} / ${page.p99} ms (floor ${floor.p50} / ${floor.p99} ms)`, target: `p99 ≤ ${RENDER_TARGET_MS} ms`, ok: page.p99 <= RENDER_TARGET_MS,
        })
      }
      for (const target of [targets[0]!, targets[2]!]) {
        const bytes = await firstVisitBytes(target.path)
        rows.push({
          metric: `web: first visit of ${labels[target.name]}: page, stylesheets and scripts as transferred (Brotli)`,
          value: `${(bytes / 1024).toFixed(1)} KB`, target: `≤ ${TRANSFER_TARGET_BYTES / 1024} KB`, ok: bytes <= TRANSFER_TARGET_BYTES,
        })
      }
    } finally {
      await stop(server)
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true })
  }
  return rows
}
