// Outgoing email. Everything that mails (notification email, integrations) sends a MailMessage
// through ctx.mailer, which exists only when INGOT_SMTP_URL is configured; callers check for null
// and send from background jobs, so a slow or failing SMTP server never holds up a request and a
// failed send is retried by the job queue. nodemailer (the largest package in the bundle) is loaded
// at the first message, not at start: an idle server holds none of it.
import type { Transporter } from 'nodemailer'

export interface MailMessage {
  to: string | string[]
  /** Recipients who do not see each other (the original's pipeline emails). */
  bcc?: string[]
  subject: string
  text: string
  html?: string
  /** Defaults to INGOT_EMAIL_FROM. */
  from?: string
  replyTo?: string
  headers?: Record<string, string>
}

export interface Mailer {
  /** Resolves once the SMTP server accepted the message; rejects otherwise. */
  send(message: MailMessage): Promise<void>
  close(): Promise<void>
}

/** A mailer over SMTP: `smtp://` (STARTTLS when the server offers it) or `smtps://` (TLS from the start). */
export function createSmtpMailer(smtpUrl: string, defaultFrom: string): Mailer {
  let transport: Transporter | null = null
  let opening: Promise<Transporter> | null = null
  const open = (): Promise<Transporter> => opening ??= import('nodemailer').then(({ default: nodemailer }) => (transport = nodemailer.createTransport(smtpUrl)))
  return {
    async send(message) {
      await (transport ?? await open()).sendMail({
        from: message.from ?? defaultFrom,
        to: message.to,
        ...(message.bcc === undefined ? {} : { bcc: message.bcc }),
        subject: message.subject,
        text: message.text,
        ...(message.html === undefined ? {} : { html: message.html }),
        ...(message.replyTo === undefined ? {} : { replyTo: message.replyTo }),
        ...(message.headers === undefined ? {} : { headers: message.headers }),
      })
    },
    async close() {
      transport?.close()
    },
  }
}
