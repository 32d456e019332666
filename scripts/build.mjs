// `npm run build`: bundles the `ingot` command into dist/main.js with esbuild. One file loads far
// faster than Node resolving and linking the thousand modules of its dependencies one by one, which
// is most of a cold start. Native addons stay outside the bundle and load from node_modules.
// Type checking is `npm run typecheck` (part of `npm test`). The web pages' static files are not
// bundled: web/assets.ts reads them from src/web/assets/ of the checkout the bundle lies in.
//
// The bundle is split (esbuild's `splitting`): what a command reaches only through `import()` (the
// server behind `web`/`worker`/`migrate`, the admin commands, the runner, the subsystems loaded at
// their first use) lies in chunks beside the entry (main.<name>-<hash>.js), loaded when first
// imported. So `ingot runner` and `ingot --help` never read the server's code, and a server never
// holds the source of what it has not used. The chunks lie in the entry's own folder, so that
// `import.meta.url` means the same folder in every module.
//
//   node scripts/build.mjs [--outfile FILE]   FILE defaults to dist/main.js; the tests build their
//                                             own beside it (test/helpers/ingot-command.ts); the
//                                             chunks are FILE's name without .js, then .<name>-<hash>.js
import fs from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { build } from 'esbuild'

const { values: options } = parseArgs({ options: { outfile: { type: 'string', default: 'dist/main.js' }, help: { type: 'boolean' } } })
if (options.help) {
  console.log('Usage: node scripts/build.mjs [--outfile FILE]\nBundles src/main.ts into FILE (default dist/main.js) and its chunks beside it (FILE without .js, then .<name>-<hash>.js) with esbuild.')
  process.exit(0)
}

const outdir = path.dirname(options.outfile)
const entryName = path.basename(options.outfile).replace(/\.js$/, '')
const chunkPrefix = `${entryName}.`
const entryFiles = new Set([`${entryName}.js`, `${entryName}.js.map`])

// The chunks of an earlier build of this entry go: their names change with their contents.
fs.mkdirSync(outdir, { recursive: true })
for (const name of fs.readdirSync(outdir)) {
  if (name.startsWith(chunkPrefix) && !entryFiles.has(name)) fs.rmSync(path.join(outdir, name), { force: true })
}

const result = await build({
  entryPoints: { [entryName]: 'src/main.ts' },
  outdir,
  chunkNames: `${entryName}.[name]-[hash]`,
  splitting: true,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  sourcemap: true,
  legalComments: 'none',
  metafile: true,
  // Whitespace and syntax minified (names kept, so stack traces still name their functions): V8
  // parses less at every start and holds a smaller source and fewer compiled functions.
  minifyWhitespace: true,
  minifySyntax: true,
  // pino-pretty is loaded only for a terminal (logger.ts): kept out, the JSON path never parses it.
  // ssh2 loads its optional native addons (sshcrypto, cpu-features) from node_modules when built.
  // cron-parser: pg-boss's and Ingot's (common/cron.ts) must be one, over the luxon whose defaults
  // cron.ts sets, as it is when both are required from node_modules.
  external: ['better-sqlite3', '@node-rs/argon2', 'pg-native', 'pino-pretty', 'ssh2', 'cron-parser'],
  // Bundled CommonJS dependencies call require(); give each ES module file one.
  banner: { js: "import { createRequire as __ingotCreateRequire } from 'node:module'; const require = __ingotCreateRequire(import.meta.url);" },
  logLevel: 'warning',
})

// V8 holds a script with any character beyond Latin-1 as a two-byte string for the process's whole
// life: twice the bytes. esbuild escapes such characters everywhere but in tagged templates (the
// web pages' html``, whose cooked strings they use) and regular expressions; escaping those too
// keeps their meaning and each file's source one byte a character.
for (const file of Object.keys(result.metafile.outputs)) {
  if (!file.endsWith('.js')) continue
  const code = fs.readFileSync(file, 'utf8')
  if (/[^\x00-\x7f]/.test(code)) fs.writeFileSync(file, code.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`))
}
