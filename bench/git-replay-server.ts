// The client's own floor for git over HTTP (bench/git.ts): a server that does nothing but send back
// answers Ingot gave before. The first request of each kind goes on to Ingot (REPLAY_UPSTREAM) and
// its answer is kept; every later request of that kind gets the kept answer at once, its body read
// and dropped. A kind is the method, the URL, whether credentials came (git's first request goes
// without them and is answered 401) and, for upload-pack, the command (ls-refs or fetch). So a
// clone or a push timed against it costs the client's git, curl and the round trips, and no server
// work: what no server speaking git over HTTP can go under.
import http from 'node:http'

interface Kept {
  status: number
  headers: Record<string, string>
  body: Buffer
}

const upstream = process.env.REPLAY_UPSTREAM ?? ''
const kept = new Map<string, Kept>()

function kindOf(req: http.IncomingMessage, body: Buffer): string {
  const command = req.url?.endsWith('/git-upload-pack') ? /command=([a-z-]+)/.exec(body.subarray(0, 64).toString('latin1'))?.[1] ?? '' : ''
  return `${req.method} ${req.url} ${req.headers.authorization === undefined ? 'anonymous' : 'credentials'} ${command}`
}

async function readBody(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

/** Asks Ingot, passing on the headers git's answer depends on. */
async function fromUpstream(req: http.IncomingMessage, body: Buffer): Promise<Kept> {
  const headers: Record<string, string> = {}
  for (const name of ['authorization', 'content-type', 'content-encoding', 'git-protocol', 'accept']) {
    const value = req.headers[name]
    if (typeof value === 'string') headers[name] = value
  }
  const res = await fetch(`${upstream}${req.url}`, { method: req.method, headers, ...(req.method === 'POST' ? { body } : {}) })
  const answer: Kept = { status: res.status, headers: {}, body: Buffer.from(await res.arrayBuffer()) }
  for (const name of ['content-type', 'www-authenticate', 'cache-control', 'pragma', 'expires']) {
    const value = res.headers.get(name)
    if (value !== null) answer.headers[name] = value
  }
  return answer
}

const server = http.createServer((req, res) => {
  void (async () => {
    const body = await readBody(req)
    const kind = kindOf(req, body)
    let answer = kept.get(kind)
    if (answer === undefined) {
      answer = await fromUpstream(req, body)
      kept.set(kind, answer)
    }
    res.writeHead(answer.status, { ...answer.headers, 'content-length': String(answer.body.length) })
    res.end(answer.body)
  })().catch((err: unknown) => {
    res.writeHead(502).end(String(err))
  })
})
server.keepAliveTimeout = 60_000
server.listen(Number(process.env.REPLAY_PORT), '127.0.0.1', () => process.stdout.write('READY\n'))
process.once('SIGTERM', () => server.close(() => process.exit(0)))
