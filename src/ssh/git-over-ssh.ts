// What an authenticated SSH client may run, answered as gitlab-shell answers it: the greeting for a
// session without a command (`ssh -T git@host`), git's upload-pack, receive-pack and upload-archive
// on a project's or wiki's repository with the access rules of smart HTTP (services/git-access),
// and git-lfs-authenticate. Pushes go through the one push path: refusalOf in receive-pack's
// pre-receive hook (its refusal shown as `remote: …`), afterPush from its report before the channel
// closes. Refusals are written to the channel's stderr as `> Ingot: <reason>` with exit status 1.
import type { Duplex } from 'node:stream'
import type { ServerChannel } from 'ssh2'
import type { AppContext } from '../context.js'
import type { Actor } from '../auth/actor.js'
import { serveHooks, type HookHandlers, type PushWatch } from '../git/hooks.js'
import { hookPipesOf, startConnectedService, type ServiceOptions } from '../git/smart-http.js'
import { checkGitAccess, GitAccessDenied, GIT_ACCESS_MESSAGES, type GitAccessGranted, type GitAccessor, type GitCommand } from '../services/git-access/git-access.js'
import { gitServiceSlotsOf } from '../services/git-access/service-slots.js'
import { attachPackObjectsCache, packObjectsHookFor } from '../services/git-access/pack-objects-cache.js'
import { lfsAuthenticateAnswer, type LfsSshSubject } from '../services/lfs/ssh-authenticate.js'
import { afterPush } from '../services/push/after-push.js'
import { refusalOf } from '../services/push/check-push.js'
import { getApplicationSettings } from '../services/settings.js'
import { ensureGhostUser } from '../services/users/ghost-user.js'
import { markWikiActivity } from '../services/wikis/wiki-commits.js'
import { touchDeployKey, type SshIdentity } from './ssh-identity.js'
import { parseSshCommand } from './ssh-command.js'

const PRODUCT = 'Ingot'

/** gitlab-shell's preface of the lines it writes to a client's terminal. */
export function refusalLine(message: string): string {
  return message.split('\n').map((line) => `> ${PRODUCT}: ${line}`).join('\n') + '\n'
}

export const SSH_MESSAGES = {
  disallowed: 'Disallowed command',
  busyClient: 'Too many git operations from your address are running. Please retry later.',
  busyServer: 'The server is running too many git operations. Please retry later.',
  failed: 'The command failed. Please try again later.',
}

/** What one SSH connection knows for its commands. */
export interface SshSessionContext {
  ctx: AppContext
  identity: SshIdentity
  /** The client's address, for the git service slots. */
  address: string
  hooksDir: string
}

/** gitlab-shell's greeting: `Welcome to GitLab, @username!`, with our name; a deploy key's is its user's, or Anonymous. */
export function greeting(identity: SshIdentity): string {
  const user = identity.user
  return `Welcome to ${PRODUCT}, ${user === null ? 'Anonymous' : `@${user.username}`}!\n`
}

function refuse(channel: ServerChannel, message: string): void {
  channel.stderr.write(refusalLine(message))
  finish(channel, 1)
}

function finish(channel: ServerChannel, code: number): void {
  // The client may be gone already; its channel then takes nothing.
  if (!channel.writable) return
  channel.exit(code)
  channel.end()
}

/** `ssh -T git@host`: the greeting, unless the account may do nothing at all. */
export function answerShell(session: SshSessionContext, channel: ServerChannel): void {
  const { identity } = session
  if (identity.kind === 'user' && identity.user.state === 'blocked') return refuse(channel, GIT_ACCESS_MESSAGES.blocked)
  channel.write(greeting(identity))
  finish(channel, 0)
}

function accessorOf(identity: SshIdentity): GitAccessor {
  if (identity.kind === 'deploy_key') return { kind: 'deploy_key', deployKey: identity.key }
  return { kind: 'user', actor: { user: identity.user, token: null, sudoFrom: null }, mayDownload: true, mayPush: true, sshKey: identity.key }
}

/** Runs the command line the client asked for on `channel`; `gitProtocol` is its GIT_PROTOCOL. */
export async function runCommand(session: SshSessionContext, channel: ServerChannel, line: string, gitProtocol: string | null): Promise<void> {
  const { ctx, identity } = session
  const command = parseSshCommand(line)
  if (command.kind === 'disallowed') return refuse(channel, SSH_MESSAGES.disallowed)
  if (command.kind === 'invalid-path') return refuse(channel, GIT_ACCESS_MESSAGES.projectNotFound)
  const gitCommand: GitCommand = command.kind === 'git'
    ? command.command
    : command.operation === 'upload' ? 'git-receive-pack' : 'git-upload-pack'
  let granted: GitAccessGranted
  try {
    granted = await checkGitAccess(ctx.db, { accessor: accessorOf(identity), transport: 'ssh', command: gitCommand, fullPath: command.fullPath })
  } catch (err) {
    if (err instanceof GitAccessDenied) return refuse(channel, err.message)
    throw err
  }
  if (identity.kind === 'deploy_key') await touchDeployKey(ctx.db, identity.key)
  if (command.kind === 'lfs-authenticate') {
    // LFS objects belong to projects, not to wikis.
    if (granted.wiki) return refuse(channel, GIT_ACCESS_MESSAGES.projectNotFound)
    const subject: LfsSshSubject = identity.kind === 'user' ? { kind: 'user', userId: identity.user.id } : { kind: 'deploy_key', deployKeyId: identity.key.id }
    const answer = await lfsAuthenticateAnswer(ctx, subject, granted.subject.project.id, command.operation)
    channel.write(`${JSON.stringify(answer)}\n`)
    return finish(channel, 0)
  }
  return runGitService(session, channel, granted, gitProtocol)
}

/** Whom a push's records name: the key's user; a deploy key's user, or the ghost once that user is gone. */
async function pusherOf(ctx: AppContext, identity: SshIdentity): Promise<Actor> {
  const user = identity.user ?? await ensureGhostUser(ctx.db, new URL(ctx.config.externalUrl).hostname)
  return { user, token: null, sudoFrom: null }
}

async function runGitService(session: SshSessionContext, channel: ServerChannel, granted: GitAccessGranted, gitProtocol: string | null): Promise<void> {
  const { ctx, identity } = session
  const { subject, wiki, command } = granted
  const projectId = subject.project.id
  if (wiki) await ctx.repositories.createWiki(projectId)
  const pusher = command === 'git-receive-pack' ? await pusherOf(ctx, identity) : null
  const gitDir = wiki ? ctx.repositories.wikiPath(projectId) : ctx.repositories.repositoryPath(projectId)
  const packObjectsHook = command === 'git-upload-pack' ? await packObjectsHookFor(ctx, gitDir) : undefined
  const options: ServiceOptions = {
    gitDir,
    ...(packObjectsHook === undefined ? {} : { packObjectsHook }),
    protocol: gitProtocol,
    hooksDir: session.hooksDir,
    maxInputBytes: (await getApplicationSettings(ctx.db)).receive_max_input_size * 1024 * 1024,
    timeoutMs: ctx.config.gitServiceTimeoutMs,
    idleTimeoutMs: ctx.config.gitServiceIdleTimeoutMs,
  }
  const slot = gitServiceSlotsOf(ctx).take(session.address)
  if ('refused' in slot) return refuse(channel, slot.refused === 'client' ? SSH_MESSAGES.busyClient : SSH_MESSAGES.busyServer)
  if (!channel.writable) {
    slot.release()
    return
  }
  const proc = startConnectedService(command, options)
  const { child } = proc
  child.once('close', slot.release)
  child.once('error', slot.release)
  if (options.packObjectsHook !== undefined) attachPackObjectsCache(ctx, gitDir, proc)
  let receivedBytes = 0
  channel.on('data', (chunk: Buffer) => {
    receivedBytes += chunk.length
    proc.touch()
  })
  child.stdout.on('data', proc.touch)
  child.stdin.on('error', () => {}) // git may stop reading early (a refused pack); its exit status tells
  channel.pipe(child.stdin)
  const push = pusher === null ? null : serveReceivePackHooks(ctx, proc, granted, pusher, identity, () => receivedBytes)
  if (push !== null) child.stdout.on('data', push.observe)
  child.stdout.pipe(channel, { end: false })
  child.stderr.pipe(channel.stderr, { end: false })
  // A client that goes away stops git.
  channel.once('close', () => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL') })
  child.once('error', (err) => {
    ctx.log.error({ err, project: projectId }, 'git over SSH could not start')
    refuse(channel, SSH_MESSAGES.failed)
  })
  child.once('close', (code) => {
    const stopped = proc.stoppedBy()
    if (stopped !== null) ctx.log.warn({ project: projectId, command, stopped }, 'git over SSH was stopped')
    // A push's channel closes once what it did is recorded, so the client's push ends after that.
    void (push?.finish() ?? Promise.resolve()).then(() => finish(channel, code ?? 1))
  })
}

function serveReceivePackHooks(
  ctx: AppContext, proc: ReturnType<typeof startConnectedService>, granted: GitAccessGranted, pusher: Actor, identity: SshIdentity, receivedBytes: () => number,
): PushWatch {
  const { subject } = granted
  const pipes: { fromHooks: Duplex; toHooks: Duplex } = hookPipesOf(proc)
  const onError: HookHandlers['onError'] = (err) => ctx.log.error({ err, project: subject.project.id }, 'git push hook failed')
  const repo = granted.wiki ? ctx.repositories.openWiki(subject.project.id) : ctx.repositories.open(subject.project.id)
  const refTarget: HookHandlers['refTarget'] = async (ref) => (await repo.info(ref))?.oid ?? null
  const push = serveHooks(pipes.fromHooks, pipes.toHooks, granted.wiki
    ? {
      // Pushing to the wiki at all was the decision (create_wiki); its refs have no rules.
      preReceive: async () => ({ allow: true, messages: [] }),
      pushed: () => markWikiActivity(ctx.db, subject.project.id),
      refTarget,
      onError,
    }
    : {
      async preReceive({ updates, env }) {
        // A deploy key that may push skips the ref rules, as the original's skip_authorization.
        if (identity.kind === 'deploy_key') return { allow: true, messages: [] }
        // Empty variables (a push that only deletes brings no objects) must not reach git.
        const gitEnv = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''))
        const refusal = await refusalOf({ ctx, subject, actor: pusher, updates, gitEnv })
        return refusal === null ? { allow: true, messages: [] } : { allow: false, messages: [refusal] }
      },
      pushed: (updates) => afterPush(ctx, subject.project, pusher, updates, { receivedBytes: receivedBytes() }),
      refTarget,
      onError,
    })
  proc.child.once('exit', () => { pipes.fromHooks.destroy(); pipes.toHooks.destroy() })
  return push
}
