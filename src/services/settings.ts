// Application settings (spec: Application settings): every setting with its type and its default,
// the stored record (one row of application_settings whose JSON holds the values an administrator
// changed), and updateApplicationSettings, which validates changes and stores them. Which settings
// already take effect, and which are only stored, is in docs/settings.md.
import type { Db } from '../db/index.js'
import { isPostgres } from '../db/dialect.js'
import { readCacheOf } from '../db/read-cache.js'
import { validationFailed, type FieldErrors } from '../common/errors.js'
import type { Visibility } from '../policies/access-levels.js'
import { collectErrors } from './validation.js'

/** Protection of a new project's default branch: 0 none, 1 Developers push, 2 Maintainers only. */
export type BranchProtection = 0 | 1 | 2
/** Which git transports are on: one of them, or null for both. */
export type GitAccessProtocol = 'ssh' | 'http' | null

/** Project import sources: the spec names three; the others are the original's third-party importers. */
export const IMPORT_SOURCES = [
  'github', 'bitbucket', 'bitbucket_server', 'service', 'google_code', 'fogbugz', 'git', 'service_project', 'gitea', 'manifest',
] as const
export type ImportSource = (typeof IMPORT_SOURCES)[number]

/** The minimum key sizes the original offers per key type; 0 allows any size, -1 forbids the type. */
export const KEY_RESTRICTION_VALUES = {
  rsa_key_restriction: [0, 1024, 2048, 3072, 4096, -1],
  dsa_key_restriction: [0, 1024, 2048, 3072, -1],
  ecdsa_key_restriction: [0, 256, 384, 521, -1],
  ed25519_key_restriction: [0, 256, -1],
} as const

export interface ApplicationSettings {
  admin_notification_email: string | null
  after_sign_out_path: string | null
  after_sign_up_text: string | null
  sign_in_text: string | null
  home_page_url: string | null
  signup_enabled: boolean
  spam_service_enabled: boolean
  spam_service_api_key: string | null
  allow_local_requests_from_hooks_and_services: boolean
  authorized_keys_enabled: boolean
  auto_devops_domain: string | null
  auto_devops_enabled: boolean
  clientside_error_tracker_enabled: boolean
  clientside_error_tracker_dsn: string | null
  /** Minutes. */
  container_registry_token_expire_delay: number
  default_artifacts_expire_in: string
  default_branch_protection: BranchProtection
  default_group_visibility: Visibility
  default_project_visibility: Visibility
  default_snippet_visibility: Visibility
  default_projects_limit: number
  disabled_oauth_sign_in_sources: string[]
  domain_blacklist_enabled: boolean
  /** Wildcards allowed (`*.example.com`). */
  domain_blacklist: string[]
  /** null: sign-up from any domain. */
  domain_whitelist: string[] | null
  /** Minimum key sizes by key type: 0 allows any size, -1 forbids the type. */
  rsa_key_restriction: number
  dsa_key_restriction: number
  ecdsa_key_restriction: number
  ed25519_key_restriction: number
  email_author_in_body: boolean
  html_emails_enabled: boolean
  enabled_git_access_protocol: GitAccessProtocol
  enforce_terms: boolean
  terms: string | null
  /** Seconds; 0 disables the timeout. */
  storage_timeout_default: number
  storage_timeout_fast: number
  storage_timeout_medium: number
  avatar_service_enabled: boolean
  hashed_storage_enabled: boolean
  help_page_hide_commercial_content: boolean
  help_page_support_url: string | null
  help_page_text: string | null
  hide_third_party_offers: boolean
  housekeeping_enabled: boolean
  housekeeping_bitmaps_enabled: boolean
  /** Periods are counted in pushes. */
  housekeeping_full_repack_period: number
  housekeeping_gc_period: number
  housekeeping_incremental_repack_period: number
  instance_statistics_visibility_private: boolean
  import_sources: ImportSource[]
  /** Megabytes. */
  max_artifacts_size: number
  max_attachment_size: number
  /** Megabytes: the largest archive POST /projects/import takes; 0 for any. */
  max_import_size: number
  max_pages_size: number
  metrics_enabled: boolean
  metrics_host: string | null
  metrics_method_call_threshold: number
  metrics_packet_size: number
  metrics_pool_size: number
  metrics_port: number
  metrics_sample_interval: number
  metrics_timeout: number
  mirror_available: boolean
  pages_domain_verification_enabled: boolean
  password_authentication_enabled_for_git: boolean
  password_authentication_enabled_for_web: boolean
  performance_bar_allowed_group_path: string | null
  performance_bar_allowed_group_id: string | null
  performance_bar_enabled: boolean
  diagram_renderer_enabled: boolean
  diagram_renderer_url: string | null
  /** 0 disables polling. */
  polling_interval_multiplier: number
  project_export_enabled: boolean
  prometheus_metrics_enabled: boolean
  /** Megabytes: the largest pack a push may send; 0 for any. */
  receive_max_input_size: number
  /** Visibilities that only administrators may choose. */
  restricted_visibility_levels: Visibility[]
  user_oauth_applications: boolean
  /** Seconds an OAuth access token lives after it is issued; 0 for ever (the original's tokens never expire). */
  oauth_access_token_expires_in: number
  /** Minutes. */
  session_expire_delay: number
  repository_storages: string[]
  /** Seconds; 0 for no limit. */
  terminal_max_session_time: number
  /** Requests without a user, counted per address. */
  throttle_unauthenticated_enabled: boolean
  throttle_unauthenticated_requests_per_period: number
  throttle_unauthenticated_period_in_seconds: number
  /** /api/ requests with a user, counted per user. */
  throttle_authenticated_api_enabled: boolean
  throttle_authenticated_api_requests_per_period: number
  throttle_authenticated_api_period_in_seconds: number
  /** Other requests with a user (a web session), counted per user. */
  throttle_authenticated_web_enabled: boolean
  throttle_authenticated_web_requests_per_period: number
  throttle_authenticated_web_period_in_seconds: number
  user_show_add_ssh_key_message: boolean
}

/** The original's defaults (release 11.5). */
export const DEFAULT_SETTINGS: Readonly<ApplicationSettings> = {
  admin_notification_email: null,
  after_sign_out_path: null,
  after_sign_up_text: null,
  sign_in_text: null,
  home_page_url: null,
  signup_enabled: true,
  spam_service_enabled: false,
  spam_service_api_key: null,
  allow_local_requests_from_hooks_and_services: false,
  authorized_keys_enabled: true,
  auto_devops_domain: null,
  auto_devops_enabled: true,
  clientside_error_tracker_enabled: false,
  clientside_error_tracker_dsn: null,
  container_registry_token_expire_delay: 5,
  default_artifacts_expire_in: '30 days',
  default_branch_protection: 2,
  default_group_visibility: 'private',
  default_project_visibility: 'private',
  default_snippet_visibility: 'private',
  default_projects_limit: 100000,
  disabled_oauth_sign_in_sources: [],
  domain_blacklist_enabled: false,
  domain_blacklist: [],
  domain_whitelist: null,
  rsa_key_restriction: 0,
  dsa_key_restriction: 0,
  ecdsa_key_restriction: 0,
  ed25519_key_restriction: 0,
  email_author_in_body: false,
  html_emails_enabled: true,
  enabled_git_access_protocol: null,
  enforce_terms: false,
  terms: null,
  storage_timeout_default: 55,
  storage_timeout_fast: 10,
  storage_timeout_medium: 30,
  avatar_service_enabled: true,
  hashed_storage_enabled: false,
  help_page_hide_commercial_content: false,
  help_page_support_url: null,
  help_page_text: null,
  hide_third_party_offers: false,
  housekeeping_enabled: true,
  housekeeping_bitmaps_enabled: true,
  housekeeping_full_repack_period: 50,
  housekeeping_gc_period: 200,
  housekeeping_incremental_repack_period: 10,
  instance_statistics_visibility_private: false,
  import_sources: [...IMPORT_SOURCES],
  max_artifacts_size: 100,
  max_attachment_size: 10,
  // Not a setting of 11.5 (later releases added it with this default).
  max_import_size: 50,
  max_pages_size: 100,
  metrics_enabled: false,
  metrics_host: 'localhost',
  metrics_method_call_threshold: 10,
  metrics_packet_size: 1,
  metrics_pool_size: 16,
  metrics_port: 8089,
  metrics_sample_interval: 15,
  metrics_timeout: 10,
  mirror_available: true,
  pages_domain_verification_enabled: true,
  password_authentication_enabled_for_git: true,
  password_authentication_enabled_for_web: true,
  performance_bar_allowed_group_path: null,
  performance_bar_allowed_group_id: null,
  performance_bar_enabled: false,
  diagram_renderer_enabled: false,
  diagram_renderer_url: null,
  polling_interval_multiplier: 1,
  project_export_enabled: true,
  prometheus_metrics_enabled: false,
  // Not a setting of 11.5 (later releases added it, unset meaning no limit): on by default here,
  // at the 2 GB a push of the largest hosted forges may send, so no single push fills the disk.
  receive_max_input_size: 2048,
  restricted_visibility_levels: [],
  user_oauth_applications: true,
  oauth_access_token_expires_in: 0,
  session_expire_delay: 10080,
  repository_storages: ['default'],
  terminal_max_session_time: 0,
  throttle_unauthenticated_enabled: false,
  throttle_unauthenticated_requests_per_period: 3600,
  throttle_unauthenticated_period_in_seconds: 3600,
  throttle_authenticated_api_enabled: false,
  throttle_authenticated_api_requests_per_period: 7200,
  throttle_authenticated_api_period_in_seconds: 3600,
  throttle_authenticated_web_enabled: false,
  throttle_authenticated_web_requests_per_period: 7200,
  throttle_authenticated_web_period_in_seconds: 3600,
  user_show_add_ssh_key_message: true,
}

type SettingName = keyof ApplicationSettings

/** Switches that need their partner settings to be set (not blank) while they are on. */
const REQUIRES: ReadonlyArray<{ when: SettingName; requires: readonly SettingName[] }> = [
  { when: 'spam_service_enabled', requires: ['spam_service_api_key'] },
  { when: 'clientside_error_tracker_enabled', requires: ['clientside_error_tracker_dsn'] },
  { when: 'domain_blacklist_enabled', requires: ['domain_blacklist'] },
  { when: 'enforce_terms', requires: ['terms'] },
  {
    when: 'housekeeping_enabled',
    requires: ['housekeeping_bitmaps_enabled', 'housekeeping_full_repack_period', 'housekeeping_gc_period', 'housekeeping_incremental_repack_period'],
  },
  {
    when: 'metrics_enabled',
    requires: ['metrics_host', 'metrics_method_call_threshold', 'metrics_packet_size', 'metrics_pool_size', 'metrics_port',
      'metrics_sample_interval', 'metrics_timeout'],
  },
  { when: 'diagram_renderer_enabled', requires: ['diagram_renderer_url'] },
]

export interface ApplicationSettingsRecord {
  id: number
  created_at: number
  updated_at: number
  settings: ApplicationSettings
}

/** The settings in effect; cached (the push path reads them on every push) and frozen. */
export async function getApplicationSettings(db: Db): Promise<ApplicationSettings> {
  return (await getApplicationSettingsRecord(db)).settings
}

export async function getApplicationSettingsRecord(db: Db): Promise<ApplicationSettingsRecord> {
  const cache = settingsCache(db)
  return cache === null ? loadRecord(db) : cache.get('current', () => loadRecord(db))
}

/** The settings in effect when they are cached, without waiting; undefined when they would be read. */
export function cachedApplicationSettings(db: Db): ApplicationSettings | undefined {
  return settingsCache(db)?.peek('current')?.settings
}

const settingsCache = (db: Db) =>
  readCacheOf<ApplicationSettingsRecord>(db, 'application-settings', { tables: ['application_settings'], maxWeight: 1 })

async function loadRecord(db: Db): Promise<ApplicationSettingsRecord> {
  const row = await settingsRow(db)
  return { id: row.id, created_at: row.created_at, updated_at: row.updated_at, settings: withDefaults(storedChanges(row.settings)) }
}

/** The one row (migration 0005 creates it); locked when read by an update on PostgreSQL. */
function settingsRow(db: Db, options: { forUpdate?: boolean } = {}) {
  return db.selectFrom('application_settings').selectAll().orderBy('id').limit(1)
    .$if(options.forUpdate === true && isPostgres(db), (qb) => qb.forUpdate())
    .executeTakeFirstOrThrow()
}

function storedChanges(json: string): Partial<ApplicationSettings> {
  const parsed: unknown = JSON.parse(json)
  return typeof parsed === 'object' && parsed !== null ? parsed as Partial<ApplicationSettings> : {}
}

/** Stored values over the defaults; a stored setting no longer known is ignored. */
function withDefaults(changes: Partial<ApplicationSettings>): ApplicationSettings {
  const settings = structuredClone(DEFAULT_SETTINGS) as ApplicationSettings
  for (const name of Object.keys(settings) as SettingName[]) {
    if (Object.hasOwn(changes, name)) (settings as unknown as Record<string, unknown>)[name] = changes[name]
  }
  return settings
}

/** A domain list's items (sign-up allow and deny lists), separated as the original's admin form takes them: commas, whitespace, `;`. */
export function domainListItems(values: readonly string[]): string[] {
  return values.flatMap((value) => value.split(/[\s,;]+/)).filter((item) => item !== '')
}

/**
 * Validates `changes` against the settings they would produce and stores them: 400 with every
 * problem by setting when they are not acceptable.
 */
export async function updateApplicationSettings(db: Db, changes: Partial<ApplicationSettings>): Promise<ApplicationSettingsRecord> {
  return db.transaction().execute(async (trx) => {
    const row = await settingsRow(trx, { forUpdate: true })
    const given = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined))
    const stored = { ...storedChanges(row.settings), ...given }
    const settings = withDefaults(stored)
    const errors = settingErrors(settings)
    if (errors !== null) throw validationFailed(errors)
    const updatedAt = Date.now()
    await trx.updateTable('application_settings').set({ settings: JSON.stringify(stored), updated_at: updatedAt }).where('id', '=', row.id).execute()
    return { id: row.id, created_at: row.created_at, updated_at: updatedAt, settings }
  })
}

const isBlank = (value: unknown) => value === null || value === '' || (Array.isArray(value) && value.length === 0)

function settingErrors(settings: ApplicationSettings): FieldErrors | null {
  const checks: Record<string, string[]> = {}
  const add = (name: SettingName, message: string) => { (checks[name] ??= []).push(message) }
  for (const rule of REQUIRES) {
    if (settings[rule.when] !== true) continue
    for (const partner of rule.requires) if (isBlank(settings[partner])) add(partner, "can't be blank")
  }
  // Each housekeeping task is at least as rare as the lighter one before it, as the original requires.
  if (settings.housekeeping_full_repack_period < settings.housekeeping_incremental_repack_period) {
    add('housekeeping_full_repack_period', 'must be greater than or equal to housekeeping_incremental_repack_period')
  }
  if (settings.housekeeping_gc_period < settings.housekeeping_full_repack_period) {
    add('housekeeping_gc_period', 'must be greater than or equal to housekeeping_full_repack_period')
  }
  // Every throttle's numbers are whole and above 0 whether it is on or not, as the original validates them.
  for (const name of THROTTLE_NUMBERS) {
    const value = settings[name]
    if (!Number.isInteger(value) || value <= 0) add(name, 'must be greater than 0')
  }
  return collectErrors(checks)
}

const THROTTLE_NUMBERS = [
  'throttle_unauthenticated_requests_per_period', 'throttle_unauthenticated_period_in_seconds',
  'throttle_authenticated_api_requests_per_period', 'throttle_authenticated_api_period_in_seconds',
  'throttle_authenticated_web_requests_per_period', 'throttle_authenticated_web_period_in_seconds',
] as const satisfies readonly SettingName[]
