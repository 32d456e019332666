// The Kysely view of the schema built by migrations/. Columns are snake_case like the API's fields.
// Representations (epoch ms, 0/1 flags, 'YYYY-MM-DD' dates, JSON text) are explained in values.ts.
// Columns typed Generated<…> have database defaults and may be left out of inserts.
import type { Generated, Insertable, Selectable, Updateable } from 'kysely'
import type { Flag } from './values.js'

export type VisibilityLevel = 0 | 10 | 20
export type NamespaceKind = 'user' | 'group'
export type MemberSource = 'project' | 'group'
export type TokenKind = 'personal' | 'impersonation' | 'oauth'
export type CustomAttributeSubject = 'user' | 'group' | 'project'

export interface UsersTable {
  id: Generated<number>
  username: string
  /** Lower-cased username: unique, the case-insensitive lookup key. */
  username_lower: string
  email: string
  email_lower: string
  name: string
  /** argon2id hash; null for users who cannot sign in with a password (the ghost). */
  password_digest: string | null
  /** Set when an admin sets the password: the user must change it at next sign-in. */
  password_expires_at: number | null
  state: Generated<'active' | 'blocked'>
  admin: Generated<Flag>
  external: Generated<Flag>
  /** The placeholder that receives contributions of soft-deleted users. */
  ghost: Generated<Flag>
  can_create_group: Generated<Flag>
  projects_limit: number
  private_profile: Generated<Flag>
  two_factor_enabled: Generated<Flag>
  bio: Generated<string>
  location: Generated<string>
  public_email: Generated<string>
  messenger: Generated<string>
  professional_network: Generated<string>
  microblog: Generated<string>
  website_url: Generated<string>
  organization: Generated<string>
  theme_id: Generated<number>
  color_scheme_id: Generated<number>
  avatar_path: string | null
  status_emoji: string | null
  status_message: string | null
  confirmed_at: number | null
  current_sign_in_at: number | null
  last_sign_in_at: number | null
  last_activity_on: string | null
  /** When the user accepted the instance's terms (enforce_terms); null if they never did. */
  terms_accepted_at: number | null
  created_at: number
  updated_at: number
}

export interface IdentitiesTable {
  id: Generated<number>
  user_id: number
  provider: string
  extern_uid: string
  created_at: number
}

/** Personal, impersonation and OAuth access tokens share this table; only digests are stored. */
export interface AccessTokensTable {
  id: Generated<number>
  user_id: number
  kind: TokenKind
  name: string
  /** SHA-256 hex of the token. */
  token_digest: string
  /** JSON array of scope names. */
  scopes: string
  expires_at: number | null
  revoked: Generated<Flag>
  last_used_at: number | null
  created_at: number
  /** The OAuth application an `oauth` token was issued to; null for other kinds (and password grants without a client). */
  application_id: number | null
  /** SHA-256 hex of an `oauth` token's refresh token. */
  refresh_token_digest: string | null
}

/** Applications registered with the OAuth provider: by an administrator (owner null) or by a user. */
export interface OauthApplicationsTable {
  id: Generated<number>
  name: string
  /** The public client id (`application_id` in the API, `client_id` in OAuth). */
  uid: string
  /** SHA-256 hex of the client secret, which is shown once, when made. */
  secret_digest: string
  /** One or more redirect URIs, one per line. */
  redirect_uri: string
  /** Space-separated scope names the application may ask for. */
  scopes: string
  owner_id: number | null
  /** Set by an administrator: users are not asked for consent. */
  trusted: Generated<Flag>
  created_at: number
  updated_at: number
}

/** Authorization codes of the OAuth code flow: single use, valid 10 minutes, bound to a redirect URI. */
export interface OauthAccessGrantsTable {
  id: Generated<number>
  application_id: number
  user_id: number
  /** SHA-256 hex of the code. */
  code_digest: string
  redirect_uri: string
  /** Space-separated scope names. */
  scopes: string
  /** The OpenID Connect nonce of the authorization request, given back in the id_token. */
  nonce: string | null
  expires_at: number
  used_at: number | null
  created_at: number
}

/** Tokens of the client credentials grant: they act for an application, so no user (the API refuses them). */
export interface OauthClientTokensTable {
  id: Generated<number>
  application_id: number
  /** SHA-256 hex of the token. */
  token_digest: string
  /** JSON array of scope names. */
  scopes: string
  expires_at: number | null
  revoked: Generated<Flag>
  created_at: number
}

export interface SshKeysTable {
  id: Generated<number>
  user_id: number
  title: string
  key: string
  /** SHA256:base64 fingerprint of the key blob: unique across the instance. */
  fingerprint: string
  key_type: string
  key_bits: number
  created_at: number
}

/** Users' personal namespaces and groups (a group's id is its namespace id). */
export interface NamespacesTable {
  id: Generated<number>
  kind: NamespaceKind
  name: string
  path: string
  /** 'parent/child/leaf', kept for every descendant when a path changes. */
  full_path: string
  full_path_lower: string
  /** 'Parent / Child / Leaf', kept like full_path. */
  full_name: string
  parent_id: number | null
  /** The user who owns a personal namespace; null for groups. */
  owner_id: number | null
  description: Generated<string>
  visibility_level: VisibilityLevel
  lfs_enabled: Generated<Flag>
  request_access_enabled: Generated<Flag>
  avatar_path: string | null
  /** A group's runner registration token; null for users' namespaces and until a group's is made. */
  runners_token: Generated<string | null>
  created_at: number
  updated_at: number
}

export interface ProjectsTable {
  id: Generated<number>
  namespace_id: number
  name: string
  path: string
  path_lower: string
  description: string | null
  visibility_level: VisibilityLevel
  creator_id: number
  default_branch: string | null
  archived: Generated<Flag>
  issues_enabled: Generated<Flag>
  merge_requests_enabled: Generated<Flag>
  jobs_enabled: Generated<Flag>
  wiki_enabled: Generated<Flag>
  snippets_enabled: Generated<Flag>
  container_registry_enabled: Generated<Flag>
  shared_runners_enabled: Generated<Flag>
  lfs_enabled: Generated<Flag>
  request_access_enabled: Generated<Flag>
  public_jobs: Generated<Flag>
  resolve_outdated_diff_discussions: Generated<Flag>
  only_allow_merge_if_pipeline_succeeds: Generated<Flag>
  only_allow_merge_if_all_discussions_are_resolved: Generated<Flag>
  printing_merge_request_link_enabled: Generated<Flag>
  merge_method: Generated<'merge' | 'rebase_merge' | 'ff'>
  ci_config_path: string | null
  /** JSON array of topic strings. */
  tag_list: Generated<string>
  avatar_path: string | null
  import_status: Generated<string>
  import_error: string | null
  runners_token: string
  /** Seconds a CI job of the project may run (the original's build_timeout). */
  build_timeout: Generated<number>
  forked_from_project_id: Generated<number | null>
  star_count: Generated<number>
  /** Kept by triggers (migration 0003) from forked_from_project_id. */
  forks_count: Generated<number>
  /** The default branch's README at the repository root (readme_url); kept by the statistics job. */
  readme_path: Generated<string | null>
  open_issues_count: Generated<number>
  created_at: number
  updated_at: number
  last_activity_at: number
  /** Pushes since the last gc: picks the next housekeeping task (services/projects/housekeeping.ts). */
  pushes_since_gc: Generated<number>
  /** Held while a housekeeping job is pending or running; null when none is. */
  housekeeping_lease_until: Generated<number | null>
  /** 1 while the repository has no branch (`empty_repo`); kept by afterPush and forks. */
  empty_repo: Generated<number>
}

export interface ProjectStatisticsTable {
  project_id: number
  commit_count: Generated<number>
  storage_size: Generated<number>
  repository_size: Generated<number>
  lfs_objects_size: Generated<number>
  job_artifacts_size: Generated<number>
}

export interface MembersTable {
  id: Generated<number>
  source_type: MemberSource
  source_id: number
  user_id: number
  access_level: number
  /** 'YYYY-MM-DD'; the membership ends at the start of that day. */
  expires_at: string | null
  created_by_id: number | null
  created_at: number
  updated_at: number
}

/** A project shared with a group: the group's members get at most group_access on it. */
export interface ProjectGroupLinksTable {
  id: Generated<number>
  project_id: number
  group_id: number
  group_access: number
  expires_at: string | null
  created_at: number
}

export interface StarsTable {
  user_id: number
  project_id: number
  created_at: number
}

export interface CustomAttributesTable {
  id: Generated<number>
  subject_type: CustomAttributeSubject
  subject_id: number
  key: string
  value: string
  created_at: number
  updated_at: number
}

export type EventAction =
  | 'created' | 'updated' | 'closed' | 'reopened' | 'pushed' | 'commented' | 'merged'
  | 'joined' | 'left' | 'destroyed' | 'expired'

export interface EventsTable {
  id: Generated<number>
  project_id: number | null
  author_id: number
  action: EventAction
  /** The target's class name as the API shows it: 'Issue', 'MergeRequest', 'Note', … */
  target_type: string | null
  target_id: number | null
  target_iid: number | null
  target_title: string | null
  /** JSON push payload of `pushed` events. */
  push_data: string | null
  created_at: number
}

/**
 * Background jobs of the embedded engine (jobs/table-store.ts; PostgreSQL keeps its jobs in
 * pg-boss's schema instead). A job is deleted once done.
 */
export interface JobsTable {
  id: Generated<number>
  kind: string
  /** JSON arguments. */
  payload: string
  state: Generated<'waiting' | 'running' | 'dead'>
  /** While a job with this key waits, enqueuing another does nothing; cleared when it is claimed. */
  unique_key: string | null
  /** One running job per exclusive key. */
  exclusive_key: string | null
  /** When it is due (waiting); epoch milliseconds. */
  run_at: number
  /** Attempts started. */
  attempts: Generated<number>
  max_attempts: number
  /** A running job is another process's to take once its lease has run out. */
  lease_until: number | null
  /** The claim token of the process running it. */
  claim: string | null
  started_at: number | null
  finished_at: number | null
  last_error: string | null
  request_id: string | null
  created_at: number
}

/** A protected branch name or `*` pattern, with who may push and merge to matching branches. */
export interface ProtectedBranchesTable {
  id: Generated<number>
  project_id: number
  name: string
  push_access_level: number
  merge_access_level: number
  created_at: number
  updated_at: number
}

/** A protected tag name or `*` pattern, with who may create matching tags. */
export interface ProtectedTagsTable {
  id: Generated<number>
  project_id: number
  name: string
  create_access_level: number
  created_at: number
  updated_at: number
}

/** The release notes of a tag. */
export interface ReleasesTable {
  id: Generated<number>
  project_id: number
  tag: string
  description: string
  author_id: number | null
  created_at: number
  updated_at: number
}

/**
 * Comments on commits (noteable_type 'Commit', commit_id set), issues, merge requests and snippets
 * (noteable_id set). Notes sharing a discussion_id form a discussion; a note alone is an
 * individual note (type null) whose discussion_id is its own.
 */
export interface NotesTable {
  id: Generated<number>
  project_id: number
  author_id: number
  noteable_type: string
  noteable_id: number | null
  commit_id: string | null
  body: string
  path: string | null
  line: number | null
  line_type: 'new' | 'old' | null
  system: Generated<Flag>
  /** 40 hex characters; every note has one (an individual note's is its own). */
  discussion_id: string | null
  /** 'DiscussionNote' for the notes of a started discussion, 'DiffNote' on a diff line, else null. */
  type: 'DiscussionNote' | 'DiffNote' | null
  /** Notes of merge request discussions can be resolved. */
  resolvable: Generated<Flag>
  resolved_at: number | null
  resolved_by_id: number | null
  created_at: number
  updated_at: number
}

/** The last iid handed out per owner ('project' | 'group') and usage ('issues', 'merge_requests', 'milestones'). */
export interface InternalIdsTable {
  owner_type: 'project' | 'group'
  owner_id: number
  usage: 'issues' | 'merge_requests' | 'milestones' | 'deployments' | 'ci_pipelines'
  last_value: number
}

/** A project milestone (project_id set) or a group milestone (group_id set). */
export interface MilestonesTable {
  id: Generated<number>
  project_id: number | null
  group_id: number | null
  iid: number
  title: string
  description: string | null
  /** 'YYYY-MM-DD' */
  due_date: string | null
  start_date: string | null
  state: Generated<'active' | 'closed'>
  created_at: number
  updated_at: number
}

/** A project label (project_id set) or a group label (group_id set); titles unique per owner. */
export interface LabelsTable {
  id: Generated<number>
  project_id: number | null
  group_id: number | null
  title: string
  /** '#RRGGBB' */
  color: string
  description: string | null
  priority: number | null
  created_at: number
  updated_at: number
}

export type IssuableType = 'Issue' | 'MergeRequest'

export interface IssuesTable {
  id: Generated<number>
  project_id: number
  iid: number
  author_id: number
  title: string
  description: string | null
  state: Generated<'opened' | 'closed'>
  confidential: Generated<Flag>
  discussion_locked: Generated<Flag>
  milestone_id: number | null
  /** 'YYYY-MM-DD' */
  due_date: string | null
  closed_at: number | null
  closed_by_id: number | null
  /** Set when the issue was moved to another project (it is closed then). */
  moved_to_id: number | null
  /** Seconds. */
  time_estimate: Generated<number>
  total_time_spent: Generated<number>
  /** Non-system notes; kept by the notes services. */
  user_notes_count: Generated<number>
  /** thumbsup / thumbsdown awards; kept by the award emoji services. */
  upvotes: Generated<number>
  downvotes: Generated<number>
  created_at: number
  updated_at: number
}

export interface IssueAssigneesTable {
  issue_id: number
  user_id: number
}

export type MergeRequestState = 'opened' | 'closed' | 'locked' | 'merged'
export type MergeStatus = 'unchecked' | 'can_be_merged' | 'cannot_be_merged'

export interface MergeRequestsTable {
  id: Generated<number>
  /** The project it is listed in (project_id in the API). */
  target_project_id: number
  iid: number
  /** A fork's id for a merge request from a fork; null once that fork is deleted. */
  source_project_id: number | null
  source_branch: string
  target_branch: string
  author_id: number
  assignee_id: number | null
  title: string
  description: string | null
  state: Generated<MergeRequestState>
  milestone_id: number | null
  merge_status: Generated<MergeStatus>
  /** The source branch head (refs/merge-requests/:iid/head in the target repository). */
  sha: string | null
  /** The target branch head merge_status was computed against. */
  target_sha: string | null
  merge_commit_sha: string | null
  /** While `locked`: when the merge began (null otherwise). */
  merge_started_at: number | null
  /** While `locked`: the commit the merge moves the target branch to, once it is built. */
  in_progress_merge_commit_sha: string | null
  merged_by_id: number | null
  merged_at: number | null
  closed_by_id: number | null
  closed_at: number | null
  discussion_locked: Generated<Flag>
  /** The author's wish (null when not expressed). */
  should_remove_source_branch: Flag | null
  force_remove_source_branch: Generated<Flag>
  allow_collaboration: Generated<Flag>
  squash: Generated<Flag>
  merge_when_pipeline_succeeds: Generated<Flag>
  /** Who set merge when pipeline succeeds (null when it is off). */
  merge_user_id: number | null
  /** JSON of the options the automatic merge uses (merge-when-pipeline-succeeds.ts). */
  merge_params: string | null
  time_estimate: Generated<number>
  total_time_spent: Generated<number>
  user_notes_count: Generated<number>
  upvotes: Generated<number>
  downvotes: Generated<number>
  created_at: number
  updated_at: number
}

export interface LabelLinksTable {
  label_id: number
  target_type: IssuableType
  target_id: number
}

export interface SnippetsTable {
  id: Generated<number>
  /** Null for personal snippets (not served yet). */
  project_id: number | null
  author_id: number
  title: string
  file_name: string
  description: string | null
  content: string
  visibility_level: VisibilityLevel
  created_at: number
  updated_at: number
}

export type AwardableType = 'Issue' | 'MergeRequest' | 'Snippet' | 'Note'

export interface AwardEmojiTable {
  id: Generated<number>
  name: string
  user_id: number
  awardable_type: AwardableType
  awardable_id: number
  created_at: number
  updated_at: number
}

/** A project board (project_id set) or a group board (group_id set). */
export interface BoardsTable {
  id: Generated<number>
  project_id: number | null
  group_id: number | null
  name: string
  milestone_id: number | null
  created_at: number
  updated_at: number
}

export interface BoardListsTable {
  id: Generated<number>
  board_id: number
  label_id: number | null
  list_type: 'backlog' | 'label' | 'closed'
  /** 0-based among the label lists; null for backlog and closed. */
  position: number | null
  /** Soft deletion (spec: board list DELETE). */
  deleted_at: number | null
  created_at: number
  updated_at: number
}

export interface SubscriptionsTable {
  id: Generated<number>
  user_id: number
  subscribable_type: 'Label' | 'Issue' | 'MergeRequest'
  subscribable_id: number
  project_id: number | null
  subscribed: Flag
  created_at: number
  updated_at: number
}

/** Kept by triggers (migration 0004): issues per project, state and confidentiality. */
export interface IssueCountsTable {
  project_id: number
  state: 'opened' | 'closed'
  confidential: Flag
  value: number
}

/** Web sign-in sessions; the cookie holds the secret, this table its SHA-256 digest. */
export interface SessionsTable {
  id: Generated<number>
  user_id: number
  secret_digest: string
  created_at: number
  last_seen_at: number
  /** Slides to last_seen_at + session_expire_delay as the session is used. */
  expires_at: number
  /** The administrator who started this session as its user (impersonation); null for the user's own. */
  impersonator_id: Generated<number | null>
}

/** One count per key in its current window (request throttles, failed sign-ins). */
export interface ThrottleCountersTable {
  key: string
  count: number
  /** The end of the window the count is of; a later increment starts a new window. */
  expires_at: number
}

/** Addresses and accounts banned from signing in, until expires_at. */
export interface ThrottleBansTable {
  key: string
  expires_at: number
}

/** One row (migration 0005); `settings` is JSON of the values an administrator changed. */
export interface ApplicationSettingsTable {
  id: Generated<number>
  settings: Generated<string>
  /** Registers instance runners; made when first asked for (services/ci/runners/registration-tokens.ts). */
  runners_registration_token: Generated<string | null>
  created_at: number
  updated_at: number
}

/** The number of a project's CI jobs (kind 'ci', retried ones included), kept by triggers (migration 0032). */
export interface CiJobCountsTable {
  project_id: number
  value: number
}

/** Maintained counts (kept by triggers): 'users', 'projects.visibility.<level>'. */
export interface CountersTable {
  name: string
  value: number
}

/** A project's integration of one kind (its settings as JSON text, secrets included) and its event flags. */
export interface IntegrationsTable {
  id: Generated<number>
  project_id: number
  kind: string
  active: Generated<Flag>
  /** The settings, JSON sealed for 'integrations.secrets' (common/secret-box.ts); null for none. */
  encrypted_properties: string | null
  push_events: Generated<Flag>
  issues_events: Generated<Flag>
  confidential_issues_events: Generated<Flag>
  merge_requests_events: Generated<Flag>
  tag_push_events: Generated<Flag>
  note_events: Generated<Flag>
  confidential_note_events: Generated<Flag>
  pipeline_events: Generated<Flag>
  wiki_page_events: Generated<Flag>
  job_events: Generated<Flag>
  created_at: number
  updated_at: number
}

/** A project hook (project_id set) or a system hook (project_id null); flags are 0/1. */
export interface WebHooksTable {
  id: Generated<number>
  project_id: number | null
  url: string
  /** Sent as X-Service-Token; never returned by the API. */
  /** Sealed for 'web_hooks.token' (common/secret-box.ts); null for none. */
  encrypted_token: string | null
  enable_ssl_verification: Generated<Flag>
  push_events: Generated<Flag>
  /** A branch name or wildcard (`release/*`); null or empty for every branch. */
  push_events_branch_filter: string | null
  tag_push_events: Generated<Flag>
  issues_events: Generated<Flag>
  confidential_issues_events: Generated<Flag>
  merge_requests_events: Generated<Flag>
  note_events: Generated<Flag>
  job_events: Generated<Flag>
  pipeline_events: Generated<Flag>
  wiki_page_events: Generated<Flag>
  repository_update_events: Generated<Flag>
  last_delivery_at: number | null
  /** The receiver's HTTP status; null when it could not be reached. */
  last_delivery_status: number | null
  /** Why the last delivery failed; null when it succeeded. */
  last_delivery_error: string | null
  /** Deliveries that failed since the last one that succeeded. */
  failures_in_a_row: Generated<number>
  /** Until when deliveries to the hook are skipped (epoch ms); null when it is not backing off. */
  backoff_until: number | null
  created_at: number
  updated_at: number
}

/**
 * A user's notification level for a source: global (project_id and namespace_id null), a group
 * (namespace_id) or a project (project_id). Event flags are 0/1 and count for level 'custom' only.
 */
export interface NotificationSettingsTable {
  id: Generated<number>
  user_id: number
  project_id: number | null
  namespace_id: number | null
  level: NotificationLevel
  new_note: Generated<Flag>
  new_issue: Generated<Flag>
  reopen_issue: Generated<Flag>
  close_issue: Generated<Flag>
  reassign_issue: Generated<Flag>
  issue_due: Generated<Flag>
  new_merge_request: Generated<Flag>
  push_to_merge_request: Generated<Flag>
  reopen_merge_request: Generated<Flag>
  close_merge_request: Generated<Flag>
  reassign_merge_request: Generated<Flag>
  merge_merge_request: Generated<Flag>
  failed_pipeline: Generated<Flag>
  success_pipeline: Generated<Flag>
  /** Global rows only: where notification email goes; null for the user's primary email. */
  notification_email: string | null
  created_at: number
  updated_at: number
}

export type NotificationLevel = 'disabled' | 'participating' | 'watch' | 'global' | 'mention' | 'custom'

export type CiStatus = 'created' | 'pending' | 'running' | 'success' | 'failed' | 'canceled' | 'skipped' | 'manual' | 'scheduled'
export type CiPipelineSource = 'push' | 'web' | 'trigger' | 'schedule' | 'api' | 'external' | 'pipeline' | 'chat'

export interface CiPipelinesTable {
  id: Generated<number>
  project_id: number
  /** Its number in the project (internal_ids usage ci_pipelines); CI_PIPELINE_IID. */
  iid: number
  /** The branch or tag name. */
  ref: string
  tag: Generated<Flag>
  sha: string
  before_sha: string | null
  source: CiPipelineSource
  /** Derived from its jobs (services/ci/status.ts). */
  status: CiStatus
  /** Why the CI file did not read; set with status failed and failure_reason config_error. */
  yaml_errors: string | null
  failure_reason: string | null
  user_id: number | null
  committed_at: number | null
  started_at: number | null
  finished_at: number | null
  /** Seconds some job of the pipeline ran (overlaps once). */
  duration: number | null
  coverage: string | null
  /** The pipeline schedule that created it (source schedule), while the schedule exists. */
  pipeline_schedule_id: number | null
  created_at: number
  updated_at: number
}

export interface CiPipelineVariablesTable {
  id: Generated<number>
  pipeline_id: number
  key: string
  /** Sealed with the ci.pipeline_variables purpose (common/secret-box.ts). */
  encrypted_value: string
}

/** A CI/CD variable of a project or of a group (the original's ci_variables and ci_group_variables). */
export interface CiVariablesTable {
  id: Generated<number>
  /** The owner: a project, or (project_id null) a group, whose subgroups' projects get it too. */
  project_id: number | null
  group_id: number | null
  key: string
  /** Sealed with the ci.variables purpose (common/secret-box.ts). */
  encrypted_value: string
  /** 1: only for jobs of protected branches and tags. */
  protected: Generated<Flag>
}

/** A project's export (migration 0030): running, uploading, or its archive waiting to be downloaded. */
export interface ProjectExportsTable {
  project_id: number
  status: 'started' | 'after_export_action' | 'finished' | 'failed'
  user_id: number | null
  /** The finished archive, kept 24 hours from finished_at; null while none is kept. */
  blob_key: string | null
  /** The archive's download name, the original's `<time>_<full path>_export.tar.gz`. */
  file_name: string | null
  finished_at: number | null
  error: string | null
  created_at: number
  updated_at: number
}

/** A deploy key (migration 0033): reads, and with can_push writes, the projects it is enabled on, over SSH. */
export interface DeployKeysTable {
  id: Generated<number>
  title: string
  key: string
  /** SHA256:base64 fingerprint of the key blob, as ssh_keys': unique among deploy keys. */
  fingerprint: string
  key_type: string
  key_bits: number
  /** Who added it; null once that user is deleted. */
  user_id: number | null
  /** 0/1: a public key may be enabled on any project by its maintainers. */
  public: Generated<number>
  last_used_at: number | null
  created_at: number
  updated_at: number
}

/** A deploy key enabled on a project (migration 0033). */
export interface DeployKeysProjectsTable {
  id: Generated<number>
  deploy_key_id: number
  project_id: number
  /** 0/1: whether the key may push to this project. */
  can_push: Generated<number>
  created_at: number
  updated_at: number
}

/** An LFS object (migration 0033), stored once as a blob by its oid whichever projects reference it. */
export interface LfsObjectsTable {
  id: Generated<number>
  /** sha256 of the content, 64 lower-case hex characters. */
  oid: string
  size: number
  created_at: number
  updated_at: number
}

/** An LFS object referenced by a project (migration 0033); forks get their own links. */
export interface LfsObjectsProjectsTable {
  id: Generated<number>
  lfs_object_id: number
  project_id: number
  created_at: number
}

/** An LFS file lock (migration 0033): one per path of a project. */
export interface LfsFileLocksTable {
  id: Generated<number>
  project_id: number
  user_id: number
  path: string
  created_at: number
}

/** A badge: a link and an image URL, of a project or (project_id null) of a group, whose projects show it too. */
export interface BadgesTable {
  id: Generated<number>
  link_url: string
  image_url: string
  project_id: number | null
  group_id: number | null
  created_at: number
  updated_at: number
}

/** A pipeline trigger: a token that creates pipelines of the project as its owner. */
export interface CiTriggersTable {
  id: Generated<number>
  project_id: number
  /** Who its pipelines are created for (the original's legacy triggers without an owner are not made). */
  owner_id: number
  description: string | null
  /** SHA-256 of the token, to find a trigger by it. */
  token_digest: string
  /** The token sealed with the ci.triggers purpose: the owner is shown it whole. */
  encrypted_token: string
  last_used_at: number | null
  created_at: number
  updated_at: number
}

export interface CiPipelineSchedulesTable {
  id: Generated<number>
  project_id: number
  /** Who its pipelines are created for; null once the owner is deleted (then it does not run). */
  owner_id: number | null
  description: string
  /** A branch or tag name. */
  ref: string
  /** Five fields (services/ci/pipeline-schedules.ts). */
  cron: string
  /** An IANA time zone name. */
  cron_timezone: string
  /** The next time of the cron after the last run or change; null when the cron no longer reads. */
  next_run_at: number | null
  active: Generated<Flag>
  created_at: number
  updated_at: number
}

export interface CiPipelineScheduleVariablesTable {
  id: Generated<number>
  pipeline_schedule_id: number
  key: string
  /** Sealed with the ci.pipeline_schedule_variables purpose. */
  encrypted_value: string
}

export type CiWhenColumn = 'on_success' | 'on_failure' | 'always' | 'manual' | 'delayed'

/** A CI job (the original's ci_builds). */
export interface CiBuildsTable {
  id: Generated<number>
  pipeline_id: number
  project_id: number
  name: string
  stage: string
  stage_idx: number
  status: CiStatus
  when: CiWhenColumn
  allow_failure: Generated<Flag>
  /** JSON: services/ci/build-options.ts BuildOptions. */
  options: string
  /** JSON [{key, value, public}]. */
  yaml_variables: string
  /** JSON array of runner tags. */
  tag_list: string
  coverage_regex: string | null
  coverage: number | null
  user_id: number | null
  runner_id: number | null
  token_digest: string | null
  /** Replaced by a retry: kept for history, left out of statuses. */
  retried: Generated<Flag>
  failure_reason: string | null
  queued_at: number | null
  started_at: number | null
  finished_at: number | null
  scheduled_at: number | null
  created_at: number
  updated_at: number
  /** `ci` for a job of the CI file; `external` for a commit status set through the API (never run by a runner). */
  kind: Generated<'ci' | 'external'>
  /** An external status's link and text; null for CI jobs. */
  target_url: Generated<string | null>
  description: Generated<string | null>
  /** Seconds the job may run: the project's build_timeout capped by its runner's maximum_timeout, fixed when a runner takes it. */
  timeout: Generated<number | null>
  /** When the job's artifacts expire (null: kept); the original's artifacts_expire_at. */
  artifacts_expire_at: Generated<number | null>
  /** When and by whom the job's trace and artifacts were erased. */
  erased_at: Generated<number | null>
  erased_by_id: Generated<number | null>
}

/** A place a project deploys to (services/ci/environments.ts). */
export interface EnvironmentsTable {
  id: Generated<number>
  project_id: number
  name: string
  /** The name made fit for URLs and DNS, fixed when the environment is created. */
  slug: string
  external_url: string | null
  state: Generated<'available' | 'stopped'>
  created_at: number
  updated_at: number
}

/** A successful CI job's deployment of a ref to an environment, numbered per project. */
export interface DeploymentsTable {
  id: Generated<number>
  project_id: number
  iid: number
  environment_id: number
  ref: string
  tag: Generated<Flag>
  sha: string
  user_id: number | null
  /** The job that deployed; null once it was deleted. */
  deployable_id: number | null
  /** The name of the manual job of the same pipeline that stops the environment. */
  on_stop: string | null
  created_at: number
  updated_at: number
}

/** Bytes of a job's live trace at `start_offset`: one or more per append, at most TRACE_CHUNK_SIZE each (services/ci/trace.ts). */
export interface CiBuildTraceChunksTable {
  build_id: number
  start_offset: number
  /** The length of `data`, kept so the trace's size is read without reading its bytes. */
  size: number
  data: Buffer
}

export type CiArtifactFileType = 'archive' | 'metadata' | 'trace' | 'junit' | 'codequality' | 'sast' | 'dependency_scanning'
  | 'container_scanning' | 'dast' | 'license_management' | 'performance'
export type CiArtifactFileFormat = 'zip' | 'gzip' | 'raw'

/** A file a job left (the original's ci_job_artifacts), its bytes in blob storage under blob_key. */
export interface CiJobArtifactsTable {
  id: Generated<number>
  job_id: number
  project_id: number
  file_type: CiArtifactFileType
  file_format: CiArtifactFileFormat
  size: number
  filename: string
  blob_key: string
  file_sha256: string | null
  expire_at: number | null
  created_at: number
}

/** One file of a zip archive artifact, from its central directory: where its bytes are, to serve it alone. */
export interface CiJobArtifactEntriesTable {
  artifact_id: number
  path: string
  size: number
  compressed_size: number
  compression_method: number
  /** The zip's general purpose bit flags (bit 0: encrypted). */
  flags: number
  crc32: number
  local_header_offset: number
  mode: number
}

export type CiRunnerType = 'instance_type' | 'group_type' | 'project_type'

/** A CI runner (the original's ci_runners); `name` to `architecture` are what it last said of itself (`info`). */
export interface CiRunnersTable {
  id: Generated<number>
  token_digest: string
  runner_type: CiRunnerType
  description: string | null
  active: Generated<Flag>
  /** A project runner that may not be assigned to other projects. */
  locked: Generated<Flag>
  run_untagged: Generated<Flag>
  /** JSON array of tags. */
  tag_list: Generated<string>
  /** `ref_protected`: takes jobs of protected branches and tags only. */
  access_level: Generated<'not_protected' | 'ref_protected'>
  /** Seconds; null for no cap. */
  maximum_timeout: number | null
  name: string | null
  version: string | null
  revision: string | null
  platform: string | null
  architecture: string | null
  ip_address: string | null
  contacted_at: number | null
  created_at: number
  updated_at: number
}

export interface CiRunnerProjectsTable {
  id: Generated<number>
  runner_id: number
  project_id: number
  created_at: number
}

export interface CiRunnerNamespacesTable {
  id: Generated<number>
  runner_id: number
  namespace_id: number
  created_at: number
}

export interface Database {
  users: UsersTable
  identities: IdentitiesTable
  access_tokens: AccessTokensTable
  oauth_applications: OauthApplicationsTable
  oauth_access_grants: OauthAccessGrantsTable
  oauth_client_tokens: OauthClientTokensTable
  ssh_keys: SshKeysTable
  namespaces: NamespacesTable
  projects: ProjectsTable
  project_statistics: ProjectStatisticsTable
  members: MembersTable
  project_group_links: ProjectGroupLinksTable
  stars: StarsTable
  custom_attributes: CustomAttributesTable
  events: EventsTable
  jobs: JobsTable
  counters: CountersTable
  protected_branches: ProtectedBranchesTable
  protected_tags: ProtectedTagsTable
  releases: ReleasesTable
  notes: NotesTable
  internal_ids: InternalIdsTable
  milestones: MilestonesTable
  labels: LabelsTable
  issues: IssuesTable
  issue_assignees: IssueAssigneesTable
  merge_requests: MergeRequestsTable
  label_links: LabelLinksTable
  snippets: SnippetsTable
  award_emoji: AwardEmojiTable
  boards: BoardsTable
  board_lists: BoardListsTable
  subscriptions: SubscriptionsTable
  issue_counts: IssueCountsTable
  ci_job_counts: CiJobCountsTable
  application_settings: ApplicationSettingsTable
  web_hooks: WebHooksTable
  sessions: SessionsTable
  throttle_counters: ThrottleCountersTable
  throttle_bans: ThrottleBansTable
  integrations: IntegrationsTable
  notification_settings: NotificationSettingsTable
  ci_pipelines: CiPipelinesTable
  environments: EnvironmentsTable
  deployments: DeploymentsTable
  ci_pipeline_variables: CiPipelineVariablesTable
  ci_variables: CiVariablesTable
  badges: BadgesTable
  project_exports: ProjectExportsTable
  ci_triggers: CiTriggersTable
  ci_pipeline_schedules: CiPipelineSchedulesTable
  ci_pipeline_schedule_variables: CiPipelineScheduleVariablesTable
  ci_builds: CiBuildsTable
  ci_build_trace_chunks: CiBuildTraceChunksTable
  ci_job_artifacts: CiJobArtifactsTable
  ci_job_artifact_entries: CiJobArtifactEntriesTable
  ci_runners: CiRunnersTable
  ci_runner_projects: CiRunnerProjectsTable
  ci_runner_namespaces: CiRunnerNamespacesTable
  deploy_keys: DeployKeysTable
  deploy_keys_projects: DeployKeysProjectsTable
  lfs_objects: LfsObjectsTable
  lfs_objects_projects: LfsObjectsProjectsTable
  lfs_file_locks: LfsFileLocksTable
}

export type UserRow = Selectable<UsersTable>
export type NewUser = Insertable<UsersTable>
export type UserUpdate = Updateable<UsersTable>
export type AccessTokenRow = Selectable<AccessTokensTable>
export type OauthApplicationRow = Selectable<OauthApplicationsTable>
export type OauthAccessGrantRow = Selectable<OauthAccessGrantsTable>
export type OauthClientTokenRow = Selectable<OauthClientTokensTable>
export type SshKeyRow = Selectable<SshKeysTable>
export type IdentityRow = Selectable<IdentitiesTable>
export type NamespaceRow = Selectable<NamespacesTable>
export type CiVariableRow = Selectable<CiVariablesTable>
export type BadgeRow = Selectable<BadgesTable>
export type ProjectRow = Selectable<ProjectsTable>
export type ProjectStatisticsRow = Selectable<ProjectStatisticsTable>
export type MemberRow = Selectable<MembersTable>
export type ProjectGroupLinkRow = Selectable<ProjectGroupLinksTable>
export type CustomAttributeRow = Selectable<CustomAttributesTable>
export type EventRow = Selectable<EventsTable>
export type JobRow = Selectable<JobsTable>
export type ProtectedBranchRow = Selectable<ProtectedBranchesTable>
export type IntegrationRow = Selectable<IntegrationsTable>
export type ProtectedTagRow = Selectable<ProtectedTagsTable>
export type ReleaseRow = Selectable<ReleasesTable>
export type NoteRow = Selectable<NotesTable>
export type MilestoneRow = Selectable<MilestonesTable>
export type LabelRow = Selectable<LabelsTable>
export type IssueRow = Selectable<IssuesTable>
export type MergeRequestRow = Selectable<MergeRequestsTable>
export type SnippetRow = Selectable<SnippetsTable>
export type AwardEmojiRow = Selectable<AwardEmojiTable>
export type BoardRow = Selectable<BoardsTable>
export type BoardListRow = Selectable<BoardListsTable>
export type ApplicationSettingsRow = Selectable<ApplicationSettingsTable>
export type WebHookRow = Selectable<WebHooksTable>
export type SessionRow = Selectable<SessionsTable>
export type CiPipelineRow = Selectable<CiPipelinesTable>
export type CiBuildRow = Selectable<CiBuildsTable>
export type CiTriggerRow = Selectable<CiTriggersTable>
export type CiPipelineScheduleRow = Selectable<CiPipelineSchedulesTable>
export type CiJobArtifactRow = Selectable<CiJobArtifactsTable>
export type CiJobArtifactEntryRow = Selectable<CiJobArtifactEntriesTable>
export type CiRunnerRow = Selectable<CiRunnersTable>
export type ProjectExportRow = Selectable<ProjectExportsTable>
export type DeployKeyRow = Selectable<DeployKeysTable>
export type DeployKeyProjectRow = Selectable<DeployKeysProjectsTable>
export type LfsObjectRow = Selectable<LfsObjectsTable>
export type LfsFileLockRow = Selectable<LfsFileLocksTable>
export type EnvironmentRow = Selectable<EnvironmentsTable>
export type DeploymentRow = Selectable<DeploymentsTable>
