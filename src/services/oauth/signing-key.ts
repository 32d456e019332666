// The key OpenID Connect id_tokens are signed with (RS256): made in the data directory
// (oidc-signing-key.pem, mode 0600) when `ingot web` starts (or at first use, as in tests) and kept
// there, so tokens signed before a restart still verify.
// Its public half is published as a JWKS whose key id is the key's RFC 7638 thumbprint.
// The start only makes (or reads and checks) the file; jose is loaded at the first token or JWKS.
import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto'
import path from 'node:path'
import type { CryptoKey, JWK } from 'jose'
import { readOrCreateKeyFile } from '../../common/key-file.js'

export const SIGNING_KEY_FILE = 'oidc-signing-key.pem'
export const SIGNING_ALGORITHM = 'RS256'

export interface SigningKey {
  privateKey: CryptoKey
  /** The public key as a JWK with `kid`, `alg` and `use`. */
  publicJwk: JWK
}

const keysByFile = new Map<string, Promise<SigningKey>>()

/** The instance's signing key, read (or made) once per process. */
export function signingKey(dataDir: string): Promise<SigningKey> {
  const file = path.join(dataDir, SIGNING_KEY_FILE)
  let key = keysByFile.get(file)
  if (key === undefined) {
    key = loadSigningKey(file)
    keysByFile.set(file, key)
    key.catch(() => keysByFile.delete(file))
  }
  return key
}

/**
 * Makes the instance's key file when there is none, and checks that the file holds a private key
 * (`ingot web` does at start, so a data directory that cannot keep it fails the start).
 */
export function ensureSigningKeyFile(dataDir: string): void {
  createPrivateKey(readSigningKeyFile(path.join(dataDir, SIGNING_KEY_FILE)))
}

function readSigningKeyFile(file: string): string {
  return readOrCreateKeyFile(file, () => generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  }).privateKey)
}

async function loadSigningKey(file: string): Promise<SigningKey> {
  const pem = readSigningKeyFile(file)
  const { calculateJwkThumbprint, exportJWK, importPKCS8 } = await import('jose')
  const privateKey = await importPKCS8(pem, SIGNING_ALGORITHM)
  const jwk = await exportJWK(createPublicKey(pem))
  const kid = await calculateJwkThumbprint(jwk, 'sha256')
  return { privateKey, publicJwk: { ...jwk, kid, alg: SIGNING_ALGORITHM, use: 'sig' } }
}
