// The commit a checkout (a work tree, such as Ingot's own installation) has checked out, to tell
// which Ingot runs. Never used on the repositories Ingot hosts, which are bare.
import { runGit } from './command.js'

/** The abbreviated id of the commit HEAD names in the checkout at `dir`; rejects outside a checkout. */
export async function checkedOutRevision(dir: string): Promise<string> {
  return (await runGit(['-C', dir, 'rev-parse', '--short', 'HEAD'], { timeoutMs: 5000 })).trim()
}
