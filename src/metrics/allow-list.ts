// Who may read /-/metrics (INGOT_METRICS_ALLOW, as the original's monitoring whitelist): the peer
// of the connection, and every client that a proxy says it relays the request for, must all be
// within the allowed addresses and ranges. A reverse proxy on the same machine connects from
// 127.0.0.1 on behalf of anyone; the client addresses it adds keep those others out.
import net from 'node:net'

const ANSWERS_KEPT = 4096

export class AddressAllowList {
  private readonly allowed = new net.BlockList()
  /** Answers by address: BlockList.check makes a SocketAddress per call, and the sign-in bans ask on every request. */
  private readonly answers = new Map<string, boolean>()

  /** Entries as config.ts checked them: `10.0.0.1`, `10.0.0.0/8`, `::1`, `fd00::/8`. */
  constructor(entries: readonly string[]) {
    for (const entry of entries) {
      const [address = '', prefix] = entry.split('/')
      const family = net.isIP(address) === 4 ? 'ipv4' : 'ipv6'
      if (prefix === undefined) this.allowed.addAddress(address, family)
      else this.allowed.addSubnet(address, Number(prefix), family)
    }
  }

  /** True for an IP address within the list (an IPv4 address also in its IPv6-mapped form). */
  allows(address: string | undefined): boolean {
    if (address === undefined) return false
    let allowed = this.answers.get(address)
    if (allowed === undefined) {
      const family = net.isIP(address)
      allowed = family !== 0 && this.allowed.check(address, family === 4 ? 'ipv4' : 'ipv6')
      if (this.answers.size >= ANSWERS_KEPT) this.answers.clear()
      this.answers.set(address, allowed)
    }
    return allowed
  }

  /**
   * True when the peer and every relayed client are allowed. A relayed client that is not an IP
   * address (`unknown`, an obfuscated `_name`) cannot be checked, so it is refused.
   */
  allowsRequest(peer: string | undefined, headers: Record<string, string | string[] | undefined>): boolean {
    return this.allows(peer) && relayedClients(headers).every((client) => this.allows(client))
  }
}

/** The client addresses a proxy names in X-Forwarded-For, X-Real-IP and Forwarded (`for=`). */
function relayedClients(headers: Record<string, string | string[] | undefined>): string[] {
  const clients: string[] = []
  for (const value of headerValues(headers['x-forwarded-for'])) clients.push(...value.split(','))
  clients.push(...headerValues(headers['x-real-ip']))
  for (const value of headerValues(headers.forwarded)) {
    for (const element of value.split(/[,;]/)) {
      const [name = '', ...rest] = element.split('=')
      if (name.trim().toLowerCase() === 'for') clients.push(rest.join('='))
    }
  }
  return clients.map(hostOf)
}

function headerValues(value: string | string[] | undefined): string[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value]
}

/** `"[2001:db8::1]:4711"` → `2001:db8::1`, `192.0.2.1:80` → `192.0.2.1`; anything else as it is. */
function hostOf(client: string): string {
  const text = client.trim().replace(/^"(.*)"$/, '$1')
  const bracketed = /^\[([^\]]*)\](?::\d+)?$/.exec(text)
  if (bracketed !== null) return bracketed[1] as string
  const withPort = /^([\d.]+):\d+$/.exec(text)
  return withPort === null ? text : withPort[1] as string
}
