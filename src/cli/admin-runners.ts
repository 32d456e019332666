// `ingot admin runners registration-token`: the instance's runner registration token, with which an
// operator registers instance runners (`gitlab-runner register --registration-token …`). The
// original shows it on its admin pages; Ingot's operator reads it here. It is made when first
// asked for, and stays the same afterwards.
import { instanceRunnersToken } from '../services/ci/runners/registration-tokens.js'
import { parseCommandLine, type Command, type CommandGroup } from './command.js'

const registrationTokenCommand: Command = {
  name: 'registration-token',
  summary: 'print the registration token of instance runners',
  help: `Usage: ingot admin runners registration-token

Prints the instance's runner registration token, alone on one line. A runner registered with it
(POST /api/v4/runners, as \`gitlab-runner register\` does) is an instance runner: it takes jobs of
every project with shared runners enabled. The token is made when first asked for.

Options:
  -h, --help   show this help
`,
  async run(args, io) {
    parseCommandLine(args, {})
    const ctx = await io.context()
    io.print(await instanceRunnersToken(ctx.db))
  },
}

export const runnerCommands: CommandGroup = {
  name: 'runners',
  summary: 'CI runners: the registration token of instance runners.',
  commands: [registrationTokenCommand],
}
