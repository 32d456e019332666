// Work over many items with a bounded number in flight: a push of a thousand tags must not start a
// thousand git reads and queries at once.

/** `work` on every item, at most `limit` at a time; the results in the items' order. A failure rejects once the running ones settle. */
export async function mapBounded<T, R>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const index = next++
      results[index] = await work(items[index]!, index)
    }
  }
  const settled = await Promise.allSettled(Array.from({ length: Math.min(limit, items.length) }, worker))
  const failed = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected')
  if (failed !== undefined) throw failed.reason
  return results
}
