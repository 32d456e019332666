// Application settings (spec: Application settings): read and change the instance's settings.
// Administrators only.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type, type Static } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import { MAX_INTEGER } from '../../db/values.js'
import { ApplicationSettingsSchema, presentApplicationSettings } from '../../entities/application-settings.js'
import { VISIBILITIES, visibilityName, type Visibility } from '../../policies/access-levels.js'
import {
  IMPORT_SOURCES, KEY_RESTRICTION_VALUES, domainListItems, getApplicationSettingsRecord, updateApplicationSettings,
  type ApplicationSettings, type BranchProtection, type ImportSource,
} from '../../services/settings.js'
import { invalidParam } from '../../common/errors.js'
import { requireAdmin } from '../load.js'
import { BooleanParam, OneOf } from '../params.js'

const Text = Type.Optional(Type.String())
const Flag = Type.Optional(BooleanParam())
const Count = (minimum = 0) => Type.Optional(Type.Integer({ minimum, maximum: MAX_INTEGER }))
/** An array (`a[]=x&a[]=y`, a JSON array) or comma-separated text, as the original accepts lists. */
const List = Type.Optional(Type.Array(Type.String()))
const VisibilityParam = Type.Optional(OneOf(VISIBILITIES))
const KeyRestriction = (values: readonly number[]) => Type.Optional(Type.Unsafe<number>({ type: 'integer', enum: [...values] }))

const UpdateSettingsBody = Type.Object({
  admin_notification_email: Text,
  after_sign_out_path: Text,
  after_sign_up_text: Text,
  sign_in_text: Text,
  home_page_url: Text,
  signup_enabled: Flag,
  spam_service_enabled: Flag,
  spam_service_api_key: Text,
  allow_local_requests_from_hooks_and_services: Flag,
  authorized_keys_enabled: Flag,
  auto_devops_domain: Text,
  auto_devops_enabled: Flag,
  clientside_error_tracker_enabled: Flag,
  clientside_error_tracker_dsn: Text,
  container_registry_token_expire_delay: Count(1),
  default_artifacts_expire_in: Text,
  default_branch_protection: Type.Optional(Type.Unsafe<BranchProtection>({ type: 'integer', enum: [0, 1, 2] })),
  default_group_visibility: VisibilityParam,
  default_project_visibility: VisibilityParam,
  default_snippet_visibility: VisibilityParam,
  default_projects_limit: Count(),
  disabled_oauth_sign_in_sources: List,
  domain_blacklist_enabled: Flag,
  domain_blacklist: List,
  domain_whitelist: List,
  rsa_key_restriction: KeyRestriction(KEY_RESTRICTION_VALUES.rsa_key_restriction),
  dsa_key_restriction: KeyRestriction(KEY_RESTRICTION_VALUES.dsa_key_restriction),
  ecdsa_key_restriction: KeyRestriction(KEY_RESTRICTION_VALUES.ecdsa_key_restriction),
  ed25519_key_restriction: KeyRestriction(KEY_RESTRICTION_VALUES.ed25519_key_restriction),
  email_author_in_body: Flag,
  html_emails_enabled: Flag,
  /** `nil` (or empty) turns both protocols on. */
  enabled_git_access_protocol: Type.Optional(OneOf(['ssh', 'http', 'nil', ''] as const)),
  enforce_terms: Flag,
  terms: Text,
  storage_timeout_default: Count(),
  storage_timeout_fast: Count(),
  storage_timeout_medium: Count(),
  avatar_service_enabled: Flag,
  hashed_storage_enabled: Flag,
  help_page_hide_commercial_content: Flag,
  help_page_support_url: Text,
  help_page_text: Text,
  hide_third_party_offers: Flag,
  housekeeping_enabled: Flag,
  housekeeping_bitmaps_enabled: Flag,
  housekeeping_full_repack_period: Count(1),
  housekeeping_gc_period: Count(1),
  housekeeping_incremental_repack_period: Count(1),
  instance_statistics_visibility_private: Flag,
  import_sources: List,
  max_artifacts_size: Count(1),
  max_attachment_size: Count(1),
  max_import_size: Count(),
  max_pages_size: Count(),
  metrics_enabled: Flag,
  metrics_host: Text,
  metrics_method_call_threshold: Count(),
  metrics_packet_size: Count(1),
  metrics_pool_size: Count(1),
  metrics_port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
  metrics_sample_interval: Count(1),
  metrics_timeout: Count(1),
  mirror_available: Flag,
  pages_domain_verification_enabled: Flag,
  password_authentication_enabled_for_git: Flag,
  password_authentication_enabled_for_web: Flag,
  performance_bar_allowed_group_path: Text,
  performance_bar_allowed_group_id: Text,
  performance_bar_enabled: Flag,
  diagram_renderer_enabled: Flag,
  diagram_renderer_url: Text,
  polling_interval_multiplier: Type.Optional(Type.Number({ minimum: 0, maximum: MAX_INTEGER })),
  project_export_enabled: Flag,
  prometheus_metrics_enabled: Flag,
  /** Megabytes, at most 1 TB (git takes the limit in bytes). */
  receive_max_input_size: Type.Optional(Type.Integer({ minimum: 0, maximum: 1024 * 1024 })),
  /** Names (`public`) or levels (`20`). */
  restricted_visibility_levels: List,
  user_oauth_applications: Flag,
  oauth_access_token_expires_in: Count(),
  session_expire_delay: Count(),
  repository_storages: List,
  terminal_max_session_time: Count(),
  throttle_unauthenticated_enabled: Flag,
  throttle_unauthenticated_requests_per_period: Count(),
  throttle_unauthenticated_period_in_seconds: Count(),
  throttle_authenticated_api_enabled: Flag,
  throttle_authenticated_api_requests_per_period: Count(),
  throttle_authenticated_api_period_in_seconds: Count(),
  throttle_authenticated_web_enabled: Flag,
  throttle_authenticated_web_requests_per_period: Count(),
  throttle_authenticated_web_period_in_seconds: Count(),
  user_show_add_ssh_key_message: Flag,
})
type UpdateSettingsParams = Static<typeof UpdateSettingsBody>

/** The items of a list parameter, comma-separated text split, blanks dropped. */
function listItems(values: readonly string[]): string[] {
  return values.flatMap((value) => value.split(',')).map((item) => item.trim()).filter((item) => item !== '')
}

function visibilityOf(item: string): Visibility | null {
  if ((VISIBILITIES as readonly string[]).includes(item)) return item as Visibility
  return /^(0|10|20)$/.test(item) ? visibilityName(Number(item)) : null
}

function settingChanges(params: UpdateSettingsParams): Partial<ApplicationSettings> {
  const {
    enabled_git_access_protocol: protocol, import_sources: importSources, restricted_visibility_levels: restrictedLevels,
    disabled_oauth_sign_in_sources: disabledSignInSources, domain_blacklist: blacklist, domain_whitelist: whitelist,
    repository_storages: storages, ...scalars
  } = params
  const changes: Partial<ApplicationSettings> = { ...scalars }
  if (protocol !== undefined) changes.enabled_git_access_protocol = protocol === 'nil' || protocol === '' ? null : protocol
  if (importSources !== undefined) {
    const sources = listItems(importSources)
    if (!sources.every((source) => (IMPORT_SOURCES as readonly string[]).includes(source))) throw invalidParam('import_sources')
    changes.import_sources = sources as ImportSource[]
  }
  if (restrictedLevels !== undefined) {
    const levels = listItems(restrictedLevels).map(visibilityOf)
    if (levels.includes(null)) throw invalidParam('restricted_visibility_levels')
    changes.restricted_visibility_levels = [...new Set(levels as Visibility[])]
  }
  if (disabledSignInSources !== undefined) changes.disabled_oauth_sign_in_sources = listItems(disabledSignInSources)
  if (blacklist !== undefined) changes.domain_blacklist = domainListItems(blacklist)
  if (whitelist !== undefined) changes.domain_whitelist = domainListItems(whitelist)
  if (storages !== undefined) changes.repository_storages = listItems(storages)
  return changes
}

const applicationSettings: FastifyPluginAsyncTypebox = async (app) => {
  // Before the parameters are validated, as the original refuses non-administrators first.
  const adminOnly = async (req: FastifyRequest) => requireAdmin(req)

  app.get('/application/settings', {
    schema: { response: { 200: ApplicationSettingsSchema } },
    preValidation: adminOnly,
  }, async (req) => presentApplicationSettings(await getApplicationSettingsRecord(req.ingot.db)))

  app.put('/application/settings', {
    schema: { body: UpdateSettingsBody, response: { 200: ApplicationSettingsSchema } },
    preValidation: adminOnly,
  }, async (req) => presentApplicationSettings(await updateApplicationSettings(req.ingot.db, settingChanges(req.body))))
}

export default applicationSettings
