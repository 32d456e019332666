// The built-in SSH server for git (issue 17, "Git over SSH"), on the ssh2 library: public-key
// authentication only (users' keys and deploy keys, ssh-identity.ts), one session per command as
// gitlab-shell behind OpenSSH answers it (git-over-ssh.ts), and nothing else: no pty, shell
// beyond the greeting, environment but GIT_PROTOCOL, subsystem or forwarding. Limits: connections
// per client address (INGOT_SSH_CONNECTIONS_PER_CLIENT), a time to authenticate, silent
// connections closed (INGOT_CONNECTION_TIMEOUT_MS), authentication attempts per connection, and
// connections that never authenticate counted towards the address's sign-in ban (as failed
// passwords over HTTP are); git itself runs under the git service limits.
import net from 'node:net'
import path from 'node:path'
import type ssh2 from 'ssh2'
import type { AuthContext, Connection, ServerChannel } from 'ssh2'
import type { AppContext } from '../context.js'
import { installHooks } from '../git/hooks.js'
import { gitProtocolOf } from '../git/smart-http.js'
import { answerShell, runCommand, SSH_MESSAGES, refusalLine, type SshSessionContext } from './git-over-ssh.js'
import { loadHostKeys } from './host-keys.js'
import { findSshIdentity, sshFingerprint, type SshIdentity } from './ssh-identity.js'

/** How long a client has to authenticate, as sshd's LoginGraceTime (shorter: git clients answer at once). */
const LOGIN_GRACE_MS = 30_000

/** Refused public keys after which a connection is closed, as sshd's MaxAuthTries. */
const MAX_AUTH_TRIES = 6

/** The ciphers of Node's OpenSSL (AES-GCM and AES-CTR): ssh2's chacha20-poly1305 without its native addon is JavaScript, and slow. */
const CIPHERS: ssh2.CipherAlgorithm[] = ['aes128-gcm@openssh.com', 'aes256-gcm@openssh.com', 'aes128-ctr', 'aes192-ctr', 'aes256-ctr']

export interface SshServer {
  /** The port it listens on (the configured one, or the one chosen for port 0 in tests). */
  port: number
  close(): Promise<void>
}

/** Starts the server on INGOT_HOST:`port` (INGOT_SSH_PORT unless given). */
export async function startSshServer(ctx: AppContext, options: { port?: number } = {}): Promise<SshServer> {
  const { config, log } = ctx
  const hooksDir = await installHooks(path.join(config.dataDir, 'git-hooks'))
  // Imported here, not with this module: loading ssh2 instantiates a WebAssembly poly1305 holding
  // 16 MiB, kept for nothing by every process that serves no SSH (the bundle hoists the static
  // imports of the packages it leaves outside to its top).
  const { default: ssh2 } = await import('ssh2')
  const protocol = new ssh2.Server({ hostKeys: loadHostKeys(config.dataDir, ssh2.utils), ident: 'Ingot', algorithms: { cipher: CIPHERS } })
  const byAddress = new Map<string, number>()
  const connections = new Set<Connection>()

  const listener = net.createServer((socket) => {
    const address = socket.remoteAddress ?? ''
    const open = byAddress.get(address) ?? 0
    if (open >= config.sshConnectionsPerClient || ctx.throttles.signInBans.addressBannedNow(address) === true) {
      socket.destroy()
      return
    }
    byAddress.set(address, open + 1)
    socket.once('close', () => {
      const left = (byAddress.get(address) ?? 1) - 1
      if (left === 0) byAddress.delete(address)
      else byAddress.set(address, left)
    })
    socket.setTimeout(config.connectionTimeoutMs, () => socket.destroy())
    socket.setNoDelay(true)
    // ssh2 writes every packet as it makes it; what one read of the client's answers (the key
    // exchange reply and NEWKEYS; the greeting's data, exit status, EOF and close) leaves in one
    // write: fewer system calls here, fewer wake-ups of the client. Added before ssh2's own listener.
    socket.on('data', () => {
      socket.cork()
      setImmediate(() => socket.uncork())
    })
    // A ban not yet cached is looked up while the handshake goes on.
    void ctx.throttles.signInBans.addressBanned(address).then((banned) => { if (banned) socket.destroy() }, () => {})
    protocol.injectSocket(socket)
  })

  protocol.on('connection', (client: Connection, info) => {
    connections.add(client)
    const address = info.ip
    let identity: SshIdentity | null = null
    let keysRefused = 0
    // OpenSSH asks whether a key would do, then signs with it: one lookup per key and connection.
    const identities = new Map<string, Promise<SshIdentity | null>>()
    const identityOf = (keyBlob: Buffer) => {
      const fingerprint = sshFingerprint(keyBlob)
      let found = identities.get(fingerprint)
      if (found === undefined) identities.set(fingerprint, found = findSshIdentity(ctx.db, fingerprint))
      return found
    }
    const grace = setTimeout(() => client.end(), LOGIN_GRACE_MS)
    client.on('error', (err) => log.debug({ err, address }, 'SSH connection failed'))
    client.on('close', () => {
      clearTimeout(grace)
      connections.delete(client)
      if (identity === null && keysRefused > 0) void ctx.throttles.signInBans.failed({ address, account: null }).catch(() => {})
    })
    client.on('authentication', (auth: AuthContext) => {
      if (auth.method !== 'publickey') return auth.reject(['publickey'])
      const refuseKey = () => {
        keysRefused += 1
        auth.reject(['publickey'])
        if (keysRefused >= MAX_AUTH_TRIES) client.end()
      }
      authenticate(auth, identityOf, ssh2.utils.parseKey).then((found) => {
        if (found === null) return refuseKey()
        // Without a signature the client only asks whether the key would do (it signs next).
        if (auth.signature === undefined) return auth.accept()
        identity = found
        clearTimeout(grace)
        void ctx.throttles.signInBans.succeeded({ address, account: null }).catch(() => {})
        auth.accept()
      }, (err: unknown) => {
        log.error({ err, address }, 'SSH authentication failed')
        refuseKey()
      })
    })
    client.on('ready', () => {
      const session: SshSessionContext = { ctx, identity: identity!, address, hooksDir }
      client.on('session', (accept) => serveSession(session, accept()))
      // Port forwarding and the like: "administratively prohibited", as no-port-forwarding has it.
      client.on('tcpip', (_accept, reject) => reject())
      client.on('openssh.streamlocal', (_accept, reject) => reject())
      client.on('request', (_accept, reject) => reject?.())
    })
  })

  const port = options.port ?? config.sshPort
  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject)
    listener.listen(port, config.host, () => {
      listener.off('error', reject)
      resolve()
    })
  })
  const bound = (listener.address() as net.AddressInfo).port
  log.info({ host: config.host, port: bound }, 'SSH server listening')
  return {
    port: bound,
    async close() {
      const closed = new Promise<void>((resolve) => listener.close(() => resolve()))
      for (const client of connections) client.end()
      await closed
    },
  }
}

/** The key's identity when the key is one Ingot knows and, when signed, the signature is its own. */
async function authenticate(
  auth: AuthContext & { method: 'publickey' }, identityOf: (keyBlob: Buffer) => Promise<SshIdentity | null>, parseKey: typeof ssh2.utils.parseKey,
): Promise<SshIdentity | null> {
  const identity = await identityOf(auth.key.data)
  if (identity === null || auth.signature === undefined) return identity
  const key = parseKey(auth.key.data)
  if (key instanceof Error || Array.isArray(key)) return null
  return key.verify(auth.blob!, auth.signature, auth.hashAlgo) === true ? identity : null
}

/** One session: the greeting, one command, or a refusal; GIT_PROTOCOL is the only variable taken. */
function serveSession(session: SshSessionContext, ssh: ssh2.Session): void {
  let gitProtocol: string | null = null
  ssh.on('env', (accept, reject, info) => {
    const value = info.key === 'GIT_PROTOCOL' ? gitProtocolOf(info.val) : null
    if (value === null) return reject?.()
    gitProtocol = value
    accept?.()
  })
  ssh.on('pty', (_accept, reject) => reject?.())
  ssh.on('x11', (_accept, reject) => reject?.())
  ssh.on('auth-agent', (_accept, reject) => reject?.())
  ssh.on('subsystem', (_accept, reject) => reject?.())
  // A channel's stream fails when its client goes away mid-write; the command's end tells the rest.
  const opened = (channel: ServerChannel) => {
    channel.on('error', (err: Error) => session.ctx.log.debug({ err }, 'SSH channel failed'))
    channel.stderr.on('error', () => {})
    return channel
  }
  ssh.on('shell', (accept) => answerShell(session, opened(accept())))
  ssh.on('exec', (accept, _reject, info) => {
    const channel = opened(accept())
    runCommand(session, channel, info.command, gitProtocol).catch((err: unknown) => {
      session.ctx.log.error({ err }, 'git over SSH failed')
      if (channel.writable) {
        channel.stderr.write(refusalLine(SSH_MESSAGES.failed))
        channel.exit(1)
        channel.end()
      }
    })
  })
}
