// A multipart/form-data body as a browser or an HTTP client sends it (fields and files), for
// requests made with app.inject.

export type MultipartPart = string | { name: string; data: Buffer }

export async function multipart(parts: Record<string, MultipartPart>): Promise<{ payload: Buffer; contentType: string }> {
  const form = new FormData()
  for (const [field, value] of Object.entries(parts)) {
    if (typeof value === 'string') form.append(field, value)
    else form.append(field, new Blob([value.data]), value.name)
  }
  const request = new Request('http://ingot.test', { method: 'POST', body: form })
  return { payload: Buffer.from(await request.arrayBuffer()), contentType: request.headers.get('content-type') ?? '' }
}
