// The pages of the OAuth authorization endpoint, as markup from data: the consent page (the
// original's doorkeeper/authorizations/new) and the error page shown for a request that cannot be
// answered with a redirect (an unknown client, an unregistered redirect URI and the like).
import type { UserRow } from '../db/schema.js'
import { OAUTH_ERROR_DESCRIPTIONS, type OauthErrorCode } from '../common/errors.js'
import type { AuthorizationRequest } from '../services/oauth/authorization.js'
import { csrfField, html, page, type SafeHtml } from './html.js'
import { methodField } from './visit.js'

export const AUTHORIZE_PATH = '/oauth/authorize'

/** The original's descriptions of each scope (its doorkeeper locale). */
const SCOPE_DESCRIPTIONS: Readonly<Record<string, string>> = {
  api: "Access the authenticated user's API",
  read_user: "Read the authenticated user's personal information",
  read_repository: 'Allows read-only access to the repository',
  sudo: 'Perform API actions as any user in the system',
  openid: 'Authenticate using OpenID Connect',
}

export interface AuthorizePageInput {
  request: AuthorizationRequest
  /** Who registered the application; null for an administrator's. */
  owner: UserRow | null
  /** The signed-in user who is asked: the layout names them, so they see which account they give. */
  user: UserRow
  csrfToken: string
}

export function authorizePage(input: AuthorizePageInput): string {
  const { request, owner } = input
  const { application } = request
  return page({ title: 'Authorize application', csrfToken: input.csrfToken, user: input.user }, html`
<h1>Authorize <strong>${application.name}</strong> to use your account?</h1>
<p>An application called <strong>${application.name}</strong> is requesting access to your Ingot account.
${owner === null ? '' : html`This application was created by <a href="/${owner.username}">${owner.name}</a>.`}
Please note that this application is not provided by Ingot and you should verify its authenticity before allowing access.</p>
<p>This application will be able to:</p>
<ul class="scopes">${request.scopes.map((scope) => html`<li><strong>${scope}</strong>: ${SCOPE_DESCRIPTIONS[scope] ?? scope}</li>`)}</ul>
<form method="post" action="${AUTHORIZE_PATH}" id="authorize">
${csrfField(input.csrfToken)}${requestFields(request)}
<button type="submit">Authorize</button>
</form>
<form method="post" action="${AUTHORIZE_PATH}" id="deny">
${csrfField(input.csrfToken)}${methodField('DELETE')}${requestFields(request)}
<button type="submit">Deny</button>
</form>`)
}

/** The request as hidden fields, which the answer checks again as it checked the page's. */
function requestFields(request: AuthorizationRequest): SafeHtml {
  const fields: Record<string, string | null> = {
    client_id: request.application.uid,
    redirect_uri: request.redirectUri,
    state: request.state,
    response_type: request.responseType,
    scope: request.scopes.join(' '),
    nonce: request.nonce,
  }
  return html`${Object.entries(fields).map(([name, value]) => value === null ? '' : html`
<input type="hidden" name="${name}" value="${value}">`)}`
}

/** Doorkeeper's error page: the error's text, and no way on to the client. */
export function authorizeErrorPage(error: OauthErrorCode): string {
  return page({ title: 'An error has occurred' }, html`
<h1>An error has occurred</h1>
<p class="oauth-error" data-error="${error}">${OAUTH_ERROR_DESCRIPTIONS[error]}</p>`)
}

