// Start-up (module evaluation, then route and schema compilation) allocates in a burst that makes V8
// grow the young generation to its largest (2 × 16 MiB semi-spaces), and an idle server keeps it:
// about 28 MB of the idle process. Evaluated first (main.ts imports it before anything else), this
// module holds the young generation at its first size until the server is up; growth is allowed
// again then, so a server under load sizes it as before. A young-generation flag given to node
// (`--max-semi-space-size`, `--semi-space-growth-factor`, also through NODE_OPTIONS) is left alone.
import v8 from 'node:v8'

/** V8's own default (Node 20): each growth doubles the semi-spaces. */
const DEFAULT_GROWTH_FACTOR = 2

const userSetsYoungGeneration = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((option) => option.includes('semi-space') || option.includes('semi_space'))

if (!userSetsYoungGeneration) v8.setFlagsFromString('--semi-space-growth-factor=1')

/** Called once `web` or `worker` has started: the young generation grows again when the load asks (other commands are short, or the runner, small). */
export function endStartUp(): void {
  if (!userSetsYoungGeneration) v8.setFlagsFromString(`--semi-space-growth-factor=${DEFAULT_GROWTH_FACTOR}`)
}
