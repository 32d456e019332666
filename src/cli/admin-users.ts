// `ingot admin user create` and `ingot admin user password`: an operator makes an account or sets
// its password on the database, through the services behind POST /users and PUT /users/:id, so a
// user made here is checked exactly as the API checks one.
import { generatePassword } from '../auth/secrets.js'
import { findUsers } from '../finders/users-finder.js'
import type { UserRow } from '../db/schema.js'
import type { AppContext } from '../context.js'
import { createUser } from '../services/users/create-user.js'
import { updateUser } from '../services/users/update-user.js'
import { CommandFailed, parseCommandLine, required, type Command, type CommandGroup, type CommandIo } from './command.js'

const PASSWORD_STDIN_HELP = `  --password-stdin       read the password from standard input (one trailing newline is
                         dropped), e.g. printf '%s' "$PASSWORD" | ingot admin …; without it,
                         a password is generated and printed`

const createCommand: Command = {
  name: 'create',
  summary: 'create a user (and their personal namespace)',
  help: `Usage: ingot admin user create --username USERNAME --email EMAIL --name NAME [--admin] [--password-stdin]

Creates a user, checked as POST /users checks one, confirmed at once.

Options:
  --username USERNAME    their username, also the path of their namespace
  --email EMAIL          their email address
  --name NAME            their full name
  --admin                make them an administrator
${PASSWORD_STDIN_HELP}
  -h, --help             show this help
`,
  async run(args, io) {
    const { values } = parseCommandLine(args, {
      username: { type: 'string' }, email: { type: 'string' }, name: { type: 'string' },
      admin: { type: 'boolean' }, 'password-stdin': { type: 'boolean' },
    })
    const username = required(values.username, 'username')
    const email = required(values.email, 'email')
    const name = required(values.name, 'name')
    const given = values['password-stdin'] === true ? await passwordFromStdin(io) : null
    const password = given ?? generatePassword()
    const admin = values.admin === true
    const user = await createUser(await io.context(), { username, email, name, password, admin, skip_confirmation: true })
    io.print(`Created user "${user.username}" (id ${user.id}${admin ? ', administrator' : ''}).`)
    if (given === null) io.print(`Password: ${password}`)
  },
}

const passwordCommand: Command = {
  name: 'password',
  summary: "set a user's password",
  help: `Usage: ingot admin user password USERNAME [--password-stdin]

Sets the password of the user USERNAME, checked as PUT /users/:id checks one.

Options:
${PASSWORD_STDIN_HELP}
  -h, --help             show this help
`,
  async run(args, io) {
    const { values, positionals: [username = ''] } = parseCommandLine(args, { 'password-stdin': { type: 'boolean' } }, ['USERNAME'])
    const given = values['password-stdin'] === true ? await passwordFromStdin(io) : null
    const password = given ?? generatePassword()
    const ctx = await io.context()
    const user = await updateUser(ctx.db, await userNamed(ctx, username), { password })
    io.print(`Set the password of "${user.username}".`)
    if (given === null) io.print(`Password: ${password}`)
  },
}

export const userCommands: CommandGroup = {
  name: 'user',
  summary: 'Users: create them, set their passwords.',
  commands: [createCommand, passwordCommand],
}

/** The user with this username (any case); the ghost user is nobody's to manage. */
export async function userNamed(ctx: AppContext, username: string): Promise<UserRow> {
  const user = await findUsers(ctx.db, null, { username }).executeTakeFirst()
  if (user === undefined) throw new CommandFailed(`there is no user "${username}"`)
  return user
}

async function passwordFromStdin(io: CommandIo): Promise<string> {
  const password = (await io.readStdin()).replace(/\r?\n$/, '')
  if (password === '') throw new CommandFailed('standard input held no password')
  return password
}
