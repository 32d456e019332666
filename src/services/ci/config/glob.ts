// Changed paths against `only: changes` globs, as Ruby's File.fnmatch? with FNM_PATHNAME,
// FNM_DOTMATCH and FNM_EXTGLOB (what the original 11.5 used): `*` and `?` stop at `/`, `**/` is
// any number of directories, `[a-z]` and `[!a]` classes, `{a,b}` alternatives, `\` escapes.
//
// Matched by walking every possible place in the pattern at once (an NFA), in time proportional
// to the path times the pattern, never by backtracking: a pattern is anyone's to push.

/** Alternatives a pattern's braces may expand into; beyond it the pattern matches nothing. */
const MAX_ALTERNATIVES = 256
const MAX_PATTERN_LENGTH = 1024

type Step =
  | { kind: 'char'; char: string }
  | { kind: 'any' } // ?
  | { kind: 'star' } // * (not across /)
  | { kind: 'directories' } // **/ : nothing, or anything ending in /
  | { kind: 'class'; negated: boolean; ranges: [string, string][] }

/** `{a,b}c` → [`ac`, `bc`], innermost braces first; null when there would be too many. */
function expandBraces(pattern: string): string[] | null {
  let results = [pattern]
  for (;;) {
    const next: string[] = []
    let expanded = false
    for (const text of results) {
      const brace = innermostBrace(text)
      if (brace === null) {
        next.push(text)
        continue
      }
      expanded = true
      const [open, close] = brace
      for (const option of splitOptions(text.slice(open + 1, close))) next.push(text.slice(0, open) + option + text.slice(close + 1))
      if (next.length > MAX_ALTERNATIVES) return null
    }
    results = next
    if (!expanded) return results
  }
}

/** The first `{…}` without braces inside, skipping escaped characters. */
function innermostBrace(text: string): [number, number] | null {
  let open = -1
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\') i += 1
    else if (text[i] === '{') open = i
    else if (text[i] === '}' && open >= 0) return [open, i]
  }
  return null
}

function splitOptions(body: string): string[] {
  const options: string[] = []
  let start = 0
  for (let i = 0; i < body.length; i++) {
    if (body[i] === '\\') i += 1
    else if (body[i] === ',') {
      options.push(body.slice(start, i))
      start = i + 1
    }
  }
  options.push(body.slice(start))
  return options
}

function compile(pattern: string): Step[] {
  const steps: Step[] = []
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!
    if (char === '\\' && i + 1 < pattern.length) {
      steps.push({ kind: 'char', char: pattern[++i]! })
    } else if (char === '*') {
      let end = i
      while (pattern[end + 1] === '*') end += 1
      const atSegmentStart = i === 0 || pattern[i - 1] === '/'
      if (end > i && atSegmentStart && pattern[end + 1] === '/') {
        steps.push({ kind: 'directories' })
        end += 1
      } else {
        steps.push({ kind: 'star' })
      }
      i = end
    } else if (char === '?') {
      steps.push({ kind: 'any' })
    } else if (char === '[') {
      const parsed = parseClass(pattern, i)
      if (parsed === null) steps.push({ kind: 'char', char })
      else {
        steps.push(parsed.step)
        i = parsed.end
      }
    } else {
      steps.push({ kind: 'char', char })
    }
  }
  return steps
}

function parseClass(pattern: string, open: number): { step: Step; end: number } | null {
  let i = open + 1
  const negated = pattern[i] === '!' || pattern[i] === '^'
  if (negated) i += 1
  const ranges: [string, string][] = []
  for (let first = true; i < pattern.length && (first || pattern[i] !== ']'); first = false) {
    let low = pattern[i]!
    if (low === '\\' && i + 1 < pattern.length) low = pattern[++i]!
    i += 1
    let high = low
    if (pattern[i] === '-' && i + 1 < pattern.length && pattern[i + 1] !== ']') {
      high = pattern[i + 1] === '\\' && i + 2 < pattern.length ? pattern[i + 2]! : pattern[i + 1]!
      i += pattern[i + 1] === '\\' ? 3 : 2
    }
    ranges.push([low, high])
  }
  if (i >= pattern.length) return null
  return { step: { kind: 'class', negated, ranges }, end: i }
}

function stepTakes(step: Step, char: string): boolean {
  switch (step.kind) {
    case 'char': return step.char === char
    case 'any': case 'star': return char !== '/'
    case 'directories': return true
    case 'class': {
      if (char === '/') return false
      const within = step.ranges.some(([low, high]) => low <= char && char <= high)
      return within !== step.negated
    }
  }
}

/** The places reachable from `places` without reading a character (past stars and `**\/`). */
function closure(steps: Step[], places: Set<number>): Set<number> {
  const pending = [...places]
  for (let place = pending.pop(); place !== undefined; place = pending.pop()) {
    const step = place >= 0 ? steps[place] : undefined
    if (step === undefined) continue
    // `*` and `**/` may both be nothing at all.
    if ((step.kind === 'star' || step.kind === 'directories') && !places.has(place + 1)) {
      places.add(place + 1)
      pending.push(place + 1)
    }
  }
  return places
}

function matchesExpanded(steps: Step[], path: string): boolean {
  // A place is the index of the next step; `**/` is in progress at the negative place -(i + 1)
  // once it has read something: it ends on a `/`.
  let places = closure(steps, new Set([0]))
  for (const char of path) {
    const next = new Set<number>()
    for (const place of places) {
      if (place < 0) {
        const at = -place - 1
        next.add(place)
        if (char === '/') next.add(at + 1)
        continue
      }
      const step = steps[place]
      if (step === undefined || !stepTakes(step, char)) continue
      if (step.kind === 'star') next.add(place)
      else if (step.kind === 'directories') {
        next.add(-(place + 1))
        if (char === '/') next.add(place + 1)
      } else next.add(place + 1)
    }
    if (next.size === 0) return false
    places = closure(steps, next)
  }
  return places.has(steps.length)
}

/** Whether `path` (relative, `/`-separated) matches the glob `pattern`. */
export function matchesGlob(pattern: string, path: string): boolean {
  if (pattern.length > MAX_PATTERN_LENGTH) return false
  const alternatives = expandBraces(pattern)
  if (alternatives === null) return false
  return alternatives.some((alternative) => matchesExpanded(compile(alternative), path))
}
