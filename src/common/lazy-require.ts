// Packages a server seldom needs (the CI file's YAML parser, the safe regular expressions, the
// archive formats) are required at their first use, not at start, so that an idle process holds
// neither their code nor what their modules build when evaluated. They load from node_modules
// through their CommonJS builds, synchronously, so the functions that use them stay as they are.
import { createRequire } from 'node:module'

const requireCommonJs = createRequire(import.meta.url)

/** A function returning the package (required at its first call, then kept). */
export function lazyRequire<T>(specifier: string): () => T {
  let loaded: T | undefined
  return () => (loaded ??= requireCommonJs(specifier) as T)
}
