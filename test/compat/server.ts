// The real server on a real socket for the client-compatibility suite: Ingot listening on
// 127.0.0.1 with INGOT_EXTERNAL_URL pointing at itself, and a @gitbeaker/rest client for root.
import net from 'node:net'
import { Gitlab } from '@gitbeaker/rest'
import { buildTestApp, type TestApp } from '../helpers/app.js'

export interface CompatServer {
  t: TestApp
  url: string
  /** A client for any token (root's when omitted). */
  client(token?: string): InstanceType<typeof Gitlab<false>>
  close(): Promise<void>
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      probe.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))))
    })
  })
}

export async function startCompatServer(): Promise<CompatServer> {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const t = await buildTestApp({ env: { INGOT_EXTERNAL_URL: url } })
  await t.app.listen({ port, host: '127.0.0.1' })
  return {
    t,
    url,
    client: (token = t.root.token) => new Gitlab({ host: url, token }),
    close: () => t.close(),
  }
}
