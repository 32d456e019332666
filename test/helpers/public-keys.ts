// Fresh OpenSSH public keys of every supported type, for the tests of users' keys and deploy keys.
import { generateKeyPairSync } from 'node:crypto'
import sshpk from 'sshpk'

export type KeySpec =
  | { type: 'ed25519' }
  | { type: 'rsa'; bits: number }
  | { type: 'dsa' }
  | { type: 'ec'; curve: 'P-256' | 'P-384' | 'P-521' }

/** A fresh OpenSSH public key line, with a comment. */
export function makeKey(spec: KeySpec = { type: 'ed25519' }, comment = 'someone@example.com'): string {
  const key = sshpk.parseKey(publicKeyPem(spec), 'pem')
  key.comment = comment
  return key.toString('ssh')
}

function publicKeyPem(spec: KeySpec): string {
  const pem = { format: 'pem' } as const
  const publicKeyEncoding = { type: 'spki', ...pem } as const
  const privateKeyEncoding = { type: 'pkcs8', ...pem } as const
  switch (spec.type) {
    case 'ed25519': return generateKeyPairSync('ed25519', { publicKeyEncoding, privateKeyEncoding }).publicKey
    case 'rsa': return generateKeyPairSync('rsa', { modulusLength: spec.bits, publicKeyEncoding, privateKeyEncoding }).publicKey
    case 'dsa': return generateKeyPairSync('dsa', { modulusLength: 1024, divisorLength: 160, publicKeyEncoding, privateKeyEncoding }).publicKey
    case 'ec': return generateKeyPairSync('ec', { namedCurve: spec.curve, publicKeyEncoding, privateKeyEncoding }).publicKey
  }
}

/** The `SHA256:<base64>` fingerprint of a public key line. */
export const fingerprintOf = (line: string): string => sshpk.parseKey(line, 'ssh').fingerprint('sha256').toString()
