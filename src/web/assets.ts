// The web pages' static files (web/assets/: the stylesheets), served by Ingot itself under
// content-hashed URLs (`/-/assets/ingot.<hash>.css`) that browsers may keep for a year: a changed
// file gets a new URL. Each is read and compressed (Brotli, gzip) once, when the process starts.
// The folder is src/web/assets/, beside this module when it runs from its source (or compiled for
// the tests), and one level up from the bundle (dist/*.js) when it runs built.
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib'
import type { FastifyPluginAsync, FastifyRequest } from 'fastify'

export const ASSETS_PREFIX = '/-/assets'

const ASSETS_DIR = [new URL('./assets/', import.meta.url), new URL('../src/web/assets/', import.meta.url)]
  .find((folder) => existsSync(new URL('ingot.css', folder))) ?? new URL('./assets/', import.meta.url)

const TYPES: Readonly<Record<string, string>> = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
}

interface Asset {
  type: string
  identity: Buffer
  br: Buffer
  gzip: Buffer
}

/** Hashed file name → the asset; logical name (`ingot.css`) → its hashed URL. */
const served = new Map<string, Asset>()
const urls = new Map<string, string>()

for (const name of readdirSync(ASSETS_DIR).sort()) {
  const extension = name.slice(name.lastIndexOf('.'))
  const type = TYPES[extension]
  if (type === undefined) continue
  const identity = readFileSync(new URL(name, ASSETS_DIR))
  const hash = createHash('sha256').update(identity).digest('hex').slice(0, 16)
  const hashedName = `${name.slice(0, -extension.length)}.${hash}${extension}`
  served.set(hashedName, {
    type,
    identity,
    br: brotliCompressSync(identity, { params: { [zlib.BROTLI_PARAM_QUALITY]: zlib.BROTLI_MAX_QUALITY, [zlib.BROTLI_PARAM_SIZE_HINT]: identity.length } }),
    gzip: gzipSync(identity, { level: 9 }),
  })
  urls.set(name, `${ASSETS_PREFIX}/${hashedName}`)
}

/** The URL a page links an asset by (`ingot.css` → `/-/assets/ingot.<hash>.css`). */
export function assetUrl(name: string): string {
  const url = urls.get(name)
  if (url === undefined) throw new Error(`No web asset ${name} in ${ASSETS_DIR.pathname}`)
  return url
}

/** The best encoding the client accepts (a q of 0 refuses one); pages use it too (visit.ts sendPage). */
export function encodingFor(req: FastifyRequest): 'br' | 'gzip' | null {
  const accepted = new Set(String(req.headers['accept-encoding'] ?? '').split(',').flatMap((part) => {
    const [name = '', ...params] = part.trim().toLowerCase().split(';')
    return params.some((param) => /^\s*q=0(?:\.0*)?\s*$/.test(param)) ? [] : [name.trim()]
  }))
  return accepted.has('br') ? 'br' : accepted.has('gzip') || accepted.has('*') ? 'gzip' : null
}

const assets: FastifyPluginAsync = async (app) => {
  app.get(`${ASSETS_PREFIX}/:name`, { config: { auth: 'none' } }, async (req, reply) => {
    const asset = served.get((req.params as { name: string }).name)
    if (asset === undefined) return reply.callNotFound()
    const encoding = encodingFor(req)
    void reply.headers({
      'content-type': asset.type,
      'cache-control': 'public, max-age=31536000, immutable',
      vary: 'Accept-Encoding',
    })
    if (encoding !== null) void reply.header('content-encoding', encoding)
    return reply.send(encoding === null ? asset.identity : asset[encoding])
  })
}

export default assets
