// Start-up (module evaluation, then route and schema compilation) leaves memory behind that an idle
// server never uses again; this module holds two things back until the server is up, and lets them go
// then, so a server under load runs as before. Flags of the same things given to node (also through
// NODE_OPTIONS) are left alone.
//   - The young generation: start-up allocates in a burst that makes V8 grow it to its largest
//     (2 × 16 MiB semi-spaces), and an idle server keeps it: about 28 MB. Evaluated first (main.ts
//     imports this module before anything else), it is held at its first size from here
//     (`--max-semi-space-size`, `--semi-space-growth-factor` given are left alone).
//   - TurboFan, V8's optimizing compiler: start-up runs its code (route and schema compilation) often
//     enough for V8 to optimize much of it, code that serving seldom runs again, and the compiler's
//     working memory stays with malloc, its own code in the resident part of the node binary: about
//     8 MB of the idle process. Held from holdOptimizingCompiler(), called before the server's
//     modules load (`--turbofan`, `--opt`, `--jitless` and the like given are left alone); start-up
//     is no slower without it (the interpreter and the baseline compiler run it once).
import v8 from 'node:v8'

/** V8's own default (Node 20): each growth doubles the semi-spaces. */
const DEFAULT_GROWTH_FACTOR = 2

const givenOptions = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].map((option) => option.replaceAll('_', '-'))
const userSetsYoungGeneration = givenOptions.some((option) => option.includes('semi-space'))
const userSetsOptimizingCompiler = givenOptions.some((option) => /^--(no-)?(turbofan|opt|max-opt|always-opt|always-turbofan|jitless)(=|$)/.test(option))

if (!userSetsYoungGeneration) v8.setFlagsFromString('--semi-space-growth-factor=1')

let optimizingCompilerHeld = false

/** Called before `web`, `worker` or `migrate` loads the server's modules: no optimized code until endStartUp. */
export function holdOptimizingCompiler(): void {
  if (userSetsOptimizingCompiler) return
  v8.setFlagsFromString('--no-turbofan')
  optimizingCompilerHeld = true
}

/** Called once `web` or `worker` has started: the young generation grows again when the load asks (other commands are short, or the runner, small), and hot code is optimized again. */
export function endStartUp(): void {
  if (!userSetsYoungGeneration) v8.setFlagsFromString(`--semi-space-growth-factor=${DEFAULT_GROWTH_FACTOR}`)
  if (optimizingCompilerHeld) v8.setFlagsFromString('--turbofan')
  optimizingCompilerHeld = false
}
