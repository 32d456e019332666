// `ingot admin runners registration-token`: the instance's runner registration token, with which an
// operator registers instance runners (`gitlab-runner register --registration-token …`), or a
// group's (`--group`), which registers runners of that group. The original shows them on its
// admin and group pages; Ingot's operator reads them here. Each is made when first asked for, and
// stays the same afterwards.
import { groupRunnersTokenByPath, instanceRunnersToken } from '../services/ci/runners/registration-tokens.js'
import { CommandFailed, parseCommandLine, type Command, type CommandGroup } from './command.js'

const registrationTokenCommand: Command = {
  name: 'registration-token',
  summary: 'print the registration token of instance runners, or of a group\'s',
  help: `Usage: ingot admin runners registration-token [--group PATH]

Prints the instance's runner registration token, alone on one line. A runner registered with it
(POST /api/v4/runners, as \`gitlab-runner register\` does) is an instance runner: it takes jobs of
every project with shared runners enabled. With --group, the token of that group instead: its
runners take jobs of the group's projects and its subgroups'. A token is made when first asked
for. (A project's token is its runners_token, which the API shows its Maintainers.)

Options:
  --group PATH   the group's full path, e.g. my-org/platform
  -h, --help     show this help
`,
  async run(args, io) {
    const { values } = parseCommandLine(args, { group: { type: 'string' } })
    const ctx = await io.context()
    if (values.group === undefined) {
      io.print(await instanceRunnersToken(ctx.db))
      return
    }
    const token = await groupRunnersTokenByPath(ctx.db, values.group)
    if (token === null) throw new CommandFailed(`there is no group "${values.group}"`)
    io.print(token)
  },
}

export const runnerCommands: CommandGroup = {
  name: 'runners',
  summary: 'CI runners: the registration tokens of instance and group runners.',
  commands: [registrationTokenCommand],
}
