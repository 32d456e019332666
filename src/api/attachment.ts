// The Content-Disposition of a download: an ASCII fallback name for old clients, and the name as it
// is (RFC 5987) when it is not plain ASCII, so no name can break the header.
export function attachmentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_')
  if (ascii === fileName) return `attachment; filename="${fileName}"`
  const encoded = encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`
}
