// The SSH server's host keys: an Ed25519 and an RSA key, made in the data directory at the first
// start (mode 0600) and kept, so that clients that know the server keep trusting it.
import path from 'node:path'
import type ssh2 from 'ssh2'
import { readOrCreateKeyFile } from '../common/key-file.js'

/** Clients that offer neither Ed25519 nor RSA host keys are rare; 3072 bits as ssh-keygen makes them. */
const RSA_BITS = 3072

export function sshHostKeysDir(dataDir: string): string {
  return path.join(dataDir, 'ssh')
}

/** The private keys, OpenSSH format, read (or made) from `<data>/ssh/ssh_host_{ed25519,rsa}_key`. */
export function loadHostKeys(dataDir: string, utils: typeof ssh2.utils): string[] {
  const dir = sshHostKeysDir(dataDir)
  return [
    readOrCreateKeyFile(path.join(dir, 'ssh_host_ed25519_key'), () => utils.generateKeyPairSync('ed25519').private),
    readOrCreateKeyFile(path.join(dir, 'ssh_host_rsa_key'), () => utils.generateKeyPairSync('rsa', { bits: RSA_BITS }).private),
  ]
}
