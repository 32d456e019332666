// `ingot admin ban …`: the bans failed sign-ins earned (services/throttles/sign-in-bans.ts), listed
// and lifted by an operator, e.g. for an office whose one address a misconfigured git client got
// banned. Servers notice a lifted ban within their read cache's time to live.
import net from 'node:net'
import { isoTime } from '../db/values.js'
import { accountBan, accountKey, addressBan } from '../services/throttles/sign-in-bans.js'
import { findUserById } from '../finders/users-finder.js'
import { CommandFailed, UsageError, parseCommandLine, type Command, type CommandGroup } from './command.js'
import { userNamed } from './admin-users.js'

const listCommand: Command = {
  name: 'list',
  summary: 'list the addresses and accounts banned for failed sign-ins',
  help: `Usage: ingot admin ban list

Prints one line per ban in force, soonest to end first: what is banned (address:ADDRESS,
user:USERNAME, or login:LOGIN for a login that names nobody) and when the ban ends (UTC).

Options:
  -h, --help   show this help
`,
  async run(args, io) {
    parseCommandLine(args, {}, [])
    const ctx = await io.context()
    for (const ban of await ctx.throttles.signInBans.list()) {
      io.print(`${await targetOf(ban.key, (id) => findUserById(ctx.db, id))}\tuntil ${isoTime(ban.expiresAt)}`)
    }
  },
}

const liftCommand: Command = {
  name: 'lift',
  summary: 'end a ban for failed sign-ins and forget its failures',
  help: `Usage: ingot admin ban lift TARGET

Ends the ban of TARGET as \`ingot admin ban list\` names it: address:ADDRESS, user:USERNAME
or login:LOGIN, and forgets the failures counted against it.

Options:
  -h, --help   show this help
`,
  async run(args, io) {
    const { positionals: [target = ''] } = parseCommandLine(args, {}, ['TARGET'])
    const ctx = await io.context()
    const colon = target.indexOf(':')
    const [kind, name] = [target.slice(0, colon), target.slice(colon + 1)]
    let key: string
    if (kind === 'address' && net.isIP(name) !== 0) key = addressBan(name)
    else if (kind === 'user' && name !== '') key = accountBan(accountKey((await userNamed(ctx, name)).id, name))
    else if (kind === 'login' && name !== '') key = accountBan(accountKey(null, name))
    else throw new UsageError(`TARGET must be address:ADDRESS, user:USERNAME or login:LOGIN, not "${target}"`)
    if (!await ctx.throttles.signInBans.lift(key)) throw new CommandFailed(`${target} is not banned`)
    io.print(`Lifted the ban of ${target}.`)
  },
}

/** A ban's key as an operator names its target. */
async function targetOf(key: string, userOf: (id: number) => Promise<{ username: string } | null>): Promise<string> {
  const user = /^account:user:(\d+)$/.exec(key)
  if (user !== null) return `user:${(await userOf(Number(user[1])))?.username ?? `(deleted user ${user[1]})`}`
  return key.replace(/^account:/, '')
}

export const banCommands: CommandGroup = {
  name: 'ban',
  summary: 'Bans for failed sign-ins: list and lift them.',
  commands: [listCommand, liftCommand],
}
