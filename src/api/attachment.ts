// Downloads: the Content-Disposition (an ASCII fallback name for old clients, and the name as it is,
// RFC 5987, when it is not plain ASCII, so no name can break the header), and sending a stored file.
import type { FastifyReply } from 'fastify'

export function attachmentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_')
  if (ascii === fileName) return `attachment; filename="${fileName}"`
  const encoded = encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`
}

/** Sends a stored file as a download: its type, its name (attachmentDisposition) and its length. */
export function sendDownload(reply: FastifyReply, contentType: string, file: { fileName: string; size: number; stream: NodeJS.ReadableStream }): FastifyReply {
  return reply.type(contentType).header('content-disposition', attachmentDisposition(file.fileName))
    .header('content-length', String(file.size)).send(file.stream)
}
