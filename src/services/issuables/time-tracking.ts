// Time tracking of issues and merge requests: durations as the original reads and writes them.
// Input is "1mo 2w 3d 4h 5m 6s" (or plain seconds); output, the human forms of time_stats. As in
// the original, a day is 8 hours, a week 5 days and a month 4 weeks.
const UNIT_SECONDS = { mo: 4 * 5 * 8 * 3600, w: 5 * 8 * 3600, d: 8 * 3600, h: 3600, m: 60, s: 1 } as const
const ORDER = ['mo', 'w', 'd', 'h', 'm', 's'] as const
const PART = /^(-?\d+)(mo|w|d|h|m|s)$/

/** Seconds of a duration such as "3h30m", "1w 2d", "-30m" or "3600"; null when unreadable. */
export function parseDuration(text: string): number | null {
  const squished = text.trim().toLowerCase().replace(/\s+/g, '')
  if (squished === '') return null
  if (/^-?\d+$/.test(squished)) return Number(squished)
  const parts = squished.match(/-?\d+(?:mo|w|d|h|m|s)/g)
  if (parts === null || parts.join('') !== squished) return null
  let seconds = 0
  for (const part of parts) {
    const [, amount, unit] = PART.exec(part) ?? []
    seconds += Number(amount) * UNIT_SECONDS[unit as keyof typeof UNIT_SECONDS]
  }
  return Number.isSafeInteger(seconds) ? seconds : null
}

/** "1w 2d 3h" for a positive number of seconds; null for zero (as time_stats shows it). */
export function humanDuration(seconds: number): string | null {
  if (seconds === 0) return null
  const sign = seconds < 0 ? '-' : ''
  let rest = Math.abs(seconds)
  const parts: string[] = []
  for (const unit of ORDER) {
    const amount = Math.floor(rest / UNIT_SECONDS[unit])
    if (amount > 0) parts.push(`${amount}${unit}`)
    rest -= amount * UNIT_SECONDS[unit]
  }
  return sign + parts.join(' ')
}
