// What start-up holds back (src/start-up-heap.ts): no optimized code while the optimizing compiler is
// held, optimized code again once start-up ends.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import v8 from 'node:v8'
import { setTimeout as sleep } from 'node:timers/promises'
import { endStartUp, holdOptimizingCompiler } from '../src/start-up-heap.js'

v8.setFlagsFromString('--allow-natives-syntax')
const optimizationStatus = new Function('f', 'return %GetOptimizationStatus(f)') as (f: unknown) => number
v8.setFlagsFromString('--no-allow-natives-syntax')
/** V8's bit for code optimized by TurboFan. */
const TURBOFANNED = 64

/** A fresh hot function, run until TurboFan has optimized it or `ms` have passed; whether it did. */
async function optimizedWithin(ms: number): Promise<boolean> {
  const hot = new Function('x', 'let s = 0; for (let i = 0; i < 100; i++) s += (x * i) % 7; return s') as (x: number) => number
  const until = Date.now() + ms
  do {
    for (let i = 0; i < 100_000; i++) hot(i)
    if ((optimizationStatus(hot) & TURBOFANNED) !== 0) return true
    await sleep(10)
  } while (Date.now() < until)
  return false
}

test('hot code is optimized only once start-up has ended', async () => {
  holdOptimizingCompiler()
  try {
    assert.equal(await optimizedWithin(500), false)
  } finally {
    endStartUp()
  }
  assert.equal(await optimizedWithin(5000), true)
})
