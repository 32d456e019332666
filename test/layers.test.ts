// The layers point down only (DESIGN.md): below HTTP nothing imports from src/api or src/web or
// takes Fastify's request and reply; routes and pages run no SQL of their own; git command lines
// are built in src/git alone; the runner (src/runner) is a client of the runner protocol and imports
// nothing of the server. Read from the source itself, so a change that breaks a rule fails here.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const SRC = fileURLToPath(new URL('../src', import.meta.url))

/** Every .ts file under the folders (relative to src), with its text. */
async function sources(...folders: string[]): Promise<{ file: string; text: string }[]> {
  const files: { file: string; text: string }[] = []
  for (const folder of folders) {
    for (const name of await fs.readdir(path.join(SRC, folder), { recursive: true })) {
      if (!name.endsWith('.ts')) continue
      const file = path.join(SRC, folder, name)
      files.push({ file: path.relative(SRC, file), text: await fs.readFile(file, 'utf8') })
    }
  }
  return files
}

/** `file:line: text` of every line matching `pattern`. */
function offending(files: readonly { file: string; text: string }[], pattern: RegExp): string[] {
  return files.flatMap(({ file, text }) => text.split('\n').flatMap((line, i) => (pattern.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])))
}

const BELOW_HTTP = ['services', 'finders', 'entities', 'policies', 'auth', 'git', 'db', 'jobs', 'common']

describe('layers', () => {
  it('below HTTP, nothing imports from src/api or src/web', async () => {
    assert.deepEqual(offending(await sources(...BELOW_HTTP), /from '(\.\.\/)+(api|web)\//), [])
  })

  it("below HTTP, only the authentication plugin knows Fastify's request and reply", async () => {
    const files = (await sources(...BELOW_HTTP)).filter(({ file }) => file !== path.join('auth', 'authenticate.ts'))
    assert.deepEqual(offending(files, /FastifyRequest|FastifyReply/), [])
  })

  it('routes and pages run no SQL: their queries are finders and services', async () => {
    assert.deepEqual(offending(await sources('api', 'web'), /\b(selectFrom|updateTable|insertInto|deleteFrom)\(|\bsql[`<]|from 'kysely'/), [])
  })

  it('git command lines are built in src/git only', async () => {
    // The runner's git is a client's, cloning into a job's work directory; it cannot reach src/git (below).
    const outsideGit = (await sources('.')).filter(({ file }) => !file.startsWith(`git${path.sep}`) && !file.startsWith(`runner${path.sep}`))
    assert.deepEqual(offending(outsideGit, /\brepo\.(run|runBuffer)\(|\.run\(\[|\b(runGit|runGitBuffer|spawnGit)\b|node:child_process/), [])
  })

  it('the runner imports nothing of the server: only its own files, Node and packages', async () => {
    const files = await sources('runner')
    const imports = files.flatMap(({ file, text }) => [...text.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)].map((match) => ({ file, specifier: match[1]! })))
    assert.ok(imports.length > 0)
    const outside = imports.filter(({ file, specifier }) => {
      if (!specifier.startsWith('.')) return false // node: built-ins and packages
      const target = path.resolve(SRC, path.dirname(file), specifier)
      return !target.startsWith(path.join(SRC, 'runner') + path.sep)
    })
    assert.deepEqual(outside.map(({ file, specifier }) => `${file}: ${specifier}`), [])
  })
})
