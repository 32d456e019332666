// Server-rendered HTML without a framework: the `html` template escapes every value it is given
// unless the value is itself markup made by `html`, so text from users and settings can never
// become markup. Free texts (sign-in text, help text, terms) are shown as text: paragraphs and
// line breaks kept, nothing else interpreted.

export class SafeHtml {
  constructor(readonly markup: string) {}
  toString(): string {
    return this.markup
  }
}

type Fragment = SafeHtml | string | number | null | undefined | false | readonly Fragment[]

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c)
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
  /** The signed-in visitor, who is shown the navigation of their own pages (and the admin's, to administrators). */
  user?: { username: string; admin: number } | null
}

/** The shared layout of every page. */
export function page(options: PageOptions, body: SafeHtml): string {
  return html`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${options.csrfToken === undefined ? '' : html`<meta name="csrf-param" content="authenticity_token">
<meta name="csrf-token" content="${options.csrfToken}">
`}<title>${options.title} · Ingot</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;line-height:1.5}
label{display:block;margin-top:.75rem}input[type=text],input[type=email],input[type=password]{width:100%;padding:.4rem;box-sizing:border-box}
button{margin-top:1rem;padding:.4rem 1rem}.alert{background:#fdecea;padding:.5rem 1rem}.notice{background:#e8f4fd;padding:.5rem 1rem}
section{border-top:1px solid #ddd;margin-top:1.5rem}nav{margin-top:.5rem;font-size:.9rem}
textarea{width:100%;box-sizing:border-box}table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.25rem .5rem .25rem 0}
td form,td button{display:inline;margin:0}</style>
</head>
<body>
<header><a href="/">Ingot</a> · <a href="/help">Help</a>${options.user ? navigation(options.user) : ''}</header>
<main>
${options.alert ? html`<div class="alert" role="alert">${options.alert}</div>` : ''}${options.notice ? html`<div class="notice">${options.notice}</div>` : ''}
${body}
</main>
</body>
</html>
`.markup
}

/** Links to the signed-in visitor's own pages, and to the administrator's. */
function navigation(user: { username: string; admin: number }): SafeHtml {
  return html`
<nav>@${user.username} · Profile › <a href="/profile/personal_access_tokens">Access tokens</a> · <a href="/profile/password/edit">Password</a> · <a href="/profile/keys">SSH keys</a> · <a href="/profile/applications">Applications</a>${user.admin === 1 ? html`
· Admin › <a href="/admin/applications">Applications</a>` : ''}</nav>`
}

/** A refused form's problems as full sentences ("Name can't be blank"), above the form. */
export function errorExplanation(messages: readonly string[]): SafeHtml {
  return messages.length === 0 ? html`` : html`<div class="alert" id="error_explanation"><ul>${messages.map((m) => html`<li>${m}</li>`)}</ul></div>`
}

/** The hidden field that carries a form's CSRF token. */
export function csrfField(token: string): SafeHtml {
  return html`<input type="hidden" name="authenticity_token" value="${token}">`
}
