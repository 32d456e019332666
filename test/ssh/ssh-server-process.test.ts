// `ingot web` starts the SSH server beside HTTP and stops it with the process; its host keys are
// made at the first start (mode 0600) and kept, so the server's identity survives a restart.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs/promises'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { freePort } from '../helpers/ports.js'
import { testDatabaseServer } from '../helpers/app.js'
import { ingotMain } from '../helpers/ingot-command.js'

function startWeb(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [ingotMain(), 'web'], {
    env: { ...process.env, INGOT_BUILTIN_RUNNER: 'false', INGOT_LOG_LEVEL: 'info', INGOT_LOG_FORMAT: 'json', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  return new Promise((resolve, reject) => {
    let out = ''
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      if (out.includes('Ingot is serving')) resolve(child)
    })
    child.once('exit', (code) => reject(new Error(`ingot web exited with ${code}: ${out}`)))
  })
}

/** The first line an SSH server sends. */
function bannerOf(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1')
    socket.once('data', (chunk) => { resolve(chunk.toString()); socket.destroy() })
    socket.once('error', reject)
  })
}

function stopped(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code))
    child.kill('SIGTERM')
  })
}

describe('the SSH server of ingot web', { skip: testDatabaseServer() !== null ? 'SQLite only: the process is the subject' : false }, () => {
  it('listens on INGOT_SSH_PORT with host keys kept in the data directory, and stops on SIGTERM', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ingot-ssh-process-'))
    try {
      const env = { INGOT_DATA_DIR: dataDir, INGOT_PORT: String(await freePort()), INGOT_SSH_PORT: String(await freePort()), INGOT_ROOT_PASSWORD: 'root-password-for-tests' }
      const keyFiles = ['ssh_host_ed25519_key', 'ssh_host_rsa_key'].map((name) => path.join(dataDir, 'ssh', name))
      let web = await startWeb(env)
      const first = await Promise.all(keyFiles.map((file) => fs.readFile(file, 'utf8')))
      for (const file of keyFiles) assert.equal((await fs.stat(file)).mode & 0o777, 0o600)
      assert.match(first[0]!, /BEGIN OPENSSH PRIVATE KEY/)
      assert.match(await bannerOf(Number(env.INGOT_SSH_PORT)), /^SSH-2\.0-Ingot/)
      assert.equal(await stopped(web), 0)
      web = await startWeb(env)
      assert.deepEqual(await Promise.all(keyFiles.map((file) => fs.readFile(file, 'utf8'))), first)
      assert.match(await bannerOf(Number(env.INGOT_SSH_PORT)), /^SSH-2\.0-Ingot/)
      assert.equal(await stopped(web), 0)
    } finally {
      await fs.rm(dataDir, { recursive: true, force: true })
    }
  })
})
