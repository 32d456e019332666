// Reading Prometheus's exposition text in tests.

/** The value of the first series of `name` that has these labels (and maybe others); undefined when there is none. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`)
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (match === null || match[1] !== name) continue
    const present = (match[2] ?? '').split(',')
    if (wanted.every((label) => present.includes(label))) return Number(match[3])
  }
  return undefined
}
