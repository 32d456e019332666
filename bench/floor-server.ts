// The separate-process floor of bench/api-compare.ts: a minimal Fastify server answering each URL
// with the status, headers and body Ingot sent for it (captured by the bench beforehand and passed
// as FLOOR_ANSWERS, a JSON file of {url, status, headers, body}), nothing else per request. Any
// method (bench/load-mix.ts replays its writes' answers too); a body marked base64 is sent as bytes.
import fs from 'node:fs'
import Fastify from 'fastify'

export interface FloorAnswer {
  url: string
  status: number
  headers: Record<string, string>
  body: string
  /** The body is base64 of the bytes to send (a compressed page). */
  base64?: boolean
}

const answers = new Map<string, FloorAnswer & { bytes: string | Buffer }>()
for (const answer of JSON.parse(fs.readFileSync(process.env.FLOOR_ANSWERS ?? '', 'utf8')) as FloorAnswer[]) {
  answers.set(answer.url, { ...answer, bytes: answer.base64 === true ? Buffer.from(answer.body, 'base64') : answer.body })
}

const app = Fastify({ logger: false })
app.all('/*', async (req, reply) => {
  const answer = answers.get(req.url)
  if (answer === undefined) return reply.code(404).send()
  return reply.code(answer.status).headers(answer.headers).send(answer.bytes)
})
await app.listen({ port: Number(process.env.FLOOR_PORT), host: '127.0.0.1' })
process.stdout.write('READY\n')
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)))
