// A least-recently-used cache bounded by the summed weight of its values (for example their length
// in characters), not by their count: one 1 MB file must push out many small ones, not just one.

export class WeightedLru<V> {
  // A Map iterates in insertion order, so re-inserting on every hit keeps the least recent first.
  private readonly entries = new Map<string, { value: V; weight: number }>()
  private totalWeight = 0

  constructor(private readonly maxWeight: number, private readonly weigh: (value: V, key: string) => number) {}

  get weight(): number {
    return this.totalWeight
  }

  get size(): number {
    return this.entries.size
  }

  get(key: string): V | undefined {
    const entry = this.entries.get(key)
    if (entry === undefined) return undefined
    this.entries.delete(key)
    this.entries.set(key, entry)
    return entry.value
  }

  /** Stores a value, evicting the least recently used ones to make room; one heavier than the whole bound is not kept. */
  set(key: string, value: V): void {
    const previous = this.entries.get(key)
    if (previous !== undefined) {
      this.entries.delete(key)
      this.totalWeight -= previous.weight
    }
    const weight = this.weigh(value, key)
    if (weight > this.maxWeight) return
    for (const [oldKey, oldEntry] of this.entries) {
      if (this.totalWeight + weight <= this.maxWeight) break
      this.entries.delete(oldKey)
      this.totalWeight -= oldEntry.weight
    }
    this.entries.set(key, { value, weight })
    this.totalWeight += weight
  }
}
