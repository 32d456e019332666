// Secrets Ingot must be able to read back (hook tokens, integrations' passwords and tokens; later CI
// variables and OAuth application secrets) are kept encrypted, as the original keeps them with its
// db_key_base: AES-256-GCM with a key derived per purpose from the instance's secret key, the
// purpose bound as associated data, so a value sealed for one use cannot be opened as another.
//
// The secret key is INGOT_SECRET_KEY, or else the file `secret.key` in the data directory, made at
// the first start (mode 0600). Sealed values name the key they were sealed with, so after a rotation
// values sealed with a previous key (INGOT_PREVIOUS_SECRET_KEYS) are still opened, and resealed.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto'
import path from 'node:path'
import { readOrCreateKeyFile } from './key-file.js'

/** What a secret is for; each purpose has a key of its own. Add one per new kind of secret. */
export type SecretPurpose = 'web_hooks.token' | 'integrations.secrets' | 'ci.pipeline_variables' | 'ci.variables' | 'ci.triggers'
  | 'ci.pipeline_schedule_variables' | 'lfs.token' | 'import_export.upload_url'

/** The file of the key generated at first start, in the data directory. */
export const SECRET_KEY_FILE = 'secret.key'

/** The shortest secret key accepted: 32 characters carry at least 128 bits from any sane generator. */
export const MIN_SECRET_KEY_LENGTH = 32

const FORMAT = 'v1'
const IV_BYTES = 12
const TAG_BYTES = 16

export class SecretBoxError extends Error {}

interface Key {
  /** A short public name of the key, written in every value sealed with it. */
  id: string
  secret: Buffer
}

function keyOf(material: string): Key {
  const secret = Buffer.from(material, 'utf8')
  return { id: createHmac('sha256', secret).update('ingot secret key id').digest('hex').slice(0, 8), secret }
}

function purposeKey(key: Key, purpose: SecretPurpose): Buffer {
  return Buffer.from(hkdfSync('sha256', key.secret, Buffer.alloc(0), `ingot:${purpose}`, 32))
}

export class SecretBox {
  private readonly current: Key
  private readonly keys: ReadonlyMap<string, Key>

  /** `current` seals; it and `previous` open. */
  constructor(current: string, previous: readonly string[] = []) {
    this.current = keyOf(current)
    this.keys = new Map([this.current, ...previous.map(keyOf)].map((key) => [key.id, key]))
  }

  /** `v1.<key id>.<iv>.<ciphertext and tag>`, base64url. */
  seal(purpose: SecretPurpose, plaintext: string): string {
    const iv = randomBytes(IV_BYTES)
    const cipher = createCipheriv('aes-256-gcm', purposeKey(this.current, purpose), iv)
    cipher.setAAD(Buffer.from(purpose))
    const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()])
    return [FORMAT, this.current.id, iv.toString('base64url'), sealed.toString('base64url')].join('.')
  }

  /** The plaintext; SecretBoxError when the value is not sealed, sealed with an unknown key, or altered. */
  open(purpose: SecretPurpose, value: string): string {
    const [format, keyId, iv, sealed, ...rest] = value.split('.')
    if (format !== FORMAT || keyId === undefined || iv === undefined || sealed === undefined || rest.length > 0) {
      throw new SecretBoxError(`a ${purpose} value is not sealed`)
    }
    const key = this.keys.get(keyId)
    if (key === undefined) throw new SecretBoxError(`a ${purpose} value is sealed with a key Ingot does not have (${keyId})`)
    const bytes = Buffer.from(sealed, 'base64url')
    try {
      const decipher = createDecipheriv('aes-256-gcm', purposeKey(key, purpose), Buffer.from(iv, 'base64url'))
      decipher.setAAD(Buffer.from(purpose))
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES))
      return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8')
    } catch {
      throw new SecretBoxError(`a ${purpose} value does not open with its key (${keyId}): altered, or sealed for another purpose`)
    }
  }

  hasPreviousKeys(): boolean {
    return this.keys.size > 1
  }

  /** The id of the key the value was sealed with, when Ingot does not have that key; null otherwise. */
  missingKeyOf(value: string): string | null {
    const [format, keyId = ''] = value.split('.')
    return format === FORMAT && !this.keys.has(keyId) ? keyId : null
  }

  /** Whether the value was sealed with a key other than the current one (a rotation left it behind). */
  sealedWithPreviousKey(value: string): boolean {
    const [format, keyId] = value.split('.')
    return format === FORMAT && keyId !== this.current.id
  }
}

/** The instance's secret box: the configured key, or the key file in the data directory, made now when there is none. */
export function openSecretBox(options: { dataDir: string; secretKey: string | null; previousSecretKeys: readonly string[] }): SecretBox {
  if (options.secretKey !== null) return new SecretBox(options.secretKey, options.previousSecretKeys)
  const file = path.join(options.dataDir, SECRET_KEY_FILE)
  const key = readOrCreateKeyFile(file, () => `${randomBytes(32).toString('hex')}\n`).trim()
  if (key.length < MIN_SECRET_KEY_LENGTH) throw new SecretBoxError(`${file} holds fewer than ${MIN_SECRET_KEY_LENGTH} characters`)
  return new SecretBox(key, options.previousSecretKeys)
}
