// `npm test`'s runner: the tests run as JavaScript compiled once, not through tsx. Each test file
// is a process of its own that imports the app's modules; through tsx's loader thread that costs
// about 3 s of CPU per file more than plain JavaScript, some ten minutes of a CI run.
//
// The compiled tree mirrors the checkout (node_modules/.cache/ingot/test-tree): src/ and test/ hold
// each module compiled beside a link to its source (the layers test reads the sources, and tests
// that start `src/main.ts` through tsx find it); everything else is a link to the checkout's. So
// paths relative to a module or to the working directory mean what they mean in the checkout.
//
//   node scripts/test.mjs [TEST_FILE.ts ...]   all of test/**/*.test.ts unless files are named
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { build } from 'esbuild'

const { positionals, values: options } = parseArgs({ allowPositionals: true, options: { help: { type: 'boolean' } } })
if (options.help) {
  console.log(`Usage: node scripts/test.mjs [TEST_FILE.ts ...]
Compiles src/ and test/ to JavaScript in node_modules/.cache/ingot/test-tree and runs the named test
files there (all of test/**/*.test.ts by default) with node --test, four files at a time.`)
  process.exit(0)
}

const ROOT = path.resolve(import.meta.dirname, '..')
const TREE = path.join(ROOT, 'node_modules', '.cache', 'ingot', 'test-tree')
/** Compiled module by module; every other top-level entry is linked whole. */
const COMPILED = ['src', 'test']
/** Not mirrored: the tree's own dist/ is where tests build their bundles of the command. */
const LEFT_OUT = new Set(['.git', 'node_modules', 'dist', ...COMPILED])

fs.rmSync(TREE, { recursive: true, force: true })
fs.mkdirSync(path.join(TREE, 'dist'), { recursive: true })
fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(TREE, 'node_modules'))
for (const entry of fs.readdirSync(ROOT)) {
  if (!LEFT_OUT.has(entry)) fs.symlinkSync(path.join(ROOT, entry), path.join(TREE, entry))
}

const modules = []
for (const folder of COMPILED) {
  for (const name of fs.readdirSync(path.join(ROOT, folder), { recursive: true })) {
    const source = path.join(ROOT, folder, name)
    const target = path.join(TREE, folder, name)
    if (fs.statSync(source).isDirectory()) {
      fs.mkdirSync(target, { recursive: true })
      continue
    }
    fs.symlinkSync(source, target)
    if (name.endsWith('.ts') && !name.endsWith('.d.ts')) modules.push(source)
  }
}

// Inline source maps, so a failure's stack names the TypeScript lines.
await build({
  entryPoints: modules, outdir: TREE, outbase: ROOT, format: 'esm', platform: 'node', target: 'node20',
  sourcemap: 'inline', logLevel: 'warning',
})

const named = positionals.length > 0
  ? positionals.map((file) => path.resolve(file))
  : fs.readdirSync(path.join(ROOT, 'test'), { recursive: true }).filter((name) => name.endsWith('.test.ts')).sort().map((name) => path.join(ROOT, 'test', name))
const testFiles = named.map((file) => path.join(TREE, path.relative(ROOT, file)).replace(/\.ts$/, '.js'))

const tests = spawn(process.execPath, ['--enable-source-maps', '--test', '--test-concurrency=4', ...testFiles], { cwd: TREE, stdio: 'inherit' })
tests.on('exit', (code, signal) => process.exit(code ?? (signal === null ? 1 : 128)))
