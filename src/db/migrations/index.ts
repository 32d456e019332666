// Every migration, in order. Kysely records which have run; never edit one that has landed on main.
// Migrations that seal or open secrets are built with the instance's secret box.
import type { Migration } from 'kysely'
import type { SecretBox } from '../../common/secret-box.js'
import * as m0001 from './0001_initial.js'
import * as m0002 from './0002_repositories.js'
import * as m0003 from './0003_forks_and_readme.js'
import * as m0004 from './0004_collaboration.js'
import * as m0005 from './0005_application_settings.js'
import * as m0006 from './0006_web_hooks.js'
import * as m0007 from './0007_integrations.js'
import * as m0008 from './0008_notification_settings.js'
import * as m0009 from './0009_sessions.js'
import * as m0010 from './0010_housekeeping.js'
import * as m0011 from './0011_job_states.js'
import * as m0012 from './0012_merge_recovery.js'
import * as m0013 from './0013_issue_counts_of_deleted_projects.js'
import * as m0014 from './0014_empty_repo.js'
import { sealSecrets } from './0015_sealed_secrets.js'
import * as m0016 from './0016_throttles.js'
import * as m0017 from './0017_oauth.js'
import * as m0018 from './0018_ci_pipelines.js'
import * as m0019 from './0019_commit_statuses.js'
import * as m0020 from './0020_ci_runners.js'
import * as m0022 from './0022_runner_protocol.js'
import * as m0023 from './0023_ci_traces_and_artifacts.js'
import * as m0024 from './0024_ci_variables.js'
import * as m0025 from './0025_ci_triggers_and_schedules.js'
import * as m0026 from './0026_environments.js'
import * as m0027 from './0027_merge_when_pipeline_succeeds.js'
import * as m0028 from './0028_badges.js'
import * as m0029 from './0029_pipeline_iids.js'
import * as m0030 from './0030_project_exports.js'
import * as m0031 from './0031_events_target.js'
import * as m0032 from './0032_ci_lists_at_scale.js'
import * as m0033 from './0033_deploy_keys_and_lfs.js'
import * as m0034 from './0034_session_impersonator.js'

export interface MigrationTools {
  secrets: SecretBox
}

export function migrations(tools: MigrationTools): Record<string, Migration> {
  return {
    '0001_initial': m0001,
    '0002_repositories': m0002,
    '0003_forks_and_readme': m0003,
    '0004_collaboration': m0004,
    '0005_application_settings': m0005,
    '0006_web_hooks': m0006,
    '0007_integrations': m0007,
    '0008_notification_settings': m0008,
    '0009_sessions': m0009,
    '0010_housekeeping': m0010,
    '0011_job_states': m0011,
    '0012_merge_recovery': m0012,
    '0013_issue_counts_of_deleted_projects': m0013,
    '0014_empty_repo': m0014,
    '0015_sealed_secrets': sealSecrets(tools.secrets),
    '0016_throttles': m0016,
    '0017_oauth': m0017,
    '0018_ci_pipelines': m0018,
    '0019_commit_statuses': m0019,
    '0020_ci_runners': m0020,
    '0022_runner_protocol': m0022,
    '0023_ci_traces_and_artifacts': m0023,
    '0024_ci_variables': m0024,
    '0025_ci_triggers_and_schedules': m0025,
    '0026_environments': m0026,
    '0027_merge_when_pipeline_succeeds': m0027,
    '0028_badges': m0028,
    '0029_pipeline_iids': m0029,
    '0030_project_exports': m0030,
    '0031_events_target': m0031,
    '0032_ci_lists_at_scale': m0032,
    '0033_deploy_keys_and_lfs': m0033,
    '0034_session_impersonator': m0034,
  }
}
