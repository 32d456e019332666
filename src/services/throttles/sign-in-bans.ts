// Bans after failed password sign-ins, as the original's git basic-auth ban
// (Gitlab::Auth::IpRateLimiter over Rack::Attack's Allow2Ban, rack_attack.git_basic_auth in
// gitlab.yml): `maxRetry` failures within a window of `findTimeSeconds` ban for
// `banTimeSeconds`. Counted per address, as the original, and per account (the user, or the login
// typed when it names nobody, so a ban tells nothing of which logins exist). A success forgets the
// failures, as the original's reset!: git clients fail once before sending credentials. Addresses
// on the whitelist are never counted nor banned.
import type { Db } from '../../db/index.js'
import type { SignInBanConfig } from '../../config.js'
import { readCacheOf } from '../../db/read-cache.js'
import { AddressAllowList } from '../../metrics/allow-list.js'
import type { ThrottleCounters } from './counters.js'

/** Who tried: the client's address, and the account key (accountKey()) when a login was given. */
export interface SignInAttempt {
  address: string
  account: string | null
}

/** The key of the account a login names: its user when there is one, else the login typed. */
export function accountKey(userId: number | null, login: string): string {
  return userId === null ? `login:${login.toLowerCase()}` : `user:${userId}`
}

export const addressBan = (address: string) => `address:${address}`
export const accountBan = (account: string) => `account:${account}`
const failures = (ban: string) => `sign_in_failures:${ban}`

export class SignInBans {
  private readonly whitelist: AddressAllowList

  constructor(private readonly db: Db, private readonly counters: ThrottleCounters, private readonly config: SignInBanConfig) {
    this.whitelist = new AddressAllowList(config.ipWhitelist)
  }

  /** Whether requests from `address` are refused; read on every request, so cached (bans are rare writes). */
  async addressBanned(address: string): Promise<boolean> {
    if (!this.applies(address)) return false
    return this.banned(addressBan(address))
  }

  /** addressBanned() when it can be told without waiting (whitelisted, or cached); else undefined. */
  addressBannedNow(address: string): boolean | undefined {
    if (!this.applies(address)) return false
    const until = this.cache()?.peek(addressBan(address))
    return until === undefined ? undefined : until > Date.now()
  }

  /** Whether sign-ins to the account are refused (checked only when a password is tried). */
  async accountBanned(attempt: SignInAttempt): Promise<boolean> {
    if (!this.applies(attempt.address) || attempt.account === null) return false
    return this.banned(accountBan(attempt.account))
  }

  /** Counts a failure against the address and the account; a count reaching maxRetry bans it. */
  async failed(attempt: SignInAttempt): Promise<void> {
    if (!this.applies(attempt.address)) return
    const bans = [addressBan(attempt.address), ...(attempt.account === null ? [] : [accountBan(attempt.account)])]
    for (const ban of bans) {
      // A banned address or account is not counted again: its ban runs from when it was earned, as Allow2Ban's.
      if (await this.banned(ban)) continue
      const { current } = await this.counters.increment(failures(ban), this.config.findTimeSeconds * 1000)
      if (current >= this.config.maxRetry) await this.ban(ban)
    }
  }

  /** Forgets the failures of the address and the account (a ban already earned stays). */
  async succeeded(attempt: SignInAttempt): Promise<void> {
    if (!this.applies(attempt.address)) return
    const bans = [addressBan(attempt.address), ...(attempt.account === null ? [] : [accountBan(attempt.account)])]
    await this.counters.reset(bans.map(failures))
  }

  /** The bans in force, soonest to end first: what each bans (`address:…` or `account:…`) and until when. */
  async list(): Promise<{ key: string; expiresAt: number }[]> {
    const rows = await this.db.selectFrom('throttle_bans').selectAll().where('expires_at', '>', Date.now())
      .orderBy('expires_at').orderBy('key').execute()
    return rows.map((row) => ({ key: row.key, expiresAt: Number(row.expires_at) }))
  }

  /** Ends a ban (`address:…` or `account:…`, as list() names it) and forgets its failures; false when there was none. */
  async lift(key: string): Promise<boolean> {
    const lifted = await this.db.deleteFrom('throttle_bans').where('key', '=', key).where('expires_at', '>', Date.now()).executeTakeFirst()
    await this.counters.reset([failures(key)])
    return Number(lifted.numDeletedRows) > 0
  }

  private applies(address: string): boolean {
    return this.config.enabled && !this.whitelist.allows(address)
  }

  private async banned(key: string): Promise<boolean> {
    const load = async () => {
      const row = await this.db.selectFrom('throttle_bans').select('expires_at').where('key', '=', key).executeTakeFirst()
      return row === undefined ? 0 : Number(row.expires_at)
    }
    const cache = this.cache()
    const until = cache === null ? await load() : await cache.get(key, load)
    return until > Date.now()
  }

  /** When each ban key's ban ends (0 for none). */
  private cache() {
    return readCacheOf<number>(this.db, 'sign-in-bans', { tables: ['throttle_bans'], maxWeight: 10_000 })
  }

  private async ban(key: string): Promise<void> {
    const now = Date.now()
    const expiresAt = now + this.config.banTimeSeconds * 1000
    // Bans are few: ended ones are removed whenever one starts.
    await this.db.deleteFrom('throttle_bans').where('expires_at', '<=', now).execute()
    await this.db.insertInto('throttle_bans').values({ key, expires_at: expiresAt })
      .onConflict((oc) => oc.column('key').doUpdateSet({ expires_at: expiresAt }))
      .execute()
  }
}
