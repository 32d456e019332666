// Git over SSH (issue 17): a clone of the M fixture from the built `ingot web`'s SSH server beside
// the same repository cloned through OpenSSH's sshd running git-upload-pack (Debian
// openssh-server, started here on a loopback port with its own host key and authorized_keys),
// and the connection set-up and authentication of `ssh -T` (the greeting) beside sshd running
// `true`. Both servers are pinned to CPU 0, the clients run on CPU 1; contenders alternate.
// Ports 18600–18619.
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { runGit } from '../src/git/command.js'
import { RepositoryStorage } from '../src/git/storage.js'
import { ensureFixtures } from './git-fixtures.js'
import { log, median, ROOT_TOKEN, rootApi, startBuiltServer, stop, timed, type Row } from './harness.js'

const PORT = 18_600
const SSH_PORT = 18_601
const SSHD_PORT = 18_602
const BASE = `http://127.0.0.1:${PORT}`
const CLONE_RUNS = Number(process.env.BENCH_SSH_CLONE_RUNS ?? 5)
const CONNECT_RUNS = 30
const SSHD = '/usr/sbin/sshd'

const api = (method: string, url: string, body?: unknown) => rootApi(BASE, method, url, body)

/** sshd on SSHD_PORT with its own host key, letting `publicKey` in as root; null when not installed. */
async function startSshd(dir: string, publicKey: string): Promise<ChildProcess | null> {
  if (!fs.existsSync(SSHD)) return null
  const hostKey = path.join(dir, 'sshd_host_ed25519_key')
  await timed('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', hostKey])
  fs.writeFileSync(path.join(dir, 'authorized_keys'), `${publicKey}\n`, { mode: 0o600 })
  const config = path.join(dir, 'sshd_config')
  fs.writeFileSync(config, [
    `Port ${SSHD_PORT}`, 'ListenAddress 127.0.0.1', `HostKey ${hostKey}`, `AuthorizedKeysFile ${path.join(dir, 'authorized_keys')}`,
    `PidFile ${path.join(dir, 'sshd.pid')}`, 'StrictModes no', 'PasswordAuthentication no', 'KbdInteractiveAuthentication no',
    'UsePAM no', 'UseDNS no', 'PermitRootLogin prohibit-password', 'AcceptEnv GIT_PROTOCOL', 'PrintMotd no', 'PrintLastLog no', '',
  ].join('\n'))
  fs.mkdirSync('/run/sshd', { recursive: true })
  const child = spawn('taskset', ['-c', '0', SSHD, '-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'inherit'] })
  for (let i = 0; i < 500; i += 1) {
    if (child.exitCode !== null) throw new Error(`sshd exited with ${child.exitCode}`)
    if (fs.existsSync(path.join(dir, 'sshd.pid'))) return child
    await sleep(10)
  }
  throw new Error('sshd did not start')
}

export async function measureSsh(): Promise<Row[]> {
  const fixtures = await ensureFixtures()
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ingot-bench-ssh-'))
  const dataDir = path.join(dir, 'data')
  const clientKey = path.join(dir, 'client_key')
  await timed('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', clientKey])
  const publicKey = fs.readFileSync(`${clientKey}.pub`, 'utf8').trim()
  const server = await startBuiltServer({
    INGOT_PORT: String(PORT), INGOT_SSH_PORT: String(SSH_PORT), INGOT_DATA_DIR: dataDir, INGOT_ROOT_TOKEN: ROOT_TOKEN,
    INGOT_ROOT_PASSWORD: 'bench-root-password', INGOT_LOG_LEVEL: 'warn', INGOT_DATABASE_URL: '',
  })
  const sshd = await startSshd(dir, publicKey)
  const rows: Row[] = []
  try {
    const project = await api('POST', '/projects', { name: 'ssh-m', visibility: 'private', default_branch: 'master' }) as { id: number; path_with_namespace: string }
    const repository = path.join(dataDir, 'repositories', `${RepositoryStorage.diskPath(project.id)}.git`)
    fs.cpSync(path.join(fixtures.M, 'objects'), path.join(repository, 'objects'), { recursive: true })
    const tip = (await runGit(['rev-parse', 'refs/heads/master'], { gitDir: fixtures.M })).trim()
    await runGit(['update-ref', 'refs/heads/master', tip], { gitDir: repository })
    await api('POST', '/user/keys', { title: 'bench', key: publicKey })

    const sshCommand = (port: number) => `ssh -i ${clientKey} -F /dev/null -o IdentitiesOnly=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o BatchMode=yes -p ${port}`
    const gitEnv = (port: number) => ({ GIT_SSH_COMMAND: sshCommand(port), HOME: dir, GIT_CONFIG_NOSYSTEM: '1' })
    const clone = (url: string, port: number, i: number) =>
      timed('git', ['clone', '--quiet', '--no-checkout', url, path.join(dir, `clone-${port}-${i}`)], { env: gitEnv(port) })
        .finally(() => fs.rmSync(path.join(dir, `clone-${port}-${i}`), { recursive: true, force: true }))
    const ingotUrl = `ssh://git@127.0.0.1:${SSH_PORT}/${project.path_with_namespace}.git`
    const sshdUrl = `ssh://root@127.0.0.1:${SSHD_PORT}${repository}`
    await clone(ingotUrl, SSH_PORT, -1) // warm: the page cache and the first git
    const ingotClones: number[] = []
    const sshdClones: number[] = []
    for (let i = 0; i < CLONE_RUNS; i += 1) {
      ingotClones.push(await clone(ingotUrl, SSH_PORT, i))
      if (sshd !== null) sshdClones.push(await clone(sshdUrl, SSHD_PORT, i))
    }
    const ingotClone = median(ingotClones)
    const connect = (port: number, user: string, command: readonly string[]) =>
      timed('ssh', [...sshCommand(port).split(' ').slice(1), '-T', `${user}@127.0.0.1`, ...command])
    const ingotConnects: number[] = []
    const sshdConnects: number[] = []
    for (let i = 0; i < CONNECT_RUNS; i += 1) {
      ingotConnects.push(await connect(SSH_PORT, 'git', []))
      if (sshd !== null) sshdConnects.push(await connect(SSHD_PORT, 'root', ['true']))
    }
    const ingotConnect = median(ingotConnects)
    rows.push({ metric: 'SSH: clone M (git over Ingot SSH)', value: `${ingotClone.toFixed(0)} ms`, target: '', ok: null })
    if (sshd === null) {
      log('sshd is not installed: no OpenSSH baseline')
    } else {
      const sshdClone = median(sshdClones)
      rows.push({ metric: 'SSH: clone M through OpenSSH sshd + git-upload-pack', value: `${sshdClone.toFixed(0)} ms`, target: '', ok: null })
      rows.push({ metric: 'SSH: clone M, Ingot ÷ sshd', value: `${(ingotClone / sshdClone).toFixed(2)}×`, target: '≤ 1.10×', ok: ingotClone / sshdClone <= 1.10 })
      rows.push({ metric: 'SSH: connect + authenticate, sshd running `true` (median)', value: `${median(sshdConnects).toFixed(1)} ms`, target: '', ok: null })
    }
    rows.push({ metric: 'SSH: connect + authenticate, `ssh -T` greeting (median)', value: `${ingotConnect.toFixed(1)} ms`, target: '≤ 30 ms', ok: ingotConnect <= 30 })
  } finally {
    if (sshd !== null) await stop(sshd)
    await stop(server)
    fs.rmSync(dir, { recursive: true, force: true })
  }
  return rows
}
