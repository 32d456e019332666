// Regular expressions from CI files (`only: [/^release-.*$/]`, `$VAR =~ /x/`), run safely. The
// original ran ref patterns with Ruby's backtracking engine and expressions with RE2; JavaScript's
// engine backtracks, so `/(a+)+$/` against a long name could hold the event loop for hours. Each
// match therefore runs in a separate V8 context under a time limit (V8 interrupts a regular
// expression mid-backtrack), on a capped pattern and input; a match cut short counts as no match.
import vm from 'node:vm'

const MAX_PATTERN_LENGTH = 1024
const MAX_INPUT_LENGTH = 256 * 1024
/**
 * Far above any honest match (microseconds), and above the stalls of a busy process: at 100 ms a
 * loaded machine cut plain matches short now and then, which would drop a job from a pipeline.
 */
const TIME_LIMIT_MS = 1000

const sandbox = vm.createContext({ pattern: '', flags: '', input: '' })
const runTest = new vm.Script('new RegExp(pattern, flags).test(input)')

/** Whether `source` compiles as a regular expression (compiling never backtracks). */
export function isValidRegExp(source: string, flags = ''): boolean {
  if (source.length > MAX_PATTERN_LENGTH) return false
  try {
    new RegExp(source, flags)
    return true
  } catch {
    return false
  }
}

/** Whether `source` matches somewhere in `input`; false when it cannot compile or runs too long. */
export function safeRegExpTest(source: string, flags: string, input: string): boolean {
  if (!isValidRegExp(source, flags) || input.length > MAX_INPUT_LENGTH) return false
  Object.assign(sandbox, { pattern: source, flags, input })
  try {
    return runTest.runInContext(sandbox, { timeout: TIME_LIMIT_MS }) === true
  } catch {
    return false
  } finally {
    // Not kept alive between matches: an input may be a quarter of a megabyte.
    sandbox.input = ''
  }
}

/** `/body/flags` → its parts, with the flags JavaScript shares with the original (i, m, s); null otherwise. */
export function parseSlashedRegExp(text: string): { source: string; flags: string } | null {
  const match = /^\/(.+)\/([a-zA-Z]*)$/s.exec(text)
  if (match === null) return null
  const flags = [...new Set(match[2]!.replace(/[^ims]/g, ''))].join('')
  return { source: match[1]!, flags }
}
