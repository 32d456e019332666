// What the OAuth application pages' tests share: the form's fields, and the values the pages show.

/** The value of the readonly input with this id. */
export function shownValue(text: string, id: string): string | undefined {
  return new RegExp(`id="${id}" value="([^"]+)"`).exec(text)?.[1]
}

export function applicationFields(name: string, redirectUri: string, scopes: readonly string[], extra: [string, string][] = []): [string, string][] {
  return [
    ['doorkeeper_application[name]', name], ['doorkeeper_application[redirect_uri]', redirectUri],
    ...scopes.map((scope): [string, string] => ['doorkeeper_application[scopes][]', scope]), ...extra,
  ]
}
