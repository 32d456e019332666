// The signed-in user's own credential pages, as markup from data: personal access tokens, the
// password, SSH keys. Routes (profile.ts) decide; these present.
import type { AccessTokenRow, SshKeyRow, UserRow } from '../db/schema.js'
import { isoDateOf, parseJsonArray } from '../db/values.js'
import { csrfField, errorExplanation, html, page, type SafeHtml } from './html.js'
import { methodField } from './visit.js'

export const TOKENS_PATH = '/profile/personal_access_tokens'
export const PASSWORD_PATH = '/profile/password'
export const KEYS_PATH = '/profile/keys'

/** What every page of a signed-in user is given. */
export interface SignedInPage {
  user: UserRow
  csrfToken: string
  notice?: string | null
}

/** A day as the pages show it; "Never" for none. */
export function dateOf(ms: number | null): SafeHtml {
  return ms === null ? html`Never` : html`<time datetime="${new Date(ms).toISOString()}">${isoDateOf(ms)}</time>`
}

/** One checkbox per scope, named `<form>[scopes][]`, the checked ones ticked. */
export function scopeCheckboxes(form: string, scopes: readonly string[], checked: readonly string[]): SafeHtml {
  return html`<fieldset><legend>Scopes</legend>${scopes.map((scope) => html`
<label><input type="checkbox" name="${form}[scopes][]" value="${scope}" id="${form}_scopes_${scope}"${checked.includes(scope) ? html` checked` : ''}> ${scope}</label>`)}
</fieldset>`
}

/** A button that sends a one-field form (CSRF token and _method) to a path. */
export function actionButton(path: string, method: 'PUT' | 'DELETE', label: string, csrfToken: string): SafeHtml {
  return html`<form method="post" action="${path}">${csrfField(csrfToken)}${methodField(method)}<button type="submit">${label}</button></form>`
}

export interface TokensPageInput extends SignedInPage {
  /** The scopes the user may give a token (sudo for administrators only). */
  scopes: readonly string[]
  tokens: readonly AccessTokenRow[]
  /** A token just made: its value is shown this once. */
  createdToken?: string
  errors?: readonly string[]
  values?: { name: string; expiresAt: string; scopes: readonly string[] }
}

export function personalAccessTokensPage(input: TokensPageInput): string {
  const values = input.values ?? { name: '', expiresAt: '', scopes: [] }
  return page({ title: 'Personal Access Tokens', csrfToken: input.csrfToken, notice: input.notice, user: input.user }, html`
<h1>Personal Access Tokens</h1>
${input.createdToken === undefined ? '' : html`<div class="created-personal-access-token-container">
<label for="created-personal-access-token">Your New Personal Access Token</label>
<input type="text" id="created-personal-access-token" value="${input.createdToken}" readonly>
<p>Make sure you save it — you won't be able to access it again.</p>
</div>`}
<h2>Add a personal access token</h2>
${errorExplanation(input.errors ?? [])}
<form method="post" action="${TOKENS_PATH}" id="new_personal_access_token">
${csrfField(input.csrfToken)}
<label for="personal_access_token_name">Name</label>
<input type="text" name="personal_access_token[name]" id="personal_access_token_name" value="${values.name}" required>
<label for="personal_access_token_expires_at">Expires at</label>
<input type="date" name="personal_access_token[expires_at]" id="personal_access_token_expires_at" value="${values.expiresAt}">
${scopeCheckboxes('personal_access_token', input.scopes, values.scopes)}
<button type="submit">Create personal access token</button>
</form>
<section>
<h2>Active Personal Access Tokens (${input.tokens.length})</h2>
${input.tokens.length === 0 ? html`<p>This user has no active Personal Access Tokens.</p>` : html`<table class="active-tokens">
<thead><tr><th>Name</th><th>Scopes</th><th>Created</th><th>Last used</th><th>Expires</th><th></th></tr></thead>
<tbody>${input.tokens.map((token) => html`
<tr id="personal-access-token-${token.id}"><td>${token.name}</td><td>${parseJsonArray(token.scopes).join(', ')}</td><td>${dateOf(token.created_at)}</td><td>${dateOf(token.last_used_at)}</td><td>${dateOf(token.expires_at)}</td>
<td>${actionButton(`${TOKENS_PATH}/${token.id}/revoke`, 'PUT', 'Revoke', input.csrfToken)}</td></tr>`)}
</tbody></table>`}
</section>`)
}

export interface PasswordPageInput extends SignedInPage {
  errors?: readonly string[]
}

export function passwordPage(input: PasswordPageInput): string {
  return page({ title: 'Password', csrfToken: input.csrfToken, notice: input.notice, user: input.user }, html`
<h1>Password</h1>
<p>After a successful password update, your other sessions end; this one stays signed in.</p>
${errorExplanation(input.errors ?? [])}
<form method="post" action="${PASSWORD_PATH}" id="edit_user">
${csrfField(input.csrfToken)}${methodField('PUT')}
<label for="user_current_password">Current password</label>
<input type="password" name="user[current_password]" id="user_current_password" autocomplete="current-password" required>
<label for="user_password">New password</label>
<input type="password" name="user[password]" id="user_password" autocomplete="new-password" required>
<label for="user_password_confirmation">Password confirmation</label>
<input type="password" name="user[password_confirmation]" id="user_password_confirmation" autocomplete="new-password" required>
<button type="submit">Save password</button>
</form>`)
}

export interface KeysPageInput extends SignedInPage {
  keys: readonly SshKeyRow[]
  errors?: readonly string[]
  values?: { key: string; title: string }
}

export function sshKeysPage(input: KeysPageInput): string {
  const values = input.values ?? { key: '', title: '' }
  return page({ title: 'SSH Keys', csrfToken: input.csrfToken, notice: input.notice, user: input.user }, html`
<h1>SSH Keys</h1>
<h2>Add an SSH key</h2>
${errorExplanation(input.errors ?? [])}
<form method="post" action="${KEYS_PATH}" id="new_key">
${csrfField(input.csrfToken)}
<label for="key_key">Key</label>
<textarea name="key[key]" id="key_key" rows="6" placeholder="Typically starts with &quot;ssh-rsa …&quot;" required>${values.key}</textarea>
<label for="key_title">Title</label>
<input type="text" name="key[title]" id="key_title" value="${values.title}" required>
<button type="submit">Add key</button>
</form>
<section>
<h2>Your SSH keys (${input.keys.length})</h2>
${input.keys.length === 0 ? html`<p>There are no SSH keys with access to your account.</p>` : html`<table class="ssh-keys">
<thead><tr><th>Title</th><th>Fingerprint</th><th>Created</th><th></th></tr></thead>
<tbody>${input.keys.map((key) => html`
<tr id="key-${key.id}"><td>${key.title}</td><td><code>${key.fingerprint}</code></td><td>${dateOf(key.created_at)}</td>
<td>${actionButton(`${KEYS_PATH}/${key.id}`, 'DELETE', 'Remove', input.csrfToken)}</td></tr>`)}
</tbody></table>`}
</section>`)
}
