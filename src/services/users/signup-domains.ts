// The sign-up domain rules (the original's User#signup_domain_valid?): an address on a blacklisted
// domain is refused when the blacklist is enabled, and one outside a non-empty whitelist is refused;
// a whitelisted domain is accepted even when it is also blacklisted. `*` in a rule matches any run
// of characters (`*.example.com` matches `a.b.example.com`, not `example.com`); case is ignored.
// Only visitors signing themselves up are bound by them, never administrators creating users.
import type { ApplicationSettings } from '../settings.js'
import { matchesWildcard } from '../../wildcard.js'

export function signupDomainErrors(settings: ApplicationSettings, email: string): string[] {
  const domain = email.slice(email.lastIndexOf('@') + 1)
  let error: string | null = null
  if (settings.domain_blacklist_enabled && domainMatches(settings.domain_blacklist, domain)) {
    error = 'is not from an allowed domain.'
  }
  const whitelist = settings.domain_whitelist ?? []
  if (whitelist.length > 0) error = domainMatches(whitelist, domain) ? null : 'domain is not authorized for sign-up'
  return error === null ? [] : [error]
}

function domainMatches(rules: readonly string[], domain: string): boolean {
  return rules.some((rule) => matchesWildcard(rule, domain, { ignoreCase: true }))
}
