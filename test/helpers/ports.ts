// Ports for servers a test starts as child processes (which cannot be asked for port 0's choice).
import net from 'node:net'

/** A port on 127.0.0.1 nothing listens on now. */
export async function freePort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', resolve)
  })
  const { port } = server.address() as net.AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}
