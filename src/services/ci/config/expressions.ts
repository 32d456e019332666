// `only: variables` / `except: variables` expressions as 11.5 knows them: one statement each, no
// `&&`, `||` or parentheses (those came in 12.0): `$VAR` (set and not blank), `$VAR == "x"`,
// `$A == $B`, `$VAR == null` (also with the operands swapped) and `$VAR =~ /re/i`; with the
// negations `!=` and `!~` of 11.11, which files written since take for granted.
import { safeRegExpTest } from './safe-regexp.js'

type Token =
  | { kind: 'variable'; name: string }
  | { kind: 'string'; value: string }
  | { kind: 'pattern'; source: string; flags: string }
  | { kind: 'null' }
  | { kind: 'equals' | 'not_equals' | 'matches' | 'not_matches' }

type Statement =
  | { kind: 'present'; variable: Token }
  | { kind: 'equals' | 'not_equals'; left: Token; right: Token }
  | { kind: 'matches' | 'not_matches'; variable: Token; pattern: Extract<Token, { kind: 'pattern' }> }

/** The original lexer's limit. */
const MAX_TOKENS = 100

const LEXEMES: readonly [RegExp, (match: RegExpExecArray) => Token][] = [
  [/\$(\w+)/y, (m) => ({ kind: 'variable', name: m[1]! })],
  [/"([^"]*)"|'([^']*)'/y, (m) => ({ kind: 'string', value: m[1] ?? m[2]! })],
  // A pattern ends the statement (nothing may follow it), so it runs to the last slash.
  [/\/(.+)\/([ismU]*)\s*$/sy, (m) => ({ kind: 'pattern', source: m[1]!, flags: m[2]!.replace(/[^ims]/g, '') })],
  [/null\b/y, () => ({ kind: 'null' })],
  [/==/y, () => ({ kind: 'equals' })],
  [/!=/y, () => ({ kind: 'not_equals' })],
  [/=~/y, () => ({ kind: 'matches' })],
  [/!~/y, () => ({ kind: 'not_matches' })],
]

function tokenize(text: string): Token[] | null {
  const tokens: Token[] = []
  let at = 0
  while (at < text.length) {
    const space = /\s+/y
    space.lastIndex = at
    if (space.test(text)) {
      at = space.lastIndex
      continue
    }
    let matched = false
    for (const [pattern, build] of LEXEMES) {
      pattern.lastIndex = at
      const match = pattern.exec(text)
      if (match === null) continue
      tokens.push(build(match))
      at = pattern.lastIndex
      matched = true
      break
    }
    if (!matched || tokens.length > MAX_TOKENS) return null
  }
  return tokens
}

const isOperand = (token: Token) => token.kind === 'variable' || token.kind === 'string' || token.kind === 'null'

function parse(text: string): Statement | null {
  const tokens = tokenize(text)
  if (tokens === null) return null
  const [first, operator, second] = tokens
  if (tokens.length === 1 && first!.kind === 'variable') return { kind: 'present', variable: first! }
  if (tokens.length !== 3) return null
  if ((operator!.kind === 'equals' || operator!.kind === 'not_equals') && isOperand(first!) && isOperand(second!)
    && (first!.kind === 'variable' || second!.kind === 'variable')) {
    return { kind: operator!.kind, left: first!, right: second! }
  }
  if ((operator!.kind === 'matches' || operator!.kind === 'not_matches') && first!.kind === 'variable' && second!.kind === 'pattern') {
    return { kind: operator!.kind, variable: first!, pattern: second! }
  }
  return null
}

/** Whether the statement is one the original's grammar takes. */
export function isValidExpression(text: string): boolean {
  return parse(text) !== null
}

function valueOf(token: Token, variables: Readonly<Record<string, string>>): string | null {
  if (token.kind === 'variable') return Object.hasOwn(variables, token.name) ? variables[token.name]! : null
  if (token.kind === 'string') return token.value
  return null
}

/** Whether the statement holds for these variables; an invalid statement never does. */
export function evaluateExpression(text: string, variables: Readonly<Record<string, string>>): boolean {
  const statement = parse(text)
  switch (statement?.kind) {
    case undefined: return false
    // Ruby's `present?`: a value of only spaces is as good as none.
    case 'present': return (valueOf(statement.variable, variables) ?? '').trim() !== ''
    case 'equals': return valueOf(statement.left, variables) === valueOf(statement.right, variables)
    case 'not_equals': return valueOf(statement.left, variables) !== valueOf(statement.right, variables)
    case 'matches': case 'not_matches': {
      const { source, flags } = statement.pattern
      const matches = safeRegExpTest(source, flags, valueOf(statement.variable, variables) ?? '')
      return statement.kind === 'matches' ? matches : !matches
    }
  }
}
