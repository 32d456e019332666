// A real HTTP server on 127.0.0.1 standing in for a webhook receiver: it keeps every request it is
// sent (headers and JSON body) and answers as the test tells it — a status per request, or never.
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export interface ReceivedHook {
  path: string
  headers: http.IncomingHttpHeaders
  body: any
}

export interface HookReceiver {
  /** `http://127.0.0.1:<port>` */
  url: string
  received: ReceivedHook[]
  /** Statuses of the next answers, in order; once used up the receiver answers 200. */
  answers: number[]
  /** While set, requests are kept open and never answered. */
  hang: boolean
  /** Forgets what was received. */
  clear(): void
  close(): Promise<void>
}

export async function startHookReceiver(): Promise<HookReceiver> {
  const hanging: http.ServerResponse[] = []
  const receiver: HookReceiver = {
    url: '',
    received: [],
    answers: [],
    hang: false,
    clear() { receiver.received.length = 0 },
    async close() {
      for (const res of hanging) res.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      receiver.received.push({ path: req.url ?? '', headers: req.headers, body: text === '' ? undefined : JSON.parse(text) })
      if (receiver.hang) {
        hanging.push(res)
        return
      }
      const status = receiver.answers.shift() ?? 200
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : `failed with ${status}`)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return receiver
}
