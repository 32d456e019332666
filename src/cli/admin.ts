// `ingot admin …`: an operator's commands on the configured database (INGOT_DATABASE_URL,
// INGOT_DATA_DIR), with no server running or beside running ones: they go through the same
// services as the API. Each group of commands has its own file and is listed in GROUPS; this file
// finds the command, answers --help at every level, and turns failures into exit codes and
// messages (2: the command line is wrong; 1: the command could not be done).
import { ConfigError, loadConfig } from '../config.js'
import { openContext, type AppContext } from '../context.js'
import { ApiError } from '../common/errors.js'
import { createLogger } from '../logger.js'
import { seedRoot } from '../services/users/seed-root.js'
import { CommandFailed, UsageError, type Command, type CommandGroup, type CommandIo } from './command.js'
import { userCommands } from './admin-users.js'
import { tokenCommands } from './admin-tokens.js'
import { jobCommands } from './admin-jobs.js'
import { banCommands } from './admin-bans.js'
import { runnerCommands } from './admin-runners.js'

/** Every group of `ingot admin`, in the order the help lists them. */
const GROUPS: readonly CommandGroup[] = [userCommands, tokenCommands, jobCommands, banCommands, runnerCommands]

const isHelp = (arg: string | undefined) => arg === '--help' || arg === '-h' || arg === 'help'

export async function runAdmin(argv: readonly string[]): Promise<number> {
  const [groupName, commandName, ...args] = argv
  if (groupName === undefined || isHelp(groupName)) return showHelp(adminHelp(), groupName === undefined)
  const group = GROUPS.find((candidate) => candidate.name === groupName)
  if (group === undefined) return usageFailure('ingot admin', `unknown command "${groupName}"`, adminHelp())
  if (isHelp(commandName)) return showHelp(groupHelp(group), false)
  // The group's name alone, or followed by options only, runs its default command when it has one.
  if (group.default !== undefined && (commandName === undefined || commandName.startsWith('-'))) {
    const defaultArgs = argv.slice(1)
    if (defaultArgs.includes('--help') || defaultArgs.includes('-h')) return showHelp(groupHelp(group), false)
    return runCommand(`ingot admin ${group.name}`, group.default, defaultArgs)
  }
  if (commandName === undefined) return showHelp(groupHelp(group), true)
  const command = group.commands.find((candidate) => candidate.name === commandName)
  if (command === undefined) return usageFailure(`ingot admin ${group.name}`, `unknown command "${commandName}"`, groupHelp(group))
  if (args.includes('--help') || args.includes('-h')) return showHelp(command.help, false)
  return runCommand(`ingot admin ${group.name} ${command.name}`, command, args)
}

function adminHelp(): string {
  const rows = GROUPS.flatMap((group) => [
    ...group.default === undefined ? [] : [[group.name, group.default.summary] as const],
    ...group.commands.map((command) => [`${group.name} ${command.name}`, command.summary] as const),
  ])
  return `Usage: ingot admin <group> <command> [options]

An operator's commands on the configured database (INGOT_DATABASE_URL, INGOT_DATA_DIR);
no server needs to be running.

Commands:
${table(rows)}
\`ingot admin <group> <command> --help\` tells more about each.
`
}

function groupHelp(group: CommandGroup): string {
  // A group that does something by itself starts with that command's help, which has its usage.
  const usage = group.default?.help ?? `Usage: ingot admin ${group.name} <command> [options]

${group.summary}
`
  return `${usage}
Commands:
${table(group.commands.map((command) => [command.name, command.summary] as const))}
\`ingot admin ${group.name} <command> --help\` tells more about each.
`
}

function table(rows: readonly (readonly [string, string])[]): string {
  const width = Math.max(...rows.map(([name]) => name.length)) + 3
  return rows.map(([name, summary]) => `  ${name.padEnd(width)}${summary}\n`).join('')
}

/** Help that was asked for goes to stdout (exit 0); help for a command line that said too little, to stderr (exit 2). */
function showHelp(help: string, becauseIncomplete: boolean): number {
  if (becauseIncomplete) {
    process.stderr.write(help)
    return 2
  }
  process.stdout.write(help)
  return 0
}

function usageFailure(title: string, message: string, help: string): number {
  process.stderr.write(`${title}: ${message}\n\n${help}`)
  return 2
}

async function runCommand(title: string, command: Omit<Command, 'name'>, args: readonly string[]): Promise<number> {
  const opened: { ctx: AppContext | null } = { ctx: null }
  const io: CommandIo = {
    print: (line) => { process.stdout.write(`${line}\n`) },
    readStdin: async () => {
      const chunks: Buffer[] = []
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
      return Buffer.concat(chunks).toString('utf8')
    },
    context: async () => opened.ctx ??= await openAdminContext(),
  }
  try {
    await command.run(args, io)
    return 0
  } catch (err) {
    if (err instanceof UsageError) return usageFailure(title, err.message, `${command.help.split('\n', 1)[0]}\nSee \`${title} --help\`.\n`)
    if (err instanceof ConfigError) {
      process.stderr.write(`ingot: ${err.message}\n`)
      return 2
    }
    const message = failureMessage(err)
    if (message === null) throw err
    process.stderr.write(`${title}: ${message}\n`)
    return 1
  } finally {
    await opened.ctx?.close()
  }
}

/**
 * The context a server would have, on a database brought up to date and seeded as a first start
 * seeds it, so that running a command first changes nothing about the first start. Logs go to
 * stderr, and at info only warnings: stdout holds the command's result, and a migration's line
 * would only bury it.
 */
async function openAdminContext(): Promise<AppContext> {
  const config = loadConfig()
  const log = await createLogger(config, { fd: 2, level: config.logLevel === 'info' ? 'warn' : config.logLevel })
  const ctx = await openContext(config, log)
  try {
    await seedRoot(ctx)
  } catch (err) {
    await ctx.close()
    throw err
  }
  return ctx
}

/** What the user is told when a command fails for a reason of theirs; null for anything else (a bug). */
function failureMessage(err: unknown): string | null {
  if (err instanceof CommandFailed) return err.message
  if (!(err instanceof ApiError)) return null
  const { message, error } = err.body
  if (typeof message === 'string') return message
  if (typeof message === 'object' && message !== null) {
    return Object.entries(message as Record<string, readonly string[]>)
      .map(([field, problems]) => `${field} ${problems.join(', ')}`).join('; ')
  }
  return typeof error === 'string' ? error : err.message
}
