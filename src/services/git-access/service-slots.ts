// How many git services (upload-pack, receive-pack, upload-archive) smart HTTP and SSH run at
// once: each is a process that may work for minutes, so a process runs at most a number of them,
// and one client address at most a smaller number, and anything over is told to come back later.
// Both transports take slots from one count per process (gitServiceSlotsOf).
import type { AppContext } from '../../context.js'

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

const slotsByConfig = new WeakMap<AppContext['config'], GitServiceSlots>()

/** The slots of the process that `ctx` belongs to (INGOT_GIT_SERVICES_MAX, INGOT_GIT_SERVICES_PER_CLIENT). */
export function gitServiceSlotsOf(ctx: Pick<AppContext, 'config'>): GitServiceSlots {
  let slots = slotsByConfig.get(ctx.config)
  if (slots === undefined) slotsByConfig.set(ctx.config, slots = new GitServiceSlots(ctx.config.gitServicesMax, ctx.config.gitServicesPerClient))
  return slots
}
