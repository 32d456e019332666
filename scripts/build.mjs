// `npm run build`: bundles the `ingot` command into dist/main.js with esbuild. One file loads far
// faster than Node resolving and linking the thousand modules of its dependencies one by one, which
// is most of a cold start. Native addons stay outside the bundle and load from node_modules.
// Type checking is `npm run typecheck` (part of `npm test`). The web pages' static files are not
// bundled: web/assets.ts reads them from src/web/assets/ of the checkout the bundle lies in.
//
//   node scripts/build.mjs [--outfile FILE]   FILE defaults to dist/main.js; the tests build their
//                                             own beside it (test/helpers/ingot-command.ts)
import { readFileSync, writeFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { build } from 'esbuild'

const { values: options } = parseArgs({ options: { outfile: { type: 'string', default: 'dist/main.js' }, help: { type: 'boolean' } } })
if (options.help) {
  console.log('Usage: node scripts/build.mjs [--outfile FILE]\nBundles src/main.ts into FILE (default dist/main.js) with esbuild.')
  process.exit(0)
}

await build({
  entryPoints: ['src/main.ts'],
  outfile: options.outfile,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  sourcemap: true,
  legalComments: 'none',
  // Whitespace and syntax minified (names kept, so stack traces still name their functions): V8
  // parses less at every start and holds a smaller source and fewer compiled functions.
  minifyWhitespace: true,
  minifySyntax: true,
  // pino-pretty is loaded only for a terminal (logger.ts): kept out, the JSON path never parses it.
  // ssh2 loads its optional native addons (sshcrypto, cpu-features) from node_modules when built.
  external: ['better-sqlite3', '@node-rs/argon2', 'pg-native', 'pino-pretty', 'ssh2'],
  // Bundled CommonJS dependencies call require(); give the ES module bundle one.
  banner: { js: "import { createRequire as __ingotCreateRequire } from 'node:module'; const require = __ingotCreateRequire(import.meta.url);" },
  logLevel: 'warning',
})

// V8 holds a script with any character beyond Latin-1 as a two-byte string: 10 MB for this 5 MB
// bundle, for the process's whole life. esbuild escapes such characters everywhere but in tagged
// templates (the web pages' html``, whose cooked strings they use) and regular expressions; escaping
// those too keeps their meaning and the source one byte a character.
const bundle = readFileSync(options.outfile, 'utf8')
writeFileSync(options.outfile, bundle.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`))

