// Every kind of background job, each defined beside the capability that owns it. A process works
// (and, on PostgreSQL, creates a pg-boss queue for) exactly the kinds listed here.
import type { AnyJobKind } from './kind.js'
import { ARCHIVE_MISSED_TRACES, ARCHIVE_TRACE, CREATE_PIPELINE, DROP_STALE_JOBS, ENQUEUE_DELAYED_JOB, EXPIRE_ARTIFACTS,
  RUN_PIPELINE_SCHEDULES } from '../services/ci/jobs.js'
import { PRUNE_OLD_EVENTS } from '../services/events/jobs.js'
import { EXPIRE_EXPORTS, EXPORT_PROJECT, IMPORT_PROJECT } from '../services/import-export/jobs.js'
import { DELIVER_WEB_HOOK, FAN_OUT_WEB_HOOKS } from '../services/hooks/jobs.js'
import { POST_CHAT_MESSAGE, SEND_PUSH_EMAIL } from '../services/integrations/jobs.js'
import { REMOVE_UNREFERENCED_LFS_OBJECTS } from '../services/lfs/jobs.js'
import { END_EXPIRED_MEMBERSHIPS } from '../services/members/jobs.js'
import { AUTO_MERGE, RECHECK_MERGE_STATUS, RECOVER_STUCK_MERGES } from '../services/merge-requests/jobs.js'
import { DELIVER_NOTIFICATION, FAN_OUT_NOTIFICATION, PIPELINE_EMAIL, REMIND_ISSUES_DUE } from '../services/notifications/jobs.js'
import { HOUSEKEEP_REPOSITORY, REFRESH_STATISTICS } from '../services/projects/jobs.js'
import { PRUNE_EXPIRED_SESSIONS } from '../services/sessions/jobs.js'

export const ALL_JOB_KINDS: readonly AnyJobKind[] = [
  FAN_OUT_WEB_HOOKS, DELIVER_WEB_HOOK,
  FAN_OUT_NOTIFICATION, DELIVER_NOTIFICATION, REMIND_ISSUES_DUE, PIPELINE_EMAIL,
  SEND_PUSH_EMAIL, POST_CHAT_MESSAGE,
  RECHECK_MERGE_STATUS, RECOVER_STUCK_MERGES, AUTO_MERGE,
  REFRESH_STATISTICS, HOUSEKEEP_REPOSITORY,
  CREATE_PIPELINE, ENQUEUE_DELAYED_JOB, ARCHIVE_TRACE, ARCHIVE_MISSED_TRACES, EXPIRE_ARTIFACTS, DROP_STALE_JOBS, RUN_PIPELINE_SCHEDULES,
  PRUNE_OLD_EVENTS, END_EXPIRED_MEMBERSHIPS, PRUNE_EXPIRED_SESSIONS,
  EXPORT_PROJECT, EXPIRE_EXPORTS, IMPORT_PROJECT,
  REMOVE_UNREFERENCED_LFS_OBJECTS,
]
