// The pages of the web front door, as markup from data: routes (index.ts) decide, these present.
import type { UserRow } from '../db/schema.js'
import type { ApplicationSettings } from '../services/settings.js'
import { csrfField, errorExplanation, html, page, textBlock, type SafeHtml } from './html.js'

export const SIGN_IN_PATH = '/users/sign_in'
export const TERMS_PATH = '/-/users/terms'

/** What a sign-up form showed when it was refused, to show again (never the password). */
export interface SignUpValues {
  name: string
  username: string
  email: string
}

export interface SignInPageInput {
  settings: ApplicationSettings
  csrfToken: string
  alert?: string | null
  login?: string
  signUpValues?: SignUpValues
  /** Full messages of a refused sign-up ("Email domain is not authorized for sign-up"). */
  signUpErrors?: readonly string[]
}

/** The sign-in page, with the sign-up form while sign-up is allowed (the original's allow_signup?). */
export function signInPage(input: SignInPageInput): string {
  const { settings } = input
  const passwordSignIn = settings.password_authentication_enabled_for_web
  const signUp = settings.signup_enabled && passwordSignIn
  const values = input.signUpValues ?? { name: '', username: '', email: '' }
  return page({ title: 'Sign in', alert: input.alert }, html`
<h1>Sign in</h1>
${settings.sign_in_text ? html`<div class="sign-in-text">${textBlock(settings.sign_in_text)}</div>` : ''}
${passwordSignIn ? html`<form method="post" action="${SIGN_IN_PATH}" id="new_user">
${csrfField(input.csrfToken)}
<label for="user_login">Username or email</label>
<input type="text" name="user[login]" id="user_login" value="${input.login ?? ''}" autocomplete="username" required autofocus>
<label for="user_password">Password</label>
<input type="password" name="user[password]" id="user_password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>` : html`<p>Signing in with a password is disabled on this instance.</p>`}
${signUp ? html`<section id="register-pane">
<h2>Register</h2>
${errorExplanation(input.signUpErrors ?? [])}
<form method="post" action="/users" id="new_new_user">
${csrfField(input.csrfToken)}
<label for="new_user_name">Full name</label>
<input type="text" name="new_user[name]" id="new_user_name" value="${values.name}" maxlength="128" required>
<label for="new_user_username">Username</label>
<input type="text" name="new_user[username]" id="new_user_username" value="${values.username}" required>
<label for="new_user_email">Email</label>
<input type="email" name="new_user[email]" id="new_user_email" value="${values.email}" required>
<label for="new_user_password">Password</label>
<input type="password" name="new_user[password]" id="new_user_password" minlength="8" autocomplete="new-password" required>
${settings.enforce_terms ? html`<label><input type="checkbox" name="terms_opt_in" value="true" id="terms_opt_in" required>
I accept the <a href="${TERMS_PATH}" target="_blank">Terms of Service and Privacy Policy</a></label>` : ''}
<button type="submit">Register</button>
</form>
</section>` : ''}`)
}

/** After a sign-up: the administrator's after_sign_up_text, and the way in. */
export function welcomePage(user: UserRow, settings: ApplicationSettings, csrfToken: string): string {
  return page({ title: 'Welcome', csrfToken, notice: 'Welcome! You have signed up successfully.' }, html`
<h1>Welcome, ${user.name}</h1>
${settings.after_sign_up_text ? html`<div class="after-sign-up-text">${textBlock(settings.after_sign_up_text)}</div>` : ''}
<p><a href="/">Continue</a></p>`)
}

function signOutForm(csrfToken: string): SafeHtml {
  return html`<form method="post" action="/users/sign_out">${csrfField(csrfToken)}<button type="submit">Sign out</button></form>`
}

export interface TermsPageInput {
  terms: string
  /** The signed-in visitor, who may accept; null for anyone else, who only reads. */
  user: UserRow | null
  csrfToken: string
}

export function termsPage(input: TermsPageInput): string {
  const { user } = input
  const answer = user === null ? ''
    : user.terms_accepted_at !== null ? html`<p>You have accepted the Terms of Service. <a href="/">Continue</a></p>`
    : html`<form method="post" action="${TERMS_PATH}/accept">${csrfField(input.csrfToken)}<button type="submit">Accept terms</button></form>
${signOutForm(input.csrfToken)}`
  return page({ title: 'Terms of Service', ...(user === null ? {} : { csrfToken: input.csrfToken }) }, html`
<h1>Terms of Service</h1>
<div class="terms">${textBlock(input.terms)}</div>
${answer}`)
}

export interface HelpPageInput {
  settings: ApplicationSettings
  /** The version is shown to signed-in visitors only, as the original does. */
  signedIn: boolean
  version: string
  revision: string
}

/**
 * The help page: the administrator's help_page_text; the "about Ingot" block with its version
 * (what help_page_hide_commercial_content hides, as it hides the original's product block); the
 * support link when help_page_support_url is set.
 */
export function helpPage(input: HelpPageInput): string {
  const { settings } = input
  const supportUrl = webUrl(settings.help_page_support_url)
  return page({ title: 'Help' }, html`
<h1>Help</h1>
${settings.help_page_text ? html`<div class="help-page-text">${textBlock(settings.help_page_text)}</div><hr>` : ''}
${settings.help_page_hide_commercial_content ? '' : html`<section class="about">
<h2>Ingot${input.signedIn ? html` <span class="version">${input.version}</span> <small>${input.revision}</small>` : ''}</h2>
<p>Ingot is open source software to collaborate on code: git repositories with fine-grained access control, merge requests for code review, and an issue tracker for each project, all behind the v4 REST API.</p>
</section>`}
${supportUrl === null ? '' : html`<section class="quick-help">
<h2>Quick help</h2>
<ul><li><a href="${supportUrl}" id="support-url" rel="noopener noreferrer">See our website for getting help</a></li></ul>
</section>`}`)
}

/**
 * An administrator's URL setting as a link or redirect target: absolute http(s) URLs and paths on
 * this site only (never `javascript:` and the like); null for anything else, or blank.
 */
export function webUrl(value: string | null): string | null {
  if (value === null || value.trim() === '') return null
  try {
    const url = new URL(value.trim(), 'http://ingot.invalid')
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null
    return url.origin === 'http://ingot.invalid' ? `${url.pathname}${url.search}${url.hash}` : url.href
  } catch {
    return null
  }
}

/** The answer to a form sent without a valid CSRF token (Rails' 422 page). */
export function rejectedPage(): string {
  return page({ title: 'The change you requested was rejected (422)' }, html`
<h1>The change you requested was rejected.</h1>
<p>The form has expired or did not come from this site. Go back, reload the page and try again.</p>`)
}

export function notFoundPage(): string {
  return page({ title: 'Not Found' }, html`<h1>404</h1><p>The page could not be found.</p>`)
}
