// The admin area's application settings at `/admin/application_settings`: the settings of the
// API's PUT /application/settings an operator sets, in fieldsets (sign-up and sign-in, visibility
// and access, account limits, CI/CD, import and export, throttles), saved through the same service
// with its validation (a refusal shows the form again with its messages, and what was typed).
// The runners registration token's reset is runners.ts'.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { MAX_INTEGER } from '../../db/values.js'
import { VISIBILITIES } from '../../policies/access-levels.js'
import {
  IMPORT_SOURCES, KEY_RESTRICTION_VALUES, domainListItems, getApplicationSettings, updateApplicationSettings, type ApplicationSettings,
} from '../../services/settings.js'
import { csrfField, errorExplanation, html, type SafeHtml } from '../html.js'
import { WEB, formListOf, formOf, redirect, refusalOf, tokenOf, type SignedInVisit } from '../visit.js'
import { adminPage, checked, forAdmin } from './layout.js'

type SettingName = keyof ApplicationSettings
type Choice = readonly [value: string | number | null, label: string]

/** One input of the form, by the kind of value the setting holds. */
type Field = { name: SettingName; label: string } & (
  | { kind: 'flag' }
  /** Blank is null (no value), but for settings that hold text always. */
  | { kind: 'text' | 'textarea'; blankIsNull: boolean }
  | { kind: 'number'; min: number; max?: number }
  | { kind: 'select'; choices: readonly Choice[] }
  /** A list of some of `choices` (checkboxes). */
  | { kind: 'some'; choices: readonly Choice[] }
  /** A list of domains, one a line. */
  | { kind: 'domains' }
)

const flag = (name: SettingName, label: string): Field => ({ name, label, kind: 'flag' })
const text = (name: SettingName, label: string, blankIsNull = true): Field => ({ name, label, kind: 'text', blankIsNull })
const textarea = (name: SettingName, label: string): Field => ({ name, label, kind: 'textarea', blankIsNull: true })
const number = (name: SettingName, label: string, min = 0, max = MAX_INTEGER): Field => ({ name, label, kind: 'number', min, max })
const VISIBILITY_CHOICES: readonly Choice[] = VISIBILITIES.map((v) => [v, v.charAt(0).toUpperCase() + v.slice(1)])
const visibility = (name: SettingName, label: string): Field => ({ name, label, kind: 'select', choices: VISIBILITY_CHOICES })
const keyRestriction = (name: keyof typeof KEY_RESTRICTION_VALUES, label: string): Field => ({
  name, label, kind: 'select',
  choices: KEY_RESTRICTION_VALUES[name].map((bits) => [bits, bits === 0 ? 'Any size' : bits === -1 ? 'Forbidden' : `At least ${bits} bits`]),
})
const throttle = (kind: 'unauthenticated' | 'authenticated_api' | 'authenticated_web', label: string): Field[] => [
  flag(`throttle_${kind}_enabled`, `Throttle ${label}`),
  number(`throttle_${kind}_requests_per_period`, `${label}: requests per period`, 1),
  number(`throttle_${kind}_period_in_seconds`, `${label}: period in seconds`, 1),
]

const FIELDSETS: readonly { legend: string; fields: readonly Field[] }[] = [
  {
    legend: 'Sign-up and sign-in',
    fields: [
      flag('signup_enabled', 'Sign-up enabled'),
      flag('password_authentication_enabled_for_web', 'Password sign-in on the web'),
      flag('password_authentication_enabled_for_git', 'Passwords for git over HTTP(S)'),
      { name: 'domain_whitelist', label: 'Sign-up only from these email domains (one a line; none for any)', kind: 'domains' },
      flag('domain_blacklist_enabled', 'Refuse sign-up from the domains below'),
      { name: 'domain_blacklist', label: 'Refused email domains (one a line; * wildcards)', kind: 'domains' },
      flag('enforce_terms', 'Everyone must accept the terms of service'),
      textarea('terms', 'Terms of service'),
      number('session_expire_delay', 'Session duration (minutes)'),
      text('home_page_url', 'Home page URL (where anonymous visitors of / go)'),
      text('after_sign_out_path', 'After sign-out path'),
      textarea('sign_in_text', 'Sign-in text'),
      textarea('after_sign_up_text', 'After sign-up text'),
      textarea('help_page_text', 'Help page text'),
      text('help_page_support_url', 'Support page URL'),
      flag('help_page_hide_commercial_content', 'Hide the "about Ingot" block of the help page'),
    ],
  },
  {
    legend: 'Visibility and access',
    fields: [
      visibility('default_project_visibility', 'Default project visibility'),
      visibility('default_group_visibility', 'Default group visibility'),
      visibility('default_snippet_visibility', 'Default snippet visibility'),
      { name: 'restricted_visibility_levels', label: 'Visibilities only administrators may choose', kind: 'some', choices: VISIBILITY_CHOICES },
      { name: 'default_branch_protection', label: 'Default branch protection', kind: 'select', choices: [[0, 'Not protected'], [1, 'Developers and Maintainers may push'], [2, 'Maintainers only']] },
      { name: 'enabled_git_access_protocol', label: 'Git access', kind: 'select', choices: [[null, 'SSH and HTTP(S)'], ['ssh', 'SSH only'], ['http', 'HTTP(S) only']] },
      keyRestriction('rsa_key_restriction', 'RSA SSH keys'),
      keyRestriction('dsa_key_restriction', 'DSA SSH keys'),
      keyRestriction('ecdsa_key_restriction', 'ECDSA SSH keys'),
      keyRestriction('ed25519_key_restriction', 'ED25519 SSH keys'),
      flag('user_oauth_applications', 'Users may register OAuth applications'),
      number('oauth_access_token_expires_in', 'OAuth access tokens expire after (seconds; 0 never)'),
      flag('allow_local_requests_from_hooks_and_services', 'Web hooks and services may reach the local network'),
    ],
  },
  {
    legend: 'Account limits',
    fields: [
      number('default_projects_limit', 'Default projects limit'),
      number('max_attachment_size', 'Maximum attachment size (MB)', 1),
      number('receive_max_input_size', 'Maximum push size (MB; 0 for any)', 0, 1024 * 1024),
      flag('user_show_add_ssh_key_message', 'Remind users without an SSH key to add one'),
    ],
  },
  {
    legend: 'CI/CD',
    fields: [
      text('default_artifacts_expire_in', 'Default artifacts expiration (e.g. 30 days; 0 for never)', false),
      number('max_artifacts_size', 'Maximum artifacts size (MB)', 1),
      flag('auto_devops_enabled', 'Auto DevOps pipeline by default'),
    ],
  },
  {
    legend: 'Import and export',
    fields: [
      { name: 'import_sources', label: 'Import sources', kind: 'some', choices: IMPORT_SOURCES.map((source) => [source, source]) },
      flag('project_export_enabled', 'Project export enabled'),
      number('max_import_size', 'Maximum import size (MB; 0 for any)'),
    ],
  },
  {
    legend: 'Throttles',
    fields: [
      ...throttle('unauthenticated', 'Requests without a user (per address)'),
      ...throttle('authenticated_api', 'API requests with a user'),
      ...throttle('authenticated_web', 'Web requests with a user'),
    ],
  },
]

/** What the form shows: the text of each input, ticks as booleans, lists of ticked values. */
type FormValues = Record<string, string | boolean | string[]>

const choiceValue = (value: Choice[0]) => (value === null ? '' : String(value))

function formValuesOf(settings: ApplicationSettings): FormValues {
  const values: FormValues = {}
  for (const field of FIELDSETS.flatMap((set) => set.fields)) {
    const value = settings[field.name]
    switch (field.kind) {
      case 'flag': values[field.name] = value === true; break
      case 'some': values[field.name] = (value as readonly string[]).map(String); break
      case 'domains': values[field.name] = ((value ?? []) as readonly string[]).join('\n'); break
      default: values[field.name] = value === null ? '' : String(value)
    }
  }
  return values
}

/** What the form sent; an input it left out keeps its current value (but checkboxes, which browsers leave out unticked). */
function sentFormValues(req: FastifyRequest, current: FormValues): FormValues {
  const form = formOf(req, 'application_setting')
  const values: FormValues = {}
  for (const field of FIELDSETS.flatMap((set) => set.fields)) {
    const sent = form[field.name]
    values[field.name] = field.kind === 'flag' ? sent === '1'
      : field.kind === 'some' ? formListOf(req, 'application_setting', field.name)
      : sent === undefined ? current[field.name]! : sent.trim()
  }
  return values
}

/** The changes the form asks for, or the messages of the values that are not even of their kind. */
function changesOf(values: FormValues): { changes: Partial<ApplicationSettings>; errors: string[] } {
  const changes: Record<string, unknown> = {}
  const errors: string[] = []
  for (const field of FIELDSETS.flatMap((set) => set.fields)) {
    const value = values[field.name]
    switch (field.kind) {
      case 'flag': changes[field.name] = value === true; break
      case 'text': case 'textarea': changes[field.name] = value === '' && field.blankIsNull ? null : value; break
      case 'domains': changes[field.name] = domainListItems([String(value)]); break
      case 'number': {
        const n = /^\d{1,16}$/.test(String(value)) ? Number(value) : NaN
        if (Number.isInteger(n) && n >= field.min && n <= (field.max ?? MAX_INTEGER)) changes[field.name] = n
        else errors.push(`${field.label} must be a whole number from ${field.min} to ${field.max ?? MAX_INTEGER}`)
        break
      }
      case 'select': {
        const choice = field.choices.find(([option]) => choiceValue(option) === value)
        if (choice === undefined) errors.push(`${field.label} is not included in the list`)
        else changes[field.name] = choice[0]
        break
      }
      case 'some': {
        const ticked = value as string[]
        changes[field.name] = field.choices.filter(([option]) => ticked.includes(choiceValue(option))).map(([option]) => option)
        break
      }
    }
  }
  return { changes: changes as Partial<ApplicationSettings>, errors }
}

function input(field: Field, values: FormValues): SafeHtml {
  const id = `application_setting_${field.name}`
  const name = `application_setting[${field.name}]`
  const value = values[field.name]
  switch (field.kind) {
    case 'flag': return html`<label class="checkbox"><input type="checkbox" name="${name}" value="1"${checked(value === true)}> ${field.label}</label>`
    case 'text': return html`<label for="${id}">${field.label}</label><input type="text" id="${id}" name="${name}" value="${String(value)}">`
    case 'textarea': case 'domains': return html`<label for="${id}">${field.label}</label><textarea id="${id}" name="${name}" rows="3">${String(value)}</textarea>`
    case 'number': return html`<label for="${id}">${field.label}</label><input type="number" id="${id}" name="${name}" value="${String(value)}" min="${field.min}" max="${field.max ?? MAX_INTEGER}" required>`
    case 'select': return html`<label for="${id}">${field.label}</label><select id="${id}" name="${name}">${field.choices.map(([option, label]) => html`<option value="${choiceValue(option)}"${choiceValue(option) === value ? html` selected` : ''}>${label}</option>`)}</select>`
    case 'some': return html`<fieldset><legend>${field.label}</legend>${field.choices.map(([option, label]) => html`<label class="checkbox"><input type="checkbox" name="${name}[]" value="${choiceValue(option)}"${checked((value as string[]).includes(choiceValue(option)))}> ${label}</label>`)}</fieldset>`
  }
}

function settingsPage(reply: FastifyReply, visit: SignedInVisit, values: FormValues, errors: readonly string[], status: number): FastifyReply {
  return adminPage(reply, visit, 'Settings', '/admin/application_settings', html`<h1>Settings</h1>
${errorExplanation(errors)}
<form class="issuable-form" method="post" action="/admin/application_settings">${csrfField(tokenOf(visit))}
${FIELDSETS.map((set) => html`<fieldset><legend>${set.legend}</legend>${set.fields.map((field) => input(field, values))}</fieldset>`)}
<button type="submit">Save changes</button></form>`, { status })
}

const settingsPages: FastifyPluginAsync = async (app) => {
  app.get('/admin/application_settings', WEB, forAdmin(async (req, reply, visit) => settingsPage(reply, visit, formValuesOf(await getApplicationSettings(req.ingot.db)), [], 200)))

  app.post('/admin/application_settings', WEB, forAdmin(async (req, reply, visit) => {
    const values = sentFormValues(req, formValuesOf(await getApplicationSettings(req.ingot.db)))
    const { changes, errors } = changesOf(values)
    if (errors.length > 0) return settingsPage(reply, visit, values, errors, 422)
    try {
      await updateApplicationSettings(req.ingot.db, changes)
    } catch (err) {
      return settingsPage(reply, visit, values, refusalOf(err), 422)
    }
    return redirect(reply, visit, '/admin/application_settings')
  }))
}

export default settingsPages
