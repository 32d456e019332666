// Part 1 of the route fuzzing (test/shared/route-fuzzing.ts), cut in parts that run side by side.
import { fuzzRoutePart } from '../shared/route-fuzzing.js'

fuzzRoutePart(1, 4)
