// Git LFS transfers: a 200 MB object uploaded (PUT …/gitlab-lfs/objects/:oid/:size) to and
// downloaded from the built server (`ingot web` on CPU 0, SQLite), beside the floor: a plain Node
// HTTP server on the same core, in the same run, that copies the same bytes to a file (synced, as
// Ingot's blob storage syncs) and back. Each direction is timed BENCH_LFS_RUNS times (the median
// counts), every upload a new object (its first bytes differ), so that Ingot stores each, never
// only links it. The server's resident memory is sampled throughout, after a warm-up transfer of a
// small object: a streamed object must not grow it.
import { spawn, type ChildProcess } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { setTimeout as sleep } from 'node:timers/promises'
import { log, median, ROOT_TOKEN, type Row, rssOf, startBuiltServer, stop } from './harness.js'

const OBJECT_MB = Number(process.env.BENCH_LFS_MB ?? 200)
const RUNS = Number(process.env.BENCH_LFS_RUNS ?? 3)
const SPEED_TARGET = 0.8
const RSS_GROWTH_TARGET_MB = 20
const INGOT_PORT = 18_620
const FLOOR_PORT = 18_621
/** Bytes at the start of the object that differ per upload. */
const HEADER_BYTES = 16

/** The floor: PUT writes the body to a file and syncs it, GET streams the file back. */
const FLOOR_SERVER = `
const fs = require('node:fs')
const http = require('node:http')
const { pipeline } = require('node:stream/promises')
const [port, dir] = process.argv.slice(1)
http.createServer(async (req, res) => {
  const file = dir + '/object'
  try {
    if (req.method === 'PUT') {
      const temporary = file + '.tmp'
      await pipeline(req, fs.createWriteStream(temporary))
      const handle = await fs.promises.open(temporary, 'r')
      await handle.sync()
      await handle.close()
      await fs.promises.rename(temporary, file)
      res.end('{}')
    } else {
      const { size } = await fs.promises.stat(file)
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': size })
      await pipeline(fs.createReadStream(file), res)
    }
  } catch (err) {
    res.statusCode = 500
    res.end(String(err))
  }
}).listen(Number(port), '127.0.0.1', () => process.stdout.write('READY\\n'))
`

async function startFloor(dir: string): Promise<ChildProcess> {
  const child = spawn('taskset', ['-c', '0', process.execPath, '-e', FLOOR_SERVER, String(FLOOR_PORT), dir], { stdio: ['ignore', 'pipe', 'inherit'] })
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => { if (chunk.toString().includes('READY')) resolve() })
    child.once('exit', (code) => reject(new Error(`the floor server exited with ${code}`)))
  })
  return child
}

/** The first bytes of an object, naming its run. */
function headerOf(run: number): Buffer {
  const header = Buffer.alloc(HEADER_BYTES, 0)
  header.write(`run ${run} ${process.pid}`)
  return header
}

/** The object of a run: the source file behind the run's header. */
function objectBody(source: string, header: Buffer): Readable {
  return Readable.from((async function* () {
    yield header
    yield* fs.createReadStream(source, { start: HEADER_BYTES, highWaterMark: 256 * 1024 })
  })())
}

async function oidOf(body: Readable): Promise<string> {
  const hash = createHash('sha256')
  for await (const chunk of body) hash.update(chunk as Buffer)
  return hash.digest('hex')
}

/** One request with a streamed body (or none), its answer read to the end; milliseconds. */
function timedRequest(url: string, method: 'PUT' | 'GET', headers: Record<string, string>, body: Readable | null, expectBytes: number | null): Promise<number> {
  const start = performance.now()
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      let received = 0
      res.on('data', (chunk: Buffer) => { received += chunk.length })
      res.once('end', () => {
        if (res.statusCode !== 200) reject(new Error(`${method} ${url}: ${res.statusCode}`))
        else if (expectBytes !== null && received !== expectBytes) reject(new Error(`${method} ${url}: ${received} of ${expectBytes} bytes`))
        else resolve(performance.now() - start)
      })
      res.once('error', reject)
    })
    req.once('error', reject)
    if (body === null) req.end()
    else pipeline(body, req).catch(reject)
  })
}

/** Runs `work` while sampling the process's resident memory; the peak, in MB. */
async function peakRssDuring<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; peak: number }> {
  let peak = rssOf(pid)
  const sampler = setInterval(() => { peak = Math.max(peak, rssOf(pid)) }, 20)
  try {
    const result = await work()
    return { result, peak: Math.max(peak, rssOf(pid)) }
  } finally {
    clearInterval(sampler)
  }
}

export async function measureLfs(): Promise<Row[]> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ingot-bench-lfs-'))
  const size = OBJECT_MB * 1024 * 1024
  const base = `http://127.0.0.1:${INGOT_PORT}`
  const env = {
    INGOT_DATA_DIR: path.join(work, 'data'), INGOT_DATABASE_URL: '', INGOT_ROOT_TOKEN: ROOT_TOKEN,
    INGOT_LOG_LEVEL: 'warn', INGOT_PORT: String(INGOT_PORT), INGOT_EXTERNAL_URL: base,
  }
  let server: ChildProcess | null = null
  let floor: ChildProcess | null = null
  try {
    fs.mkdirSync(env.INGOT_DATA_DIR)
    fs.mkdirSync(path.join(work, 'floor'))
    log(`[lfs] writing a ${OBJECT_MB} MB object`)
    const source = path.join(work, 'source')
    const out = fs.openSync(source, 'w')
    // (Incompressible, though nothing on the way compresses.)
    const block = randomBytes(1024 * 1024)
    for (let i = 0; i < OBJECT_MB; i++) fs.writeSync(out, block)
    fs.closeSync(out)

    server = await startBuiltServer(env)
    floor = await startFloor(path.join(work, 'floor'))
    const res = await fetch(`${base}/api/v4/projects`, {
      method: 'POST', headers: { 'private-token': ROOT_TOKEN, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'bench-lfs' }),
    })
    if (res.status !== 201) throw new Error(`POST /projects: ${res.status}`)
    const project = await res.json() as { path_with_namespace: string }
    const authorization = `Basic ${Buffer.from(`root:${ROOT_TOKEN}`).toString('base64')}`
    const objectsUrl = `${base}/${project.path_with_namespace}.git/gitlab-lfs/objects`
    // A warm-up transfer of a small object first: the growth measured is a transfer's, not first use's
    // (code compiled, modules loaded, pools made on the first upload and download).
    const warmUp = randomBytes(4 * 1024 * 1024)
    const warmUpOid = createHash('sha256').update(warmUp).digest('hex')
    await timedRequest(`${objectsUrl}/${warmUpOid}/${warmUp.length}`, 'PUT', { authorization }, Readable.from([warmUp]), null)
    await timedRequest(`${objectsUrl}/${warmUpOid}`, 'GET', { authorization }, null, warmUp.length)
    await timedRequest(`http://127.0.0.1:${FLOOR_PORT}/`, 'PUT', {}, Readable.from([warmUp]), null)
    await timedRequest(`http://127.0.0.1:${FLOOR_PORT}/`, 'GET', {}, null, warmUp.length)
    const rssBefore = rssOf(server.pid!)
    let rssPeak = rssBefore
    const floorBefore = rssOf(floor.pid!)
    let floorPeak = floorBefore

    const ingot = { upload: [] as number[], download: [] as number[] }
    const plain = { upload: [] as number[], download: [] as number[] }
    for (let run = 0; run < RUNS; run++) {
      log(`[lfs] run ${run + 1} of ${RUNS}`)
      const header = headerOf(run)
      const oid = await oidOf(objectBody(source, header))
      const headers = { authorization, 'content-type': 'application/octet-stream', 'content-length': String(size) }
      const upload = await peakRssDuring(server.pid!, () => timedRequest(`${objectsUrl}/${oid}/${size}`, 'PUT', headers, objectBody(source, header), null))
      ingot.upload.push(upload.result)
      const download = await peakRssDuring(server.pid!, () => timedRequest(`${objectsUrl}/${oid}`, 'GET', { authorization }, null, size))
      ingot.download.push(download.result)
      rssPeak = Math.max(rssPeak, upload.peak, download.peak)
      log(`[lfs] Ingot RSS ${Math.round(rssBefore)} MB before; peak ${Math.round(upload.peak)} MB uploading, ${Math.round(download.peak)} MB downloading`)
      const floorUpload = await peakRssDuring(floor.pid!, () => timedRequest(`http://127.0.0.1:${FLOOR_PORT}/`, 'PUT', { 'content-length': String(size) }, objectBody(source, header), null))
      plain.upload.push(floorUpload.result)
      const floorDownload = await peakRssDuring(floor.pid!, () => timedRequest(`http://127.0.0.1:${FLOOR_PORT}/`, 'GET', {}, null, size))
      plain.download.push(floorDownload.result)
      floorPeak = Math.max(floorPeak, floorUpload.peak, floorDownload.peak)
      await sleep(100)
    }

    const speed = (ms: number) => `${(OBJECT_MB / (ms / 1000)).toFixed(0)} MB/s`
    const rows: Row[] = []
    for (const direction of ['upload', 'download'] as const) {
      const ours = median(ingot[direction])
      const theirs = median(plain[direction])
      const ratio = theirs / ours
      rows.push({
        metric: `LFS ${direction} of a ${OBJECT_MB} MB object (median of ${RUNS}; floor: a plain Node HTTP server copying it to a synced file and back)`,
        value: `${speed(ours)} vs floor ${speed(theirs)}: ${(ratio * 100).toFixed(0)}%`,
        target: `≥ ${SPEED_TARGET * 100}% of the floor`, ok: ratio >= SPEED_TARGET,
      })
    }
    rows.push({
      metric: `LFS: server RSS during ${RUNS} uploads and downloads of ${OBJECT_MB} MB`,
      value: `${Math.round(rssBefore)} → peak ${Math.round(rssPeak)} MB (the floor's: ${Math.round(floorBefore)} → ${Math.round(floorPeak)} MB)`,
      target: `grows ≤ ${RSS_GROWTH_TARGET_MB} MB`, ok: rssPeak - rssBefore <= RSS_GROWTH_TARGET_MB,
    })
    return rows
  } finally {
    if (server !== null) await stop(server)
    if (floor !== null) await stop(floor)
    fs.rmSync(work, { recursive: true, force: true })
  }
}
