// Server-rendered HTML without a framework: the `html` template escapes every value it is given
// unless the value is itself markup made by `html`, so text from users and settings can never
// become markup. Free texts (sign-in text, help text, terms) are shown as text: paragraphs and
// line breaks kept, nothing else interpreted.
import { assetUrl } from './assets.js'

export class SafeHtml {
  constructor(readonly markup: string) {}
  toString(): string {
    return this.markup
  }
}

type Fragment = SafeHtml | string | number | null | undefined | false | readonly Fragment[]

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

const NEEDS_ESCAPE = /[&<>"']/

export function escapeHtml(text: string): string {
  // Most values hold nothing to escape: testing first spares a replace per value on long pages.
  return NEEDS_ESCAPE.test(text) ? text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c) : text
}

function render(value: Fragment): string {
  if (value instanceof SafeHtml) return value.markup
  if (Array.isArray(value)) return value.map(render).join('')
  if (value === null || value === undefined || value === false) return ''
  return escapeHtml(String(value))
}

export function html(strings: TemplateStringsArray, ...values: Fragment[]): SafeHtml {
  let markup = strings[0] ?? ''
  values.forEach((value, i) => { markup += render(value) + (strings[i + 1] ?? '') })
  return new SafeHtml(markup)
}

/** A free text as escaped paragraphs (blank lines) with line breaks. */
export function textBlock(text: string): SafeHtml {
  const paragraphs = text.replace(/\r\n?/g, '\n').split(/\n\s*\n/).map((p) => p.trim()).filter((p) => p !== '')
  return html`${paragraphs.map((p) => html`<p>${p.split('\n').map((line, i) => html`${i > 0 ? html`<br>` : ''}${line}`)}</p>`)}`
}

export interface PageOptions {
  title: string
  /** The CSRF token scripts send as X-CSRF-Token (the original's csrf-token meta tag); set for signed-in pages. */
  csrfToken?: string
  alert?: string | null
  notice?: string | null
  /**
   * The visitor, to whom the header offers their own pages (and the admin's, to administrators);
   * null for an anonymous visitor, who is offered to sign in; left out on the pages of signing in.
   */
  user?: { username: string; admin: number } | null
  /** Pages of code and lists take the window's width; forms keep a readable measure. */
  wide?: boolean
  /** Scripts of web/assets/ the page loads (deferred); every page works without them. */
  scripts?: readonly string[]
  /** Without scripts, reload the page this often (a running job's log); the scripts update it in place instead. */
  refreshWithoutScriptSeconds?: number
}

/** The stylesheets of every page: the layout's, rendered Markdown's and highlighted code's. */
const STYLESHEETS = ['ingot.css', 'markdown.css', 'highlight.css']

/**
 * The shared layout of every page: its styles come from the stylesheets (no inline style: the CSP
 * forbids it). While an administrator impersonates, visit.ts sendPage puts the banner right after `<body>`.
 */
export function page(options: PageOptions, body: SafeHtml): string {
  return html`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${options.csrfToken === undefined ? '' : html`<meta name="csrf-param" content="authenticity_token">
<meta name="csrf-token" content="${options.csrfToken}">
`}<title>${options.title} · Ingot</title>
${STYLESHEETS.map((name) => html`<link rel="stylesheet" href="${assetUrl(name)}">
`)}${(options.scripts ?? []).map((name) => html`<script src="${assetUrl(name)}" defer></script>
`)}${options.refreshWithoutScriptSeconds === undefined ? '' : html`<noscript><meta http-equiv="refresh" content="${options.refreshWithoutScriptSeconds}"></noscript>
`}</head>
<body>
<a class="skip-link" href="#content">Skip to content</a>
<header class="site-header"><div>
<a class="site-name" href="/">Ingot</a>
${navigation(options.user)}
</div></header>
<main id="content"${options.wide === true ? '' : html` class="narrow"`}>
${options.alert ? html`<div class="alert" role="alert">${options.alert}</div>` : ''}${options.notice ? html`<div class="notice">${options.notice}</div>` : ''}
${body}
</main>
</body>
</html>
`.markup
}

/** The header's links: a signed-in visitor's dashboard (and the admin's area, to administrators); explore and signing in for anyone else. */
function navigation(user: PageOptions['user']): SafeHtml {
  if (user === undefined) return html`<nav class="site-nav" aria-label="Main"><ul><li><a href="/explore/projects">Explore</a></li><li><a href="/help">Help</a></li></ul></nav>`
  if (user === null) {
    return html`<nav class="site-nav" aria-label="Main"><ul><li><a href="/explore/projects">Explore</a></li><li><a href="/help">Help</a></li><li><a href="/users/sign_in">Sign in</a></li></ul></nav>`
  }
  return html`<nav class="site-nav" aria-label="Main"><ul>
<li><a href="/dashboard/projects">Projects</a></li><li><a href="/dashboard/groups">Groups</a></li><li><a href="/dashboard/activity">Activity</a></li><li><a href="/dashboard/issues">Issues</a></li><li><a href="/dashboard/merge_requests">Merge requests</a></li><li><a href="/explore/projects">Explore</a></li>${user.admin === 1 ? html`<li><a href="/admin">Admin</a></li>` : ''}<li><a href="/help">Help</a></li><li class="user"><a href="/${user.username}">@${user.username}</a></li>
</ul>
<ul class="sub" aria-label="Profile"><li>Profile:</li><li><a href="/profile/personal_access_tokens">Access tokens</a></li><li><a href="/profile/password/edit">Password</a></li><li><a href="/profile/keys">SSH keys</a></li><li><a href="/profile/applications">Applications</a></li></ul></nav>`
}

/** A refused form's problems as full sentences ("Name can't be blank"), above the form. */
export function errorExplanation(messages: readonly string[]): SafeHtml {
  return messages.length === 0 ? html`` : html`<div class="alert" id="error_explanation"><ul>${messages.map((m) => html`<li>${m}</li>`)}</ul></div>`
}

/** The hidden field that carries a form's CSRF token. */
export function csrfField(token: string): SafeHtml {
  return html`<input type="hidden" name="authenticity_token" value="${token}">`
}
