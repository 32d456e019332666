// Every INGOT_* setting, parsed and validated once at start. A bad value stops the process with a
// message that names the variable; nothing else in the code reads process.env.
import net from 'node:net'
import path from 'node:path'
import { MIN_SECRET_KEY_LENGTH } from './common/secret-box.js'

export interface Config {
  port: number
  host: string
  dataDir: string
  /** Empty for the embedded SQLite database in the data directory. */
  databaseUrl: string
  /** Base of every URL the API returns, without a trailing slash. */
  externalUrl: string
  /** First start only: the password and token seeded for `root`. */
  rootPassword: string | null
  rootToken: string | null
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'
  /** `auto`: readable lines when standard output is a terminal, JSON lines elsewhere. */
  logFormat: 'pretty' | 'json' | 'auto'
  /** Addresses and CIDR ranges (`127.0.0.0/8`, `::1`) that may read /-/metrics. */
  metricsAllow: readonly string[]
  /**
   * Reverse proxies (addresses and CIDR ranges) whose X-Forwarded-For names the client: the
   * original's `trusted_proxies`. Empty: the connection's address is the client's.
   */
  trustedProxies: readonly string[]
  /** How long one outgoing request (a webhook delivery) may take, connection to last byte. */
  outboundTimeoutMs: number
  /** smtp:// or smtps:// URL of the outgoing mail server; null sends no email. */
  smtpUrl: string | null
  /** The From of every email Ingot sends. */
  emailFrom: string
  /** How many background jobs one process works at once, across kinds (each kind has its own cap too). */
  jobConcurrency: number
  /** Whether `ingot web` works background jobs too (`--no-jobs` turns it off for one process). */
  webJobs: boolean
  /** On SIGTERM/SIGINT, how long running jobs may take to finish before they are handed back to the queue. */
  shutdownTimeoutMs: number
  /** The port on INGOT_HOST where `ingot worker` serves /-/metrics; 0 for none. */
  workerMetricsPort: number
  /** The key secrets at rest are sealed with (common/secret-box.ts); null: the key file in the data directory. */
  secretKey: string | null
  /** Keys secrets were sealed with before a rotation: still opened, and resealed with the current key at start. */
  previousSecretKeys: readonly string[]
  /** Bans after failed password sign-ins (web form and git over HTTP), as the original's rack_attack.git_basic_auth. */
  signInBan: SignInBanConfig
  /** How long a client may take to send a whole request, body included (a push's pack on a slow link). */
  requestTimeoutMs: number
  /** How long a client may take to send a request's headers. */
  headersTimeoutMs: number
  /** How long a connection may stay silent (nothing read or written) before it is closed. */
  connectionTimeoutMs: number
  /** How long an idle kept-alive connection waits for its next request. */
  keepAliveTimeoutMs: number
  /** Time limit of one git service (upload-pack, receive-pack) over HTTP, from start to end. */
  gitServiceTimeoutMs: number
  /** A git service over HTTP that moves no data either way this long is stopped. */
  gitServiceIdleTimeoutMs: number
  /** Git services over HTTP running at once in this process, and from one client address. */
  gitServicesMax: number
  gitServicesPerClient: number
  /** The pack-objects cache shared by identical concurrent fetches (git/pack-objects-cache.ts). */
  packObjectsCache: PackObjectsCacheConfig
  /**
   * How long POST /jobs/request holds a runner's request when no job fits, answering as soon as one
   * becomes pending (long polling); 0 answers 204 at once.
   */
  runnerLongPollSeconds: number
  /** The built-in CI runner `ingot web` starts as a child (services/ci/builtin-runner.ts). */
  builtinRunner: BuiltinRunnerConfig
  /** Git LFS for the whole instance (the original's gitlab.yml `lfs.enabled`); projects' lfs_enabled apply within it. */
  lfsEnabled: boolean
  /** The port of the built-in SSH server for git (src/ssh/) on INGOT_HOST; 0 for none. */
  sshPort: number
  /** The host name clone URLs over SSH name (ssh_url_to_repo). */
  sshHost: string
  /** SSH connections open at once from one client address; more are closed at once. */
  sshConnectionsPerClient: number
}

export interface PackObjectsCacheConfig {
  enabled: boolean
  /** Repositories whose packs are smaller than this fetch without it. */
  minRepositoryBytes: number
  /** The space its files may take together. */
  maxBytes: number
}

export interface BuiltinRunnerConfig {
  /** On by default with the embedded SQLite database (one machine); PostgreSQL setups run `ingot runner`s of their own. */
  enabled: boolean
  concurrency: number
  /** Lets the built-in runner run jobs without bubblewrap (INGOT_RUNNER_UNSANDBOXED). */
  unsandboxed: boolean
}

export interface SignInBanConfig {
  enabled: boolean
  /** Addresses and ranges never counted nor banned. */
  ipWhitelist: readonly string[]
  /** Failures within findTimeSeconds (per address, and per account) that earn a ban. */
  maxRetry: number
  findTimeSeconds: number
  banTimeSeconds: number
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
const LOG_FORMATS = ['pretty', 'json', 'auto'] as const

export function loadConfig(env: Env = process.env): Config {
  const port = parsePort(env.INGOT_PORT)
  const host = nonEmpty(env.INGOT_HOST) ?? '127.0.0.1'
  const dataDir = path.resolve(nonEmpty(env.INGOT_DATA_DIR) ?? './data')
  const databaseUrl = parseDatabaseUrl(env.INGOT_DATABASE_URL)
  const externalUrl = parseExternalUrl(env.INGOT_EXTERNAL_URL, port)
  const rootPassword = nonEmpty(env.INGOT_ROOT_PASSWORD)
  if (rootPassword !== null && rootPassword.length < 8) {
    throw new ConfigError('INGOT_ROOT_PASSWORD must be at least 8 characters long')
  }
  const rootToken = nonEmpty(env.INGOT_ROOT_TOKEN)
  if (rootToken !== null && !/^[A-Za-z0-9_\-.]{16,128}$/.test(rootToken)) {
    throw new ConfigError('INGOT_ROOT_TOKEN must be 16 to 128 characters of letters, digits, "_", "-" or "."')
  }
  const logLevel = nonEmpty(env.INGOT_LOG_LEVEL) ?? 'info'
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new ConfigError(`INGOT_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, not "${logLevel}"`)
  }
  const logFormat = nonEmpty(env.INGOT_LOG_FORMAT) ?? 'auto'
  if (!(LOG_FORMATS as readonly string[]).includes(logFormat)) {
    throw new ConfigError(`INGOT_LOG_FORMAT must be one of ${LOG_FORMATS.join(', ')}, not "${logFormat}"`)
  }
  const metricsAllow = parseAddressList('INGOT_METRICS_ALLOW', env.INGOT_METRICS_ALLOW, ['127.0.0.0/8', '::1'])
  const trustedProxies = parseAddressList('INGOT_TRUSTED_PROXIES', env.INGOT_TRUSTED_PROXIES, [])
  const outboundTimeoutMs = Number(nonEmpty(env.INGOT_OUTBOUND_TIMEOUT_MS) ?? '10000')
  if (!Number.isInteger(outboundTimeoutMs) || outboundTimeoutMs < 1 || outboundTimeoutMs > 600_000) {
    throw new ConfigError('INGOT_OUTBOUND_TIMEOUT_MS must be a number of milliseconds from 1 to 600000')
  }
  const smtpUrl = parseSmtpUrl(env.INGOT_SMTP_URL)
  const emailFrom = nonEmpty(env.INGOT_EMAIL_FROM) ?? `Ingot <ingot@${new URL(externalUrl).hostname}>`
  if (/[\r\n]/.test(emailFrom) || !/@/.test(emailFrom)) {
    throw new ConfigError(`INGOT_EMAIL_FROM must be an email address such as "Ingot <ingot@example.com>", not "${emailFrom}"`)
  }
  const jobConcurrency = parseInteger(env, 'INGOT_JOB_CONCURRENCY', { fallback: 4, min: 1, max: 256, unit: 'number of jobs' })
  const webJobs = parseBoolean(env, 'INGOT_WEB_JOBS', true)
  const shutdownTimeoutMs = parseInteger(env, 'INGOT_SHUTDOWN_TIMEOUT_MS', { fallback: 30_000, min: 0, max: 3_600_000, unit: 'number of milliseconds' })
  const workerMetricsPort = parseInteger(env, 'INGOT_WORKER_METRICS_PORT', { fallback: 0, min: 0, max: 65535, unit: 'port number' })
  const secretKey = nonEmpty(env.INGOT_SECRET_KEY)
  const previousSecretKeys = (nonEmpty(env.INGOT_PREVIOUS_SECRET_KEYS) ?? '').split(',').map((key) => key.trim()).filter((key) => key !== '')
  for (const [name, key] of [['INGOT_SECRET_KEY', secretKey], ...previousSecretKeys.map((key) => ['INGOT_PREVIOUS_SECRET_KEYS', key])] as const) {
    if (key !== null && key.length < MIN_SECRET_KEY_LENGTH) throw new ConfigError(`${name} must hold keys of at least ${MIN_SECRET_KEY_LENGTH} characters`)
  }
  const signInBan: SignInBanConfig = {
    enabled: parseBoolean(env, 'INGOT_SIGN_IN_BAN_ENABLED', true),
    // `none` for an empty list: every address can be banned.
    ipWhitelist: nonEmpty(env.INGOT_SIGN_IN_BAN_IP_WHITELIST)?.toLowerCase() === 'none'
      ? []
      : parseAddressList('INGOT_SIGN_IN_BAN_IP_WHITELIST', env.INGOT_SIGN_IN_BAN_IP_WHITELIST, ['127.0.0.1']),
    maxRetry: parseInteger(env, 'INGOT_SIGN_IN_BAN_MAXRETRY', { fallback: 10, min: 1, max: 1_000_000, unit: 'number of failures' }),
    findTimeSeconds: parseInteger(env, 'INGOT_SIGN_IN_BAN_FINDTIME', { fallback: 60, min: 1, max: 86_400, unit: 'number of seconds' }),
    banTimeSeconds: parseInteger(env, 'INGOT_SIGN_IN_BAN_BANTIME', { fallback: 3600, min: 1, max: 31_536_000, unit: 'number of seconds' }),
  }
  const requestTimeoutMs = parseInteger(env, 'INGOT_REQUEST_TIMEOUT_MS', { fallback: 3_600_000, min: 1000, max: 86_400_000, unit: 'number of milliseconds' })
  const headersTimeoutMs = parseInteger(env, 'INGOT_HEADERS_TIMEOUT_MS', { fallback: 60_000, min: 1000, max: 600_000, unit: 'number of milliseconds' })
  // Node refuses a headers limit over the whole request's.
  if (headersTimeoutMs > requestTimeoutMs) throw new ConfigError('INGOT_HEADERS_TIMEOUT_MS must not be more than INGOT_REQUEST_TIMEOUT_MS')
  const connectionTimeoutMs = parseInteger(env, 'INGOT_CONNECTION_TIMEOUT_MS', { fallback: 120_000, min: 1000, max: 3_600_000, unit: 'number of milliseconds' })
  const keepAliveTimeoutMs = parseInteger(env, 'INGOT_KEEP_ALIVE_TIMEOUT_MS', { fallback: 72_000, min: 1000, max: 600_000, unit: 'number of milliseconds' })
  const gitServiceTimeoutMs = parseInteger(env, 'INGOT_GIT_SERVICE_TIMEOUT_MS', { fallback: 3_600_000, min: 1000, max: 86_400_000, unit: 'number of milliseconds' })
  const gitServiceIdleTimeoutMs = parseInteger(env, 'INGOT_GIT_SERVICE_IDLE_TIMEOUT_MS', { fallback: 300_000, min: 1000, max: 3_600_000, unit: 'number of milliseconds' })
  const gitServicesMax = parseInteger(env, 'INGOT_GIT_SERVICES_MAX', { fallback: 32, min: 1, max: 10_000, unit: 'number of git services' })
  const gitServicesPerClient = parseInteger(env, 'INGOT_GIT_SERVICES_PER_CLIENT', { fallback: 8, min: 1, max: 10_000, unit: 'number of git services' })
  const packObjectsCache: PackObjectsCacheConfig = {
    enabled: parseBoolean(env, 'INGOT_PACK_OBJECTS_CACHE', true),
    minRepositoryBytes: parseInteger(env, 'INGOT_PACK_OBJECTS_CACHE_MIN_REPOSITORY_MB', { fallback: 4, min: 0, max: 1_048_576, unit: 'number of MiB' }) * 1024 * 1024,
    maxBytes: parseInteger(env, 'INGOT_PACK_OBJECTS_CACHE_MAX_MB', { fallback: 2048, min: 1, max: 1_048_576, unit: 'number of MiB' }) * 1024 * 1024,
  }
  const runnerLongPollSeconds = parseInteger(env, 'INGOT_RUNNER_LONG_POLL_SECONDS', { fallback: 10, min: 0, max: 120, unit: 'number of seconds' })
  const builtinRunner: BuiltinRunnerConfig = {
    enabled: parseBoolean(env, 'INGOT_BUILTIN_RUNNER', databaseUrl === ''),
    concurrency: parseInteger(env, 'INGOT_RUNNER_CONCURRENCY', { fallback: 2, min: 1, max: 64, unit: 'number of jobs' }),
    unsandboxed: parseBoolean(env, 'INGOT_RUNNER_UNSANDBOXED', false),
  }
  const sshPort = parseInteger(env, 'INGOT_SSH_PORT', { fallback: 2222, min: 0, max: 65535, unit: 'port number' })
  const sshHost = nonEmpty(env.INGOT_SSH_HOST) ?? new URL(externalUrl).hostname
  if (!/^[A-Za-z0-9.:[\]-]+$/.test(sshHost)) throw new ConfigError(`INGOT_SSH_HOST must be a host name or address, not "${sshHost}"`)
  const sshConnectionsPerClient = parseInteger(env, 'INGOT_SSH_CONNECTIONS_PER_CLIENT', { fallback: 16, min: 1, max: 10_000, unit: 'number of connections' })
  return {
    port, host, dataDir, databaseUrl, externalUrl, rootPassword, rootToken,
    logLevel: logLevel as Config['logLevel'],
    logFormat: logFormat as Config['logFormat'],
    metricsAllow, trustedProxies,
    outboundTimeoutMs,
    smtpUrl, emailFrom,
    jobConcurrency, webJobs, shutdownTimeoutMs, workerMetricsPort,
    secretKey, previousSecretKeys, signInBan,
    requestTimeoutMs, headersTimeoutMs, connectionTimeoutMs, keepAliveTimeoutMs,
    gitServiceTimeoutMs, gitServiceIdleTimeoutMs, gitServicesMax, gitServicesPerClient,
    packObjectsCache,
    runnerLongPollSeconds,
    builtinRunner,
    lfsEnabled: parseBoolean(env, 'INGOT_LFS_ENABLED', true),
    sshPort, sshHost, sshConnectionsPerClient,
  }
}

function nonEmpty(value: string | undefined): string | null {
  return value === undefined || value.trim() === '' ? null : value.trim()
}

function parseInteger(env: Env, name: string, rule: { fallback: number; min: number; max: number; unit: string }): number {
  const raw = nonEmpty(env[name])
  if (raw === null) return rule.fallback
  const value = Number(raw)
  if (!/^\d+$/.test(raw) || value < rule.min || value > rule.max) {
    throw new ConfigError(`${name} must be a ${rule.unit} from ${rule.min} to ${rule.max}, not "${raw}"`)
  }
  return value
}

function parseBoolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = nonEmpty(env[name])?.toLowerCase() ?? null
  if (raw === null) return fallback
  if (raw === 'true' || raw === '1') return true
  if (raw === 'false' || raw === '0') return false
  throw new ConfigError(`${name} must be true or false, not "${raw}"`)
}

function parsePort(value: string | undefined): number {
  const raw = nonEmpty(value)
  if (raw === null) return 8080
  const port = Number(raw)
  if (!/^\d+$/.test(raw) || port < 1 || port > 65535) {
    throw new ConfigError(`INGOT_PORT must be a port number from 1 to 65535, not "${raw}"`)
  }
  return port
}

function parseDatabaseUrl(value: string | undefined): string {
  const raw = nonEmpty(value)
  if (raw === null) return ''
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new ConfigError(`INGOT_DATABASE_URL is not a URL: "${raw}"`)
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new ConfigError('INGOT_DATABASE_URL must be empty (embedded SQLite) or a postgres:// URL')
  }
  return raw
}

function parseExternalUrl(value: string | undefined, port: number): string {
  const raw = nonEmpty(value) ?? `http://localhost:${port}`
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new ConfigError(`INGOT_EXTERNAL_URL is not a URL: "${raw}"`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError('INGOT_EXTERNAL_URL must start with http:// or https://')
  }
  if (url.search || url.hash) throw new ConfigError('INGOT_EXTERNAL_URL must not have a query or fragment')
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '')
}

function parseSmtpUrl(value: string | undefined): string | null {
  const raw = nonEmpty(value)
  if (raw === null) return null
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    // The URL may carry a password: name the variable, not the value.
    throw new ConfigError('INGOT_SMTP_URL is not a URL')
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') {
    throw new ConfigError('INGOT_SMTP_URL must start with smtp:// or smtps://')
  }
  if (url.hostname === '') throw new ConfigError('INGOT_SMTP_URL must name a host')
  return raw
}

/** A comma list of IP addresses and CIDR ranges (`10.0.0.0/8`, `2001:db8::/32`), each checked. */
function parseAddressList(variable: string, value: string | undefined, fallback: readonly string[]): readonly string[] {
  const raw = nonEmpty(value)
  if (raw === null) return fallback
  const entries = raw.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '')
  if (entries.length === 0) throw new ConfigError(`${variable} must name at least one IP address or CIDR range`)
  return entries.map((entry) => {
    const [address = '', prefix, ...rest] = entry.split('/')
    const family = net.isIP(address)
    const maxPrefix = family === 4 ? 32 : 128
    if (family === 0 || rest.length > 0 || (prefix !== undefined && (!/^\d{1,3}$/.test(prefix) || Number(prefix) > maxPrefix))) {
      throw new ConfigError(`${variable} must be a comma list of IP addresses and CIDR ranges such as 10.0.0.0/8, not "${entry}"`)
    }
    return entry
  })
}
