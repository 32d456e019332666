// What the operator's commands share: how a command and a group of commands are declared, how a
// command line is parsed (node:util's parseArgs; a bad argument is a UsageError, exit 2), and how a
// command tells its user that it could not do what was asked (CommandFailed, exit 1): in one
// sentence, never a stack trace.
import { parseArgs } from 'node:util'
import type { AppContext } from '../context.js'

/** The command line is wrong: the message says how, the help how it should be. Exit 2. */
export class UsageError extends Error {}

/** The command was understood but could not be done (no such user, a refused value). Exit 1. */
export class CommandFailed extends Error {}

/** What a command reaches beyond its arguments. */
export interface CommandIo {
  /** Writes a line to standard output: the command's result. */
  print(line: string): void
  /** All of standard input, as text. */
  readStdin(): Promise<string>
  /** The context on the configured database (INGOT_DATABASE_URL, INGOT_DATA_DIR), opened on first use. */
  context(): Promise<AppContext>
}

export interface Command {
  name: string
  /** One line, for the group's help. */
  summary: string
  /** The whole help: usage line first, then the options. */
  help: string
  run(args: readonly string[], io: CommandIo): Promise<void>
}

export interface CommandGroup {
  name: string
  summary: string
  /** What the group's name alone does (`ingot admin jobs`, `ingot admin jobs --dead`), when it does something. */
  default?: Omit<Command, 'name'>
  commands: readonly Command[]
}

type OptionSpec = Record<string, { type: 'string' | 'boolean'; short?: string }>

type OptionValues<Spec extends OptionSpec> = {
  [Name in keyof Spec]?: Spec[Name]['type'] extends 'string' ? string : boolean
}

/**
 * Options and positional arguments of a command line, by parseArgs in strict mode: an unknown
 * option or an option without its value is a UsageError, and so is a positional argument missing
 * from `positionals` (their names, for the message), an empty one, or one more than they name.
 */
export function parseCommandLine<Spec extends OptionSpec>(
  args: readonly string[], options: Spec, positionals: readonly string[] = [],
): { values: OptionValues<Spec>; positionals: string[] } {
  let parsed: ReturnType<typeof parseArgs>
  try {
    parsed = parseArgs({ args: [...args], options, allowPositionals: true, strict: true })
  } catch (err) {
    // parseArgs's first sentence names the problem; the rest advises on `--`, which would not help.
    throw new UsageError(err instanceof Error ? err.message.split('. ')[0] as string : String(err))
  }
  if (parsed.positionals.length < positionals.length) throw new UsageError(`${positionals[parsed.positionals.length]} is missing`)
  if (parsed.positionals.length > positionals.length) throw new UsageError(`unexpected argument "${parsed.positionals[positionals.length]}"`)
  const empty = parsed.positionals.findIndex((value) => value.trim() === '')
  if (empty !== -1) throw new UsageError(`${positionals[empty]} must not be empty`)
  return { values: parsed.values as OptionValues<Spec>, positionals: parsed.positionals }
}

/** The value of an option that must be given (and not empty). */
export function required(value: string | undefined, option: string): string {
  if (value === undefined || value.trim() === '') throw new UsageError(`--${option} is required`)
  return value
}
