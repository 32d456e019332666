// Regular expressions from CI files (`only: [/^release-.*$/]`, `$VAR =~ /x/`), matched with RE2
// (re2js, a pure-JavaScript port) as the original matched its untrusted patterns: linear time in
// the input whatever the pattern, so `/(a+)+$/` against a long name costs microseconds, not the
// event loop. RE2 has no backreferences or lookaround; a pattern that uses them does not compile
// and is reported as invalid by the lint. Patterns and inputs are capped all the same.
import type { RE2JS } from 're2js'
import { lazyRequire } from '../../../common/lazy-require.js'

const re2js = lazyRequire<typeof import('re2js')>('re2js')

const MAX_PATTERN_LENGTH = 1024
const MAX_INPUT_LENGTH = 256 * 1024
/** Compiled patterns kept: a pipeline asks the same few again and again. */
const MAX_COMPILED = 256

const compiled = new Map<string, RE2JS | null>()

/**
 * The RE2 pattern of `/source/flags`, null when it does not compile. Ruby's flags: `i` ignores
 * case, `m` lets `.` match a newline (JavaScript's `s`, also taken); `^` and `$` match at line
 * ends, as they always do in Ruby.
 */
function compile(source: string, flags: string): RE2JS | null {
  if (source.length > MAX_PATTERN_LENGTH) return null
  const key = `${flags}/${source}`
  const known = compiled.get(key)
  if (known !== undefined) return known
  const { RE2JS: Re2 } = re2js()
  let options = Re2.MULTILINE
  if (flags.includes('i')) options |= Re2.CASE_INSENSITIVE
  if (flags.includes('m') || flags.includes('s')) options |= Re2.DOTALL
  let pattern: RE2JS | null
  try {
    pattern = Re2.compile(source, options)
  } catch {
    pattern = null
  }
  if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!)
  compiled.set(key, pattern)
  return pattern
}

/** Whether `source` compiles as an RE2 regular expression. */
export function isValidRegExp(source: string, flags = ''): boolean {
  return compile(source, flags) !== null
}

/** Whether `source` matches somewhere in `input`; false when it cannot compile or the input is over the cap. */
export function safeRegExpTest(source: string, flags: string, input: string): boolean {
  const pattern = compile(source, flags)
  return pattern !== null && input.length <= MAX_INPUT_LENGTH && pattern.matcher(input).find()
}

/** `/body/flags` → its parts, with the flags the original's patterns take (i, m; s as JavaScript's m); null otherwise. */
export function parseSlashedRegExp(text: string): { source: string; flags: string } | null {
  const match = /^\/(.+)\/([a-zA-Z]*)$/s.exec(text)
  if (match === null) return null
  const flags = [...new Set(match[2]!.replace(/[^ims]/g, ''))].join('')
  return { source: match[1]!, flags }
}

/**
 * What Ruby's `line.scan(pattern).flatten.last` gives, as the original's coverage scan takes it:
 * the last match in `input` (its last group when the pattern has groups); null when nothing
 * matches, the group did not take part, the pattern does not compile or the input is over the cap.
 */
export function safeRegExpLastMatch(source: string, input: string): string | null {
  const pattern = compile(source, '')
  if (pattern === null || input.length > MAX_INPUT_LENGTH) return null
  const matcher = pattern.matcher(input)
  let last: string | null = null
  let found = false
  while (matcher.find()) {
    found = true
    last = matcher.group(matcher.groupCount())
  }
  return found ? last : null
}
