// Where a job's commands run. With bubblewrap (`bwrap`), each job gets a world of its own: the
// system read-only (/usr, /etc and the /bin and /lib links), its build directory, tmp and home
// writable, a fresh /proc and a minimal /dev, the network, no capabilities, and an environment
// made of the job's variables only. Nothing else of the host is there: not the runner's
// directory (its token, other jobs, caches), nor Ingot's data directory, database or environment.
// Without bwrap the runner runs jobs as plain processes only when the operator allows it.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'

/** A job's writable directories on the host, and where its commands see them. */
export interface JobDirs {
  /** The builds directory (the project is checked out below it). */
  builds: string
  tmp: string
  home: string
}

export interface SandboxedCommand {
  file: string
  args: string[]
  /** The working directory on the host (the sandbox sets its own inside). */
  cwd: string
}

export interface Sandbox {
  readonly kind: 'bubblewrap' | 'none'
  /** Where the job sees its directories. */
  inside(dirs: JobDirs): JobDirs
  /** How to run `argv` in `cwd` (a path as the job sees it) for a job with these directories. */
  command(dirs: JobDirs, cwd: string, argv: readonly string[]): SandboxedCommand
}

/** The paths a sandboxed job sees. */
const INSIDE: JobDirs = { builds: '/builds', tmp: '/tmp', home: '/home/ci' }

/** Files of /etc the job never reads (replaced by an empty file), and directories it sees empty. */
const HIDDEN_ETC_FILES = ['/etc/shadow', '/etc/shadow-', '/etc/gshadow', '/etc/gshadow-', '/etc/sudoers']
const HIDDEN_ETC_DIRS = ['/etc/ssh', '/etc/ssl/private', '/etc/sudoers.d']

export class BubblewrapSandbox implements Sandbox {
  readonly kind = 'bubblewrap'
  private readonly systemArgs: string[]

  constructor(private readonly bwrap = 'bwrap') {
    this.systemArgs = systemMounts()
  }

  inside(): JobDirs {
    return INSIDE
  }

  command(dirs: JobDirs, cwd: string, argv: readonly string[]): SandboxedCommand {
    return {
      file: this.bwrap,
      args: [
        // Every namespace but the network's; the job's processes die with the runner; no
        // terminal to inject keystrokes into; no capabilities even for a root user.
        '--unshare-all', '--share-net', '--die-with-parent', '--new-session', '--cap-drop', 'ALL',
        ...this.systemArgs,
        '--proc', '/proc', '--dev', '/dev',
        '--bind', dirs.builds, INSIDE.builds, '--bind', dirs.tmp, INSIDE.tmp, '--bind', dirs.home, INSIDE.home,
        '--chdir', cwd,
        // The environment is the one the runner gives bwrap (the job's only, never the runner's),
        // rather than --clearenv and --setenv, which would show the job's secrets in `ps`.
        '--', ...argv,
      ],
      cwd: dirs.builds,
    }
  }
}

/** Jobs as plain processes of the runner's user: only when the operator said so (INGOT_RUNNER_UNSANDBOXED). */
export class NoSandbox implements Sandbox {
  readonly kind = 'none'

  inside(dirs: JobDirs): JobDirs {
    return dirs
  }

  command(_dirs: JobDirs, cwd: string, argv: readonly string[]): SandboxedCommand {
    return { file: argv[0]!, args: argv.slice(1), cwd }
  }
}

/** The read-only system a job sees: /usr, /etc without its secrets, the top-level links or directories of the merged /usr. */
function systemMounts(): string[] {
  const args = ['--ro-bind', '/usr', '/usr']
  for (const top of ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32']) {
    const stat = fs.lstatSync(top, { throwIfNoEntry: false })
    if (stat === undefined) continue
    if (stat.isSymbolicLink()) args.push('--symlink', fs.readlinkSync(top), top)
    else args.push('--ro-bind', top, top)
  }
  args.push('--ro-bind', '/etc', '/etc')
  for (const file of HIDDEN_ETC_FILES) if (fs.existsSync(file)) args.push('--ro-bind', '/dev/null', file)
  for (const dir of HIDDEN_ETC_DIRS) if (fs.existsSync(dir)) args.push('--tmpfs', dir)
  // A resolv.conf that points outside /etc (systemd-resolved's /run/...) needs its directory, or names do not resolve.
  const resolv = fs.existsSync('/etc/resolv.conf') ? fs.realpathSync('/etc/resolv.conf') : null
  if (resolv !== null && !resolv.startsWith('/etc/') && !resolv.startsWith('/usr/')) args.push('--ro-bind', path.dirname(resolv), path.dirname(resolv))
  return args
}

/**
 * Whether bubblewrap runs here: a sandbox of the very shape jobs get, running `true`. Null when it
 * does; otherwise why not (not installed, or refused by the kernel or the container).
 */
export async function bubblewrapProblem(bwrap = 'bwrap'): Promise<string | null> {
  const root = await fsp.mkdtemp(path.join(os.tmpdir(), 'ingot-runner-probe-'))
  try {
    const dirs: JobDirs = { builds: path.join(root, 'builds'), tmp: path.join(root, 'tmp'), home: path.join(root, 'home') }
    for (const dir of Object.values(dirs)) await fsp.mkdir(dir)
    const sandbox = new BubblewrapSandbox(bwrap)
    const command = sandbox.command(dirs, INSIDE.builds, ['/bin/sh', '-c', 'true'])
    return await new Promise<string | null>((resolve) => {
      const child = spawn(command.file, command.args, { cwd: command.cwd, env: { PATH: '/usr/bin:/bin' }, stdio: ['ignore', 'ignore', 'pipe'] })
      let stderr = ''
      child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
      child.on('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ENOENT' ? `${bwrap} is not installed (Debian: apt-get install bubblewrap)` : err.message))
      child.on('close', (code) => resolve(code === 0 ? null : `${bwrap} cannot make a sandbox here: ${stderr.trim() || `exit ${code}`}`))
    })
  } finally {
    await fsp.rm(root, { recursive: true, force: true })
  }
}
