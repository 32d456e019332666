// Downloads: the Content-Disposition of one, an ASCII fallback name for old clients and the name as
// it is (RFC 5987) when it is not plain ASCII, so no name can break the header; and a stream sent
// as one, as the API sends artifacts and exports (the web's artifact and export downloads send them the same way).
import type { FastifyReply } from 'fastify'

export function attachmentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_')
  if (ascii === fileName) return `attachment; filename="${fileName}"`
  const encoded = encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`
}

/** A stream of `size` bytes as an attachment of that name and type. */
export function sendAttachment(reply: FastifyReply, fileName: string, type: string, size: number, stream: NodeJS.ReadableStream): FastifyReply {
  return reply.type(type).header('content-disposition', attachmentDisposition(fileName))
    .header('content-transfer-encoding', 'binary').header('content-length', String(size)).send(stream)
}
