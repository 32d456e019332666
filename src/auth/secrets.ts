// Passwords are hashed with argon2id; tokens are random and stored as SHA-256 digests, which is
// enough for 160 bits of randomness and cheap enough to check on every request.
import { hash, randomBytes } from 'node:crypto'

// The argon2 addon is loaded on first use: most processes never hash a password.
const argon2 = () => import('@node-rs/argon2')

export async function hashPassword(password: string): Promise<string> {
  return (await argon2()).hash(password)
}

/**
 * A hash of a password nobody knows, made with the parameters of every stored hash: checked when
 * there is no digest (a login that names nobody, a user without a password), so that such a
 * sign-in costs what a wrong password costs and its time tells nothing of which logins exist.
 */
let decoyDigest: Promise<string> | null = null

export async function passwordMatches(digest: string | null, password: string): Promise<boolean> {
  const checked = digest ?? await (decoyDigest ??= hashPassword(generatePassword()))
  try {
    const matches = await (await argon2()).verify(checked, password)
    return digest !== null && matches
  } catch {
    return false
  }
}

export function tokenDigest(token: string): string {
  // The one-shot hash: no Hash object per request (Node ≥ 20.12).
  return hash('sha256', token, 'hex')
}

/** A new 20-character token, like the original's personal access tokens. */
export function generateToken(): string {
  return randomBytes(15).toString('base64url')
}

/** A long random password for the first root account when none is configured. */
export function generatePassword(): string {
  return randomBytes(18).toString('base64url')
}
