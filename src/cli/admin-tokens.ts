// `ingot admin token create`: an operator issues a personal access token for a user, through the
// service that issues every personal access token, and sees it once: only its digest is kept.
import { SCOPES } from '../auth/actor.js'
import { isCalendarDate, today } from '../db/values.js'
import { createPersonalAccessToken } from '../services/access-tokens/create-personal-access-token.js'
import { UsageError, parseCommandLine, required, type Command, type CommandGroup } from './command.js'
import { userNamed } from './admin-users.js'

const DEFAULT_NAME = 'ingot admin'

const createCommand: Command = {
  name: 'create',
  summary: 'create a personal access token for a user and print it',
  help: `Usage: ingot admin token create USERNAME --scopes SCOPES [--name NAME] [--expires YYYY-MM-DD]

Creates a personal access token for the user USERNAME and prints it once, alone on the
last line. Only its digest is kept: it cannot be shown again.

Options:
  --scopes SCOPES        comma list of ${SCOPES.join(', ')}
  --name NAME            the token's name (default "${DEFAULT_NAME}")
  --expires YYYY-MM-DD   the token stops working at the start of this day (UTC); default never
  -h, --help             show this help
`,
  async run(args, io) {
    const { values, positionals: [username = ''] } = parseCommandLine(args, {
      scopes: { type: 'string' }, name: { type: 'string' }, expires: { type: 'string' },
    }, ['USERNAME'])
    const scopes = required(values.scopes, 'scopes').split(',').map((scope) => scope.trim()).filter((scope) => scope !== '')
    const expires = values.expires ?? null
    if (expires !== null && !isCalendarDate(expires)) throw new UsageError(`--expires must be a date as YYYY-MM-DD, not "${expires}"`)
    // The token would end at the start of that day: today's would be dead on arrival.
    if (expires !== null && expires <= today()) throw new UsageError(`--expires must be a date after today (${today()})`)
    const ctx = await io.context()
    const user = await userNamed(ctx, username)
    const { row, token } = await createPersonalAccessToken(ctx.db, user.id, { name: values.name ?? DEFAULT_NAME, scopes, expires_at: expires })
    const expiry = expires === null ? 'never expires' : `expires ${expires}`
    io.print(`Created personal access token "${row.name}" (id ${row.id}) for "${user.username}": scopes ${JSON.parse(row.scopes).join(', ')}; ${expiry}.`)
    io.print(token)
  },
}

export const tokenCommands: CommandGroup = {
  name: 'token',
  summary: 'Personal access tokens: create them for users.',
  commands: [createCommand],
}
