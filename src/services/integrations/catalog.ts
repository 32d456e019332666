// Every kind of project integration (spec: Project integrations (services)): its slug under
// /projects/:id/services/, its title, its settings (which are required, which are secret and never
// shown, which are URLs and which of those Ingot itself would request) and the event flags its PUT
// takes, after the original's supported events. The slugs name what each kind does; docs/integrations.md
// maps them to the spec's table. Each kind also answers under the original's slug for it (named after
// the product, left out of the spec), which is what clients (python-gitlab, the Terraform provider)
// send.

export const EVENT_FLAGS = [
  'push_events', 'issues_events', 'confidential_issues_events', 'merge_requests_events', 'tag_push_events',
  'note_events', 'confidential_note_events', 'pipeline_events', 'wiki_page_events', 'job_events',
] as const
export type EventFlag = typeof EVENT_FLAGS[number]

export type FieldType = 'string' | 'url' | 'boolean' | 'integer'

export interface IntegrationField {
  name: string
  type: FieldType
  required?: boolean
  /** Passwords, tokens and keys: kept server-side, never in a response. */
  secret?: boolean
  /** A URL Ingot itself would send requests to: refused when it points where hooks may not go. */
  outbound?: boolean
  /** The value a new integration starts with when its first PUT leaves the field out. */
  initial?: boolean | number
  /** The parameter's name under the kind's original slug, where the original named it otherwise. */
  originalName?: string
}

export interface IntegrationKind {
  slug: string
  /** The original 11.5's slug for the same kind (lib/api/services.rb), when it differs from `slug`. */
  originalSlug?: string
  title: string
  fields: readonly IntegrationField[]
  /** The event flags its PUT accepts (every flag is shown by GET). */
  events: readonly EventFlag[]
  /** Whether a `title` setting, when given, replaces the kind's title (the issue trackers). */
  titleSetting?: boolean
  /** The container cluster kind, deprecated: every endpoint answers 400 while it is inactive. */
  deprecated?: boolean
}

const required = (name: string, type: FieldType = 'string', extra: Partial<IntegrationField> = {}): IntegrationField =>
  ({ name, type, required: true, ...extra })
const optional = (name: string, type: FieldType = 'string', extra: Partial<IntegrationField> = {}): IntegrationField =>
  ({ name, type, ...extra })
const secret = (name: string): IntegrationField => required(name, 'string', { secret: true })

const issueTrackerFields = [
  required('new_issue_url', 'url'), required('issues_url', 'url'), required('project_url', 'url'),
  optional('description'), optional('title'),
]

const CHAT_EVENTS: readonly EventFlag[] = [
  'push_events', 'issues_events', 'confidential_issues_events', 'merge_requests_events', 'note_events',
  'confidential_note_events', 'tag_push_events', 'pipeline_events', 'wiki_page_events',
]

export const INTEGRATION_KINDS: readonly IntegrationKind[] = [
  {
    slug: 'task-tracker-comments', originalSlug: 'asana', title: 'Task tracker comments',
    fields: [secret('api_key'), optional('restrict_to_branch')], events: ['push_events'],
  },
  {
    slug: 'source-commits', originalSlug: 'assembla', title: 'Source commits',
    fields: [secret('token'), optional('subdomain')], events: ['push_events'],
  },
  {
    slug: 'ci-build-server', originalSlug: 'bamboo', title: 'CI build server',
    fields: [required('build_server_url', 'url', { outbound: true, originalName: 'bamboo_url' }), required('build_key'), required('username'), secret('password')],
    events: ['push_events'],
  },
  { slug: 'bug-tracker', originalSlug: 'bugzilla', title: 'Bug tracker', fields: issueTrackerFields, events: ['push_events'], titleSetting: true },
  { slug: 'custom-issue-tracker', title: 'Custom Issue Tracker', fields: issueTrackerFields, events: ['push_events'], titleSetting: true },
  {
    slug: 'ci-pipelines', originalSlug: 'buildkite', title: 'CI pipelines',
    fields: [secret('token'), required('project_url', 'url'), optional('enable_ssl_verification', 'boolean', { initial: true })],
    events: ['push_events', 'merge_requests_events', 'tag_push_events'],
  },
  {
    slug: 'team-chat', originalSlug: 'campfire', title: 'Team chat',
    fields: [secret('token'), optional('subdomain'), optional('room')], events: ['push_events'],
  },
  {
    slug: 'ci-runner-service', originalSlug: 'drone-ci', title: 'CI runner service',
    fields: [secret('token'), required('drone_url', 'url', { outbound: true }), optional('enable_ssl_verification', 'boolean', { initial: true })],
    events: ['push_events', 'merge_requests_events', 'tag_push_events'],
  },
  {
    slug: 'emails-on-push', title: 'Emails on push',
    fields: [required('recipients'), optional('disable_diffs', 'boolean'), optional('send_from_committer_email', 'boolean')],
    events: ['push_events', 'tag_push_events'],
  },
  {
    slug: 'pipelines-email', title: 'Pipelines emails',
    fields: [required('recipients'), optional('notify_only_broken_pipelines', 'boolean', { initial: true })],
    events: ['pipeline_events'],
  },
  { slug: 'external-wiki', title: 'External Wiki', fields: [required('external_wiki_url', 'url')], events: [] },
  { slug: 'collaboration-inbox', originalSlug: 'flowdock', title: 'Collaboration inbox', fields: [secret('token')], events: ['push_events'] },
  {
    slug: 'chat-webhook', originalSlug: 'hangouts-chat', title: 'Chat webhook',
    fields: [
      required('webhook', 'url', { outbound: true }),
      optional('notify_only_broken_pipelines', 'boolean', { initial: true }),
      optional('notify_only_default_branch', 'boolean', { initial: true }),
    ],
    events: CHAT_EVENTS,
  },
  {
    slug: 'team-chat-rooms', originalSlug: 'hipchat', title: 'Team chat rooms',
    fields: [
      secret('token'), optional('color'), optional('room'), optional('api_version'),
      optional('server', 'url', { outbound: true }), optional('notify', 'boolean'),
    ],
    events: ['push_events', 'issues_events', 'confidential_issues_events', 'merge_requests_events', 'note_events', 'tag_push_events', 'pipeline_events'],
  },
  {
    slug: 'irc-gateway', originalSlug: 'irker', title: 'IRC gateway',
    fields: [
      required('recipients'), optional('default_irc_uri'), optional('server_host'), optional('server_port', 'integer'),
      optional('colorize_messages', 'boolean'),
    ],
    events: ['push_events'],
  },
  {
    slug: 'issue-tracker-workflow', originalSlug: 'jira', title: 'Issue tracker with workflow',
    fields: [
      required('url', 'url', { outbound: true }), required('project_key'), required('username'), secret('password'),
      optional('jira_issue_transition_id', 'integer', { initial: 2 }),
    ],
    events: ['merge_requests_events'],
  },
  {
    slug: 'container-cluster', originalSlug: 'kubernetes', title: 'Container cluster',
    fields: [required('namespace'), required('api_url', 'url', { outbound: true }), secret('token'), optional('ca_pem')],
    events: [], deprecated: true,
  },
]

/**
 * A slug a request may name: the kind it stands for, and the names of the kind's parameters under
 * it (the original's names under its slug).
 */
export interface IntegrationSlug {
  slug: string
  kind: IntegrationKind
  paramName(field: IntegrationField): string
}

export const INTEGRATION_SLUGS: readonly IntegrationSlug[] = INTEGRATION_KINDS.flatMap((kind) => [
  { slug: kind.slug, kind, paramName: (field: IntegrationField) => field.name },
  ...kind.originalSlug === undefined ? [] : [{
    slug: kind.originalSlug, kind, paramName: (field: IntegrationField) => field.originalName ?? field.name,
  }],
])

const BY_SLUG = new Map(INTEGRATION_SLUGS.map((entry) => [entry.slug, entry]))

export function integrationSlug(slug: string): IntegrationSlug | undefined {
  return BY_SLUG.get(slug)
}

/** The kinds whose settings describe an external issue tracker (the project's issue URLs). */
export const ISSUE_TRACKER_SLUGS = ['bug-tracker', 'custom-issue-tracker'] as const
