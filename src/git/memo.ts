// Answers about things git never changes (history below a commit, a blob's digest, a commit), kept
// per process. ImmutableMemo: bounded (the oldest entry goes first), shared by concurrent callers (a
// first lookup on a long history takes a while), and never keeping a failure. ImmutableCache: the
// values themselves, the least recently used going first past a count or a total weight (bytes).
export class ImmutableMemo<T> {
  private readonly entries = new Map<string, Promise<T>>()

  constructor(private readonly limit = 10_000) {}

  get(key: string, compute: () => Promise<T>): Promise<T> {
    const known = this.entries.get(key)
    if (known !== undefined) return known
    if (this.entries.size >= this.limit) this.entries.delete(this.entries.keys().next().value as string)
    const value = compute()
    this.entries.set(key, value)
    value.catch(() => this.entries.delete(key))
    return value
  }
}

export class ImmutableCache<T> {
  private readonly entries = new Map<string, { value: T; weight: number }>()
  private weight = 0

  constructor(private readonly limits: { entries: number; weight: number }) {}

  get(key: string): T | undefined {
    const entry = this.entries.get(key)
    if (entry === undefined) return undefined
    this.entries.delete(key)
    this.entries.set(key, entry)
    return entry.value
  }

  /** Keeps `value` unless it alone weighs more than a tenth of the budget. */
  set(key: string, value: T, weight: number): void {
    if (weight > this.limits.weight / 10 || this.entries.has(key)) return
    this.entries.set(key, { value, weight })
    this.weight += weight
    while (this.entries.size > this.limits.entries || this.weight > this.limits.weight) {
      const [oldestKey, oldest] = this.entries.entries().next().value as [string, { value: T; weight: number }]
      this.entries.delete(oldestKey)
      this.weight -= oldest.weight
    }
  }
}
