// Durations as the original reads them with ChronicDuration (`start_in`, `artifacts:expire_in`):
// a number alone is seconds; otherwise numbers with units, in any order and spelling
// (`1 day`, `2h 30m`, `1.5 hours`, `3 mins and 4 sec`, `1 week`).

const SECONDS_PER_UNIT: readonly [RegExp, number][] = [
  [/^(s|secs?|seconds?)$/, 1],
  [/^(m|mins?|minutes?)$/, 60],
  [/^(h|hrs?|hours?)$/, 3600],
  [/^(d|days?)$/, 86_400],
  [/^(w|wks?|weeks?)$/, 7 * 86_400],
  [/^(mo|mos|months?)$/, 30 * 86_400],
  [/^(y|yrs?|years?)$/, 365 * 86_400],
]

/** The duration in seconds, or null when the text is not one. */
export function parseDuration(text: string): number | null {
  const words = text.trim().toLowerCase().replace(/,|\band\b/g, ' ')
  if (/^\d+(\.\d+)?$/.test(words)) return Number(words)
  const parts = [...words.matchAll(/(\d+(?:\.\d+)?)\s*([a-z]+)|(\S+)/g)]
  if (parts.length === 0) return null
  let seconds = 0
  for (const [, amount, unit, stray] of parts) {
    if (stray !== undefined || amount === undefined || unit === undefined) return null
    const perUnit = SECONDS_PER_UNIT.find(([pattern]) => pattern.test(unit))?.[1]
    if (perUnit === undefined) return null
    seconds += Number(amount) * perUnit
  }
  return seconds
}
