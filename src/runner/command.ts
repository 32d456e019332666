// `ingot runner`: runs CI jobs for an Ingot (or any server of the original's runner protocol),
// as a process of its own that knows the server only through that protocol. Settings from the
// environment (settings.ts); refuses to start without a working bubblewrap sandbox unless the
// operator allows unsandboxed jobs. Exit 0 after SIGTERM/SIGINT; 78 when it cannot work as
// configured (a supervisor should not restart it then); 1 on other failures.
import os from 'node:os'
import type { RunnerInfo } from './client.js'
import { createRunnerLogger } from './log.js'
import { RunnerStartError, startRunner } from './runner.js'
import { BubblewrapSandbox, NoSandbox, bubblewrapProblem, type Sandbox } from './sandbox.js'
import { RunnerSettingsError, readRunnerSettings } from './settings.js'

export const RUNNER_HELP = `Usage: ingot runner

Runs CI jobs for an Ingot server: registers (or uses its saved token), asks for jobs, and runs
each in a bubblewrap sandbox with bash, streaming its trace and uploading its artifacts.

Configuration comes from the environment; see docs/ci.md:
  INGOT_RUNNER_URL                 the server, e.g. http://localhost:8080 (required)
  INGOT_RUNNER_REGISTRATION_TOKEN  registers a runner with it when there is no saved token
  INGOT_RUNNER_DIR (./runner)      the runner's token, work directories and caches
  INGOT_RUNNER_CONCURRENCY (2)     jobs at once
  INGOT_RUNNER_TAGS, INGOT_RUNNER_RUN_UNTAGGED, INGOT_RUNNER_DESCRIPTION  (registration)
  INGOT_RUNNER_CLONE_URL           clone from this URL instead of the server's repo_url
  INGOT_RUNNER_UNSANDBOXED (false) true: run jobs without bubblewrap when it is missing
  INGOT_LOG_LEVEL (info), INGOT_LOG_FORMAT (auto)
`

/** The runner cannot work as configured; restarting it would not help (sysexits' EX_CONFIG). */
export const EXIT_CONFIG = 78

export async function runRunner(argv: readonly string[], version: { version: string; revision: string }): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(RUNNER_HELP)
    return 0
  }
  if (argv.length > 0) {
    process.stderr.write(`ingot runner: unexpected argument "${argv[0]}"\n\n${RUNNER_HELP}`)
    return 2
  }
  let settings
  try {
    settings = readRunnerSettings(process.env)
  } catch (err) {
    if (!(err instanceof RunnerSettingsError)) throw err
    process.stderr.write(`ingot runner: ${err.message}\n`)
    return EXIT_CONFIG
  }
  const log = await createRunnerLogger(settings)
  const problem = await bubblewrapProblem()
  let sandbox: Sandbox
  if (problem === null) sandbox = new BubblewrapSandbox()
  else if (settings.unsandboxed) {
    log.warn({ problem }, 'jobs will run UNSANDBOXED (INGOT_RUNNER_UNSANDBOXED=true): they can read and write all this user can')
    sandbox = new NoSandbox()
  } else {
    log.error(`cannot sandbox jobs: ${problem}; install bubblewrap, or set INGOT_RUNNER_UNSANDBOXED=true to run jobs without a sandbox`)
    return EXIT_CONFIG
  }
  const info: RunnerInfo = {
    name: 'ingot-runner', version: version.version, revision: version.revision,
    platform: os.platform(), architecture: os.arch() === 'x64' ? 'amd64' : os.arch(), executor: 'shell',
    // What newer runners announce and this one does: the job's variables, PUT running on pick-up,
    // trace appends with ranges, artifacts of dependencies and reports, cache, cancellation
    // through Job-Status.
    features: {
      variables: true, image: false, services: false, artifacts: true, cache: true, shared: false,
      upload_multiple_artifacts: true, upload_raw_artifacts: true, session: false, terminal: false,
      refspecs: true, masking: false, proxy: false, raw_variables: false, artifacts_exclude: false,
      multi_build_steps: true, trace_reset: true, trace_checksum: false, trace_size: true, cancelable: true, return_exit_code: false,
    },
  }
  let runner
  try {
    runner = await startRunner(settings, sandbox, info, log)
  } catch (err) {
    if (!(err instanceof RunnerStartError)) {
      log.error({ err }, 'could not start')
      return 1
    }
    log.error(err.message)
    return EXIT_CONFIG
  }
  const stop = () => {
    log.info('stopping: running jobs end as failed')
    runner.stop()
  }
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
  // Started by a supervisor (supervisor.ts) with an IPC channel: its end means the parent died.
  if (process.send !== undefined) process.once('disconnect', stop)
  try {
    await runner.done
  } catch (err) {
    if (!(err instanceof RunnerStartError)) throw err
    log.error(err.message)
    return EXIT_CONFIG
  }
  return 0
}
