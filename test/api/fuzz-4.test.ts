// Part 4 of the route fuzzing (test/shared/route-fuzzing.ts), cut in parts that run side by side.
import { fuzzRoutePart } from '../shared/route-fuzzing.js'

fuzzRoutePart(4, 4)
