// How many git services (upload-pack, receive-pack) smart HTTP runs at once: each is a process
// that may work for minutes, so a process runs at most a number of them, and one client address
// at most a smaller number, and anything over is told to come back later.

export type SlotRefusal = 'server' | 'client'

export class GitServiceSlots {
  private running = 0
  private readonly byClient = new Map<string, number>()

  constructor(private readonly max: number, private readonly perClient: number) {}

  /** A slot for `client` (its address) and the function that gives it back (once, however often called); or who is full. */
  take(client: string): { release: () => void } | { refused: SlotRefusal } {
    const mine = this.byClient.get(client) ?? 0
    if (mine >= this.perClient) return { refused: 'client' }
    if (this.running >= this.max) return { refused: 'server' }
    this.running += 1
    this.byClient.set(client, mine + 1)
    let released = false
    return {
      release: () => {
        if (released) return
        released = true
        this.running -= 1
        const left = (this.byClient.get(client) ?? 1) - 1
        if (left === 0) this.byClient.delete(client)
        else this.byClient.set(client, left)
      },
    }
  }
}
