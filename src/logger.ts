// The process's logger. JSON lines, one object per line, for log collectors (the default when
// output is not a terminal); readable lines for a person at a terminal, through pino-pretty, which
// is loaded only then, so the JSON path neither loads it nor pays for it.
import tty from 'node:tty'
import { destination, pino, type Logger } from 'pino'
import type { Config } from './config.js'

export interface LoggerOptions {
  /** Where the lines go: standard output (the servers) or standard error (the admin commands). */
  fd?: 1 | 2
  level?: Config['logLevel']
}

/** INGOT_LOG_FORMAT as it applies to a destination: `auto` is pretty on a terminal only. */
export function logFormatFor(config: Pick<Config, 'logFormat'>, fd: 1 | 2 = 1): 'pretty' | 'json' {
  if (config.logFormat !== 'auto') return config.logFormat
  return tty.isatty(fd) ? 'pretty' : 'json'
}

export async function createLogger(config: Pick<Config, 'logFormat' | 'logLevel'>, options: LoggerOptions = {}): Promise<Logger> {
  const fd = options.fd ?? 1
  const level = options.level ?? config.logLevel
  if (logFormatFor(config, fd) === 'json') return fd === 1 ? pino({ level }) : pino({ level }, destination(fd))
  const { prettyFactory } = await import('pino-pretty')
  const prettify = prettyFactory({ colorize: tty.isatty(fd), translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', singleLine: true })
  // Formatted as each line is written (no stream between), so no line is lost when the process exits.
  const output = destination({ dest: fd, sync: true })
  return pino({ level }, { write: (line: string) => output.write(prettify(line)) })
}
