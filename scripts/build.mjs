// `npm run build`: bundles the `ingot` command into dist/main.js with esbuild. One file loads far
// faster than Node resolving and linking the thousand modules of its dependencies one by one, which
// is most of a cold start. Native addons stay outside the bundle and load from node_modules.
// Type checking is `npm run typecheck` (part of `npm test`). The web pages' static files are
// copied beside the bundle (dist/assets/), where web/assets.ts looks for them once built.
import { cp, rm } from 'node:fs/promises'
import { build } from 'esbuild'

await build({
  entryPoints: ['src/main.ts'],
  outfile: 'dist/main.js',
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

await rm('dist/assets', { recursive: true, force: true })
await cp('src/web/assets', 'dist/assets', { recursive: true })
