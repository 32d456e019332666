// Answers about things git never changes (history below a commit, a blob's digest), kept per
// process: bounded (the oldest entry goes first), shared by concurrent callers (a first lookup on a
// long history takes a while), and never keeping a failure.
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
