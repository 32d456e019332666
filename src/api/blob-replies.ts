// How routes send a blob's content: raw (the type sniffed from its first bytes, streamed when it is
// too large to hold) or inside a JSON object as Base64 encoded while it streams from git. Shared by
// the blobs and the repository files endpoints.
import type { FastifyReply } from 'fastify'
import type { GitRepository } from '../git/repository.js'
import { Base64Encoder, framed, looksBinary, peekStream, streamBlob } from '../git/blob.js'
import { JSON_TYPE } from './json-type.js'

export interface BlobContent {
  oid: string
  size: number
  /** The bytes when small enough to hold; null to stream them from git. */
  data: Buffer | null
}

/**
 * The blob's bytes as they are: text/plain or application/octet-stream, never a type a browser
 * renders (HTML, SVG) whatever the file's name; app.ts forbids sniffing.
 */
export async function sendRawBlob(reply: FastifyReply, repo: GitRepository, blob: BlobContent): Promise<FastifyReply> {
  const { first, stream } = blob.data === null ? await peekStream(streamBlob(repo, blob.oid)) : { first: blob.data, stream: null }
  return reply
    .header('content-type', looksBinary(first) ? 'application/octet-stream' : 'text/plain; charset=utf-8')
    .header('content-length', String(blob.size))
    .send(stream ?? blob.data)
}

/** Text users stored (a snippet's content) as text/plain, never a type a browser renders. */
export function sendRawText(reply: FastifyReply, text: string): FastifyReply {
  return reply.header('content-type', 'text/plain; charset=utf-8').send(text)
}

/**
 * A JSON object whose `content` is the blob in Base64, encoded as it streams from git: `head` is
 * the JSON before the content's value, `tail` what follows it. Sent past the response schema's
 * serializer, which cannot take a stream.
 */
export function sendStreamedBase64(reply: FastifyReply, repo: GitRepository, oid: string, head: string, tail: string): FastifyReply {
  const content = streamBlob(repo, oid).pipe(new Base64Encoder())
  return reply.header('content-type', JSON_TYPE).send(framed(head, content, tail) as never)
}
