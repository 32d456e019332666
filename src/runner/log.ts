// The runner's log: pino, as the server's (src/logger.ts, which the runner does not import): JSON
// lines for collectors, readable lines on a terminal. Named `runner`, so that its lines stand out
// when the built-in runner writes into the web process's output.
import tty from 'node:tty'
import { destination, pino, type Logger } from 'pino'
import type { RunnerSettings } from './settings.js'

export async function createRunnerLogger(settings: Pick<RunnerSettings, 'logFormat' | 'logLevel'>): Promise<Logger> {
  const pretty = settings.logFormat === 'pretty' || (settings.logFormat === 'auto' && tty.isatty(1))
  if (!pretty) return pino({ name: 'runner', level: settings.logLevel })
  const { prettyFactory } = await import('pino-pretty')
  const prettify = prettyFactory({ colorize: tty.isatty(1), translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', singleLine: true })
  const output = destination({ dest: 1, sync: true })
  return pino({ name: 'runner', level: settings.logLevel }, { write: (line: string) => output.write(prettify(line)) })
}
