// Secret values kept out of a job's trace: every occurrence of a non-public variable's value (the
// job token, the repository URL with it, the CI/CD variables) is written as [MASKED], also when
// the job's output splits a value across writes (and so across appends to the server): the end of
// what was written that could begin a secret is held back until the next write shows whether it
// does. Values shorter than MIN_MASKED_LENGTH are not masked: short values are common substrings
// ("true", "main", a port) whose masking garbles logs, as newer GitLab refuses them as masked.
// Matching is on bytes, so a value is found whatever the output's encoding or where a chunk ends.

export const MIN_MASKED_LENGTH = 8
export const MASK = '[MASKED]'

export class SecretMasker {
  /** The values as byte strings ('latin1': one character per byte), longest first. */
  private readonly secrets: string[]
  /** Written, not yet passed on: it may be the start of a secret. */
  private held = ''

  constructor(values: readonly string[]) {
    const unique = new Set(values.filter((value) => Buffer.byteLength(value) >= MIN_MASKED_LENGTH).map((value) => Buffer.from(value).toString('latin1')))
    this.secrets = [...unique].sort((a, b) => b.length - a.length)
  }

  /** What of the output so far can be passed on, masked; the rest waits for the next write or end(). */
  write(chunk: Buffer): Buffer {
    if (this.secrets.length === 0) return chunk
    const text = this.mask(this.held + chunk.toString('latin1'))
    const keep = this.secretPrefixAtEnd(text)
    this.held = text.slice(text.length - keep)
    return Buffer.from(text.slice(0, text.length - keep), 'latin1')
  }

  /** What was held back: the output ended, so it is no secret's start after all. */
  end(): Buffer {
    const rest = this.held
    this.held = ''
    return Buffer.from(rest, 'latin1')
  }

  private mask(text: string): string {
    let masked = text
    for (const secret of this.secrets) if (masked.includes(secret)) masked = masked.split(secret).join(MASK)
    return masked
  }

  /** The length of the longest end of `text` that some secret starts with (shorter than the secret). */
  private secretPrefixAtEnd(text: string): number {
    let longest = 0
    for (const secret of this.secrets) {
      const from = Math.max(text.length - secret.length + 1, 0)
      for (let start = text.indexOf(secret[0]!, from); start !== -1 && text.length - start > longest; start = text.indexOf(secret[0]!, start + 1)) {
        if (secret.startsWith(text.slice(start))) {
          longest = text.length - start
          break
        }
      }
    }
    return longest
  }
}
