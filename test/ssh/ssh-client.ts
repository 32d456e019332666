// The real OpenSSH client and git against Ingot's SSH server: keys made with ssh-keygen in a
// scratch directory, `ssh` and `git` run with no configuration of the machine or the user.
import { execFile } from 'node:child_process'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import type { TestApp } from '../helpers/app.js'
import { gitClientEnvironment } from '../helpers/git-server.js'
import { startSshServer, type SshServer } from '../../src/ssh/ssh-server.js'
import { addSshKey } from '../../src/services/ssh-keys/add-ssh-key.js'
import { parseSshPublicKey } from '../../src/services/ssh-keys/add-ssh-key.js'
import type { DeployKeyRow } from '../../src/db/schema.js'

export interface RunResult {
  code: number
  stdout: string
  stderr: string
}

export interface SshKeyPair {
  privateKeyFile: string
  publicKey: string
}

export interface SshClient {
  server: SshServer
  dir: string
  /** `ssh://git@127.0.0.1:<port>/<fullPath>.git` */
  url(fullPath: string): string
  makeKey(type?: 'ed25519' | 'rsa'): Promise<SshKeyPair>
  /** `ssh` with `key` against the server; `args` after the destination (a command, or none for the greeting). */
  ssh(key: SshKeyPair, args?: readonly string[], options?: { tty?: boolean; options?: readonly string[] }): Promise<RunResult>
  /** git with GIT_SSH_COMMAND using `key`; never throws. */
  git(key: SshKeyPair, args: readonly string[], options?: { cwd?: string; env?: Record<string, string> }): Promise<RunResult>
  ok(key: SshKeyPair, args: readonly string[], options?: { cwd?: string }): Promise<string>
  close(): Promise<void>
}

function run(command: string, args: readonly string[], options: { cwd?: string; env: Record<string, string> }): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: options.cwd, env: options.env, maxBuffer: 64 * 1024 * 1024, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1
      resolve({ code, stdout, stderr })
    })
  })
}

export async function startSshClient(t: TestApp): Promise<SshClient> {
  const server = await startSshServer(t.ctx, { port: 0 })
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ingot-ssh-client-'))
  const home = path.join(dir, '.home')
  await fs.mkdir(home)
  let keys = 0
  const env = gitClientEnvironment(home)
  const sshOptions = (key: SshKeyPair) => [
    '-i', key.privateKeyFile, '-o', 'IdentitiesOnly=yes', '-o', 'IdentityAgent=none', '-o', 'StrictHostKeyChecking=no',
    '-o', 'UserKnownHostsFile=/dev/null', '-o', 'BatchMode=yes', '-o', 'LogLevel=ERROR', '-F', '/dev/null', '-p', String(server.port),
  ]
  const git: SshClient['git'] = (key, args, options = {}) => run('git', ['-c', 'init.defaultBranch=master', ...args], {
    cwd: options.cwd ?? dir,
    env: { ...env, GIT_SSH_COMMAND: `ssh ${sshOptions(key).join(' ')}`, ...options.env },
  })
  return {
    server,
    dir,
    url: (fullPath) => `ssh://git@127.0.0.1:${server.port}/${fullPath}.git`,
    async makeKey(type = 'ed25519') {
      keys += 1
      const privateKeyFile = path.join(dir, `key${keys}`)
      const made = await run('ssh-keygen', ['-q', '-t', type, ...(type === 'rsa' ? ['-b', '2048'] : []), '-N', '', '-C', `key${keys}`, '-f', privateKeyFile], { env })
      if (made.code !== 0) throw new Error(`ssh-keygen failed: ${made.stderr}`)
      return { privateKeyFile, publicKey: (await fs.readFile(`${privateKeyFile}.pub`, 'utf8')).trim() }
    },
    ssh: (key, args = [], options = {}) => run('ssh', [...sshOptions(key), ...(options.options ?? []), options.tty ? '-tt' : '-T', 'git@127.0.0.1', ...args], { env }),
    git,
    async ok(key, args, options) {
      const result = await git(key, args, options)
      if (result.code !== 0) throw new Error(`git ${args.join(' ')} failed (${result.code}):\n${result.stderr}`)
      return result.stdout
    },
    async close() {
      await server.close()
      await fs.rm(dir, { recursive: true, force: true })
    },
  }
}

/** Registers `key` as one of the user's SSH keys. */
export async function addUserKey(t: TestApp, userId: number, key: SshKeyPair): Promise<void> {
  await addSshKey(t.ctx.db, userId, { title: 'test key', key: key.publicKey })
}

/** A deploy key enabled on the project (read-only unless canPush). */
export async function addDeployKey(t: TestApp, projectId: number, key: SshKeyPair, canPush: boolean, userId: number | null): Promise<DeployKeyRow> {
  const parsed = (await parseSshPublicKey(key.publicKey))!
  const now = Date.now()
  const row = await t.ctx.db.insertInto('deploy_keys').values({
    title: 'deploy', key: parsed.key, fingerprint: parsed.fingerprint, key_type: parsed.type, key_bits: parsed.bits,
    user_id: userId, created_at: now, updated_at: now,
  }).returningAll().executeTakeFirstOrThrow()
  await t.ctx.db.insertInto('deploy_keys_projects').values({
    deploy_key_id: row.id, project_id: projectId, can_push: canPush ? 1 : 0, created_at: now, updated_at: now,
  }).execute()
  return row
}
