// Passwords are hashed with argon2id; tokens are random and stored as SHA-256 digests, which is
// enough for 160 bits of randomness and cheap enough to check on every request.
import { createHash, randomBytes } from 'node:crypto'

// The argon2 addon is loaded on first use: most processes never hash a password.
const argon2 = () => import('@node-rs/argon2')

export async function hashPassword(password: string): Promise<string> {
  return (await argon2()).hash(password)
}

export async function passwordMatches(digest: string | null, password: string): Promise<boolean> {
  if (digest === null) return false
  try {
    return await (await argon2()).verify(digest, password)
  } catch {
    return false
  }
}

export function tokenDigest(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}

/** A new 20-character token, like the original's personal access tokens. */
export function generateToken(): string {
  return randomBytes(15).toString('base64url')
}

/** A long random password for the first root account when none is configured. */
export function generatePassword(): string {
  return randomBytes(18).toString('base64url')
}
