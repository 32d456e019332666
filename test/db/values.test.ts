import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { isoTime, MAX_INSTANT, MIN_INSTANT } from '../../src/db/values.js'

describe('isoTime', () => {
  const expected = (ms: number) => new Date(Number.isNaN(ms) ? 0 : Math.min(Math.max(Math.trunc(ms), MIN_INSTANT), MAX_INSTANT)).toISOString()

  it("writes Date#toISOString's text for every instant, days before 1970 and the range's ends included", () => {
    const edges = [0, -1, 1, 999, 1000, 86_399_999, 86_400_000, -86_400_000, -86_400_001, MIN_INSTANT, MAX_INSTANT, 951_782_400_000, 1.5, -1.5]
    for (const ms of edges) assert.equal(isoTime(ms), expected(ms), String(ms))
    // Deterministic spread over the whole range (a linear congruential walk).
    let seed = 12345
    for (let i = 0; i < 20_000; i++) {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648
      const ms = MIN_INSTANT + Math.floor((seed / 2_147_483_648) * (MAX_INSTANT - MIN_INSTANT))
      assert.equal(isoTime(ms), expected(ms), String(ms))
    }
  })

  it('shows instants out of range as the nearest one in range, NaN as the epoch, and keeps null', () => {
    assert.equal(isoTime(1e308), '9999-12-31T23:59:59.999Z')
    assert.equal(isoTime(-1e308), '0000-01-01T00:00:00.000Z')
    assert.equal(isoTime(Number.NaN), '1970-01-01T00:00:00.000Z')
    assert.equal(isoTime(null), null)
  })
})
