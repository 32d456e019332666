// The serving heap's bounds (src/serving-heap.ts): the young generation stops growing past its
// bound under brisk allocation. No timing is asserted.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import v8 from 'node:v8'
import { setImmediate as tick } from 'node:timers/promises'
import { boundServingHeap, youngGenerationSize, YOUNG_GENERATION_BOUND } from '../src/serving-heap.js'

test('the young generation stays within its bound under brisk allocation', async () => {
  const stop = boundServingHeap()
  try {
    let kept: unknown[] = []
    let largest = 0
    for (let round = 0; round < 200; round++) {
      for (let i = 0; i < 10_000; i++) {
        kept.push({ round, i, text: `item ${i}` })
        if (kept.length > 20_000) kept = []
      }
      largest = Math.max(largest, youngGenerationSize())
      // The bound is applied after each collection, between turns of the event loop.
      await tick()
    }
    // One doubling may come before the observer hears of the collection that allowed it.
    assert.ok(largest <= 2 * YOUNG_GENERATION_BOUND, `young generation reached ${largest} bytes`)
  } finally {
    stop()
    v8.setFlagsFromString('--semi-space-growth-factor=2')
  }
})
