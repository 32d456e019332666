// ApiError and the catalog of every error body the API answers with, in the original's shapes:
//   404 {"message":"404 Project Not Found"}      400 {"error":"name is missing"}
//   403 {"message":"403 Forbidden - <reason>"}    400 {"message":{"email":["is invalid"]}}
// Throw them from anywhere; the error handler in app.ts writes them out.

export type ErrorBody = Record<string, unknown>

export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly body: ErrorBody,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof body.message === 'string' ? body.message : JSON.stringify(body))
  }
}

/** Field-keyed validation messages, as `{"message":{"path":["has already been taken"]}}`. */
export type FieldErrors = Record<string, string[]>

export const notFound = (thing?: string) =>
  new ApiError(404, { message: thing ? `404 ${thing} Not Found` : '404 Not Found' })

export const unauthorized = () => new ApiError(401, { message: '401 Unauthorized' })

export const forbidden = (reason?: string) =>
  new ApiError(403, { message: reason ? `403 Forbidden - ${reason}` : '403 Forbidden' })

export const badRequest = (message: string) => new ApiError(400, { message })

/** A 4xx whose message is shown as is, for the endpoints that answer plain sentences. */
export const apiError = (statusCode: number, message: string) => new ApiError(statusCode, { message })

export const conflict = (message: string) => new ApiError(409, { message })

/** The original's bad_request!(…) answer: 400 `400 (Bad request) "<what>" not given`. */
export const badRequestNotGiven = (what: string) => apiError(400, `400 (Bad request) "${what}" not given`)

export const notModified = () => new ApiError(304, {})

/** A ref or sha given as an expression that searches the history (`main^{/fix}`, `:/fix`, `main@{1}`). */
export const historySearchRefused = () =>
  apiError(400, '400 Bad request - A ref or sha may not be a revision expression that searches the history')

export const invalidParam = (...names: string[]) =>
  new ApiError(400, { error: names.map((n) => `${n} is invalid`).join(', ') })

/** At least one of the named parameters must be given (Grape's at_least_one_of). */
export const missingOneOf = (...names: string[]) =>
  new ApiError(400, { error: `${names.join(', ')} are missing, at least one parameter must be provided` })

/** Only some of parameters that go together were given (Grape's all_or_none_of). */
export const allOrNoneOf = (...names: string[]) =>
  new ApiError(400, { error: `${names.join(', ')} provide all or none of parameters` })

export const validationFailed = (errors: FieldErrors, statusCode = 400) => new ApiError(statusCode, { message: errors })

export const insufficientScope = (scopes: readonly string[]) =>
  new ApiError(403, {
    error: 'insufficient_scope',
    error_description: 'The request requires higher privileges than provided by the access token.',
    scope: scopes.join(' '),
  }, { 'www-authenticate': `Bearer realm="Protected by OAuth 2.0", error="insufficient_scope", scope="${scopes.join(' ')}"` })

/** An expired or revoked token: the OAuth "invalid_token" answer the original gives. */
export const invalidToken = (description: string) =>
  new ApiError(401, { error: 'invalid_token', error_description: description }, {
    'www-authenticate': `Bearer realm="Protected by OAuth 2.0", error="invalid_token", error_description="${description}"`,
  })

/** Doorkeeper's English texts (its en locale, as the original ships it) for each OAuth error code. */
export const OAUTH_ERROR_DESCRIPTIONS = {
  invalid_request: 'The request is missing a required parameter, includes an unsupported parameter value, or is otherwise malformed.',
  invalid_redirect_uri: 'The redirect uri included is not valid.',
  unauthorized_client: 'The client is not authorized to perform this request using this method.',
  access_denied: 'The resource owner or authorization server denied the request.',
  invalid_scope: 'The requested scope is invalid, unknown, or malformed.',
  server_error: 'The authorization server encountered an unexpected condition which prevented it from fulfilling the request.',
  unsupported_response_type: 'The authorization server does not support this response type.',
  invalid_client: 'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.',
  invalid_grant: 'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
  unsupported_grant_type: 'The authorization grant type is not supported by the authorization server.',
} as const

export type OauthErrorCode = keyof typeof OAUTH_ERROR_DESCRIPTIONS

/** An error of the OAuth endpoints as Doorkeeper 4.3.2 answers every one: 401, the code and its text, never cached. */
export const oauthError = (code: OauthErrorCode) => {
  const description = OAUTH_ERROR_DESCRIPTIONS[code]
  return new ApiError(401, { error: code, error_description: description }, {
    'cache-control': 'no-store',
    pragma: 'no-cache',
    'www-authenticate': `Bearer realm="Doorkeeper", error="${code}", error_description="${description}"`,
  })
}
