// startSmtpListener(): a real SMTP server on 127.0.0.1 (a free port, no TLS, any or no login) that
// keeps every message it receives, parsed, so tests can check what Ingot actually mailed — and,
// after a wait, that something was not mailed.
import type { AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'
import { simpleParser, type AddressObject } from 'mailparser'

export interface ReceivedMail {
  from: string
  /** The envelope recipients (RCPT TO), lower-cased. */
  to: string[]
  subject: string
  text: string
  /** The HTML part, or null when the message has none. */
  html: string | null
  /** Every header, lower-cased names, values as sent (decoded). */
  headers: Record<string, string>
  raw: string
}

export interface SmtpListener {
  /** `smtp://127.0.0.1:<port>`, ready for INGOT_SMTP_URL. */
  url: string
  messages: ReceivedMail[]
  /** Resolves once at least `count` messages have arrived; rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedMail[]>
  close(): Promise<void>
}

/** `port` 0 (the default) takes a free one; a test may reopen a closed listener's port. */
export async function startSmtpListener(port = 0): Promise<SmtpListener> {
  const messages: ReceivedMail[] = []
  const waiters = new Set<() => void>()
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    // No DNS: a reverse lookup of 127.0.0.1 can stall where no resolver answers.
    disableReverseLookup: true,
    onAuth(_auth, _session, callback) { callback(null, { user: 'test' }) },
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('error', callback)
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8')
        simpleParser(raw).then((parsed) => {
          messages.push({
            from: addressText(parsed.from),
            to: session.envelope.rcptTo.map((rcpt) => rcpt.address.toLowerCase()),
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            html: typeof parsed.html === 'string' ? parsed.html : null,
            headers: Object.fromEntries(parsed.headerLines.map((line) => [line.key, headerText(parsed.headers.get(line.key), line.line)])),
            raw,
          })
          for (const wake of waiters) wake()
          callback()
        }, callback)
      })
    },
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => resolve())
  })
  const address = server.server.address() as AddressInfo
  return {
    url: `smtp://127.0.0.1:${address.port}`,
    messages,
    waitFor(count, timeoutMs = 5000) {
      if (messages.length >= count) return Promise.resolve(messages)
      return new Promise((resolve, reject) => {
        const wake = () => {
          if (messages.length < count) return
          clearTimeout(timer)
          waiters.delete(wake)
          resolve(messages)
        }
        const timer = setTimeout(() => {
          waiters.delete(wake)
          reject(new Error(`expected ${count} messages, ${messages.length} arrived within ${timeoutMs} ms`))
        }, timeoutMs)
        waiters.add(wake)
      })
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

/** A header's decoded value where the parser gives text, else its raw value unfolded. */
function headerText(value: unknown, line: string): string {
  if (typeof value === 'string') return value
  if (typeof value === 'object' && value !== null && 'text' in value && typeof value.text === 'string') return value.text
  return line.slice(line.indexOf(':') + 1).replace(/\r?\n[ \t]+/g, ' ').trim()
}

function addressText(address: AddressObject | AddressObject[] | undefined): string {
  if (address === undefined) return ''
  return Array.isArray(address) ? address.map((a) => a.text).join(', ') : address.text
}
