// Adds an SSH public key to a user (POST /user/keys, POST /users/:id/keys). The key must parse as
// an OpenSSH public key of a supported type, meet the instance's key restrictions, and its SHA256
// fingerprint must be new to the instance, users' keys and deploy keys alike. Deploy keys
// (services/deploy-keys/) are checked here too.
import type sshpk from 'sshpk'
import type { Db } from '../../db/index.js'
import type { SshKeyRow } from '../../db/schema.js'
import { validationFailed, type FieldErrors } from '../../common/errors.js'
import { getApplicationSettings, type ApplicationSettings } from '../settings.js'
import { collectErrors } from '../validation.js'

export type SshKeyType = 'rsa' | 'dsa' | 'ecdsa' | 'ed25519'
const KEY_TYPES: readonly SshKeyType[] = ['rsa', 'dsa', 'ecdsa', 'ed25519']

const FORBIDDEN_KEY_TYPE = -1
const TITLE_MAX_LENGTH = 255
const KEY_MAX_LENGTH = 5000

export interface ParsedSshKey {
  /** `<type> <base64>[ <comment>]` on one line. */
  key: string
  type: SshKeyType
  bits: number
  /** `SHA256:<base64>`. */
  fingerprint: string
}

/** The algorithm name an OpenSSH public key line starts with, for each key type. */
function algorithmName(key: sshpk.Key): string {
  if (key.type === 'rsa') return 'ssh-rsa'
  if (key.type === 'dsa') return 'ssh-dss'
  if (key.type === 'ed25519') return 'ssh-ed25519'
  return `ecdsa-sha2-${key.curve}`
}

/**
 * Parses an OpenSSH public key line. Whitespace and line breaks inside the base64 part (pasted
 * keys) are tolerated, as the original does; null when it is not a key of a supported type, or
 * longer than the original's limit (each piece of a pasted key is one more parse).
 */
export async function parseSshPublicKey(text: string): Promise<ParsedSshKey | null> {
  if (text.length > KEY_MAX_LENGTH) return null
  // Loaded on first use: few requests add keys.
  const { default: keyParser } = await import('sshpk')
  const [algorithm, ...parts] = text.trim().split(/\s+/)
  if (algorithm === undefined || parts.length === 0) return null
  let blob = ''
  for (let i = 0; i < parts.length; i += 1) {
    blob += parts[i]
    let key: sshpk.Key
    try {
      key = keyParser.parseKey(`${algorithm} ${blob}`, 'ssh')
    } catch {
      continue
    }
    if (!KEY_TYPES.includes(key.type as SshKeyType) || algorithmName(key) !== algorithm) return null
    const comment = parts.slice(i + 1).join(' ')
    return {
      key: [algorithm, blob, comment].filter((p) => p !== '').join(' '),
      type: key.type as SshKeyType,
      bits: key.size,
      fingerprint: key.fingerprint('sha256').toString(),
    }
  }
  return null
}

/** Problems with a parsed key under the *_key_restriction settings (0 any size, -1 forbidden, N minimum bits). */
export function keyRestrictionErrors(key: Pick<ParsedSshKey, 'type' | 'bits'>, settings: ApplicationSettings): string[] {
  const restriction = restrictionFor(key.type, settings)
  if (restriction === FORBIDDEN_KEY_TYPE) {
    const allowed = KEY_TYPES.filter((type) => restrictionFor(type, settings) !== FORBIDDEN_KEY_TYPE).map((type) => type.toUpperCase())
    return [`type is forbidden. Must be ${exclusiveSentence(allowed)}`]
  }
  return key.bits < restriction ? [`must be at least ${restriction} bits`] : []
}

function restrictionFor(type: SshKeyType, settings: ApplicationSettings): number {
  return settings[`${type}_key_restriction`]
}

/** `A`, `A or B`, `A, B, or C`. */
function exclusiveSentence(words: readonly string[]): string {
  if (words.length <= 2) return words.join(' or ')
  return `${words.slice(0, -1).join(', ')}, or ${words[words.length - 1]}`
}

/** Problems with a key's title: blank or longer than the original's column. */
export function keyTitleErrors(title: string): string[] {
  if (title.trim() === '') return ["can't be blank"]
  return title.length > TITLE_MAX_LENGTH ? [`is too long (maximum is ${TITLE_MAX_LENGTH} characters)`] : []
}

/**
 * Whether a user's key or a deploy key has this fingerprint already: one key has one holder, as in
 * the original, whose users' and deploy keys share one table.
 */
export async function fingerprintTaken(db: Db, fingerprint: string): Promise<boolean> {
  const holder = await db.selectFrom('ssh_keys').select('id').where('fingerprint', '=', fingerprint)
    .unionAll(db.selectFrom('deploy_keys').select('id').where('fingerprint', '=', fingerprint))
    .executeTakeFirst()
  return holder !== undefined
}

export type NewKeyCheck =
  | { ok: true; parsed: ParsedSshKey }
  | { ok: false; errors: FieldErrors }

/**
 * The checks of a key being added, to a user or as a deploy key: title, a parsable key of a
 * supported type within the instance's restrictions, and a fingerprint no key has yet.
 */
export async function checkNewKey(db: Db, input: { title: string; key: string }): Promise<NewKeyCheck> {
  const parsed = await parseSshPublicKey(input.key)
  const keyErrors = input.key.trim() === ''
    ? ["can't be blank"]
    : input.key.length > KEY_MAX_LENGTH
      ? [`is too long (maximum is ${KEY_MAX_LENGTH} characters)`]
      : parsed === null ? ['is invalid'] : keyRestrictionErrors(parsed, await getApplicationSettings(db))
  const errors = collectErrors({
    title: keyTitleErrors(input.title),
    key: keyErrors,
    fingerprint: parsed !== null && await fingerprintTaken(db, parsed.fingerprint) ? ['has already been taken'] : [],
  })
  if (errors !== null) return { ok: false, errors }
  return parsed === null ? { ok: false, errors: { key: ['is invalid'] } } : { ok: true, parsed }
}

export async function addSshKey(db: Db, userId: number, input: { title: string; key: string }): Promise<SshKeyRow> {
  const check = await checkNewKey(db, input)
  if (!check.ok) throw validationFailed(check.errors)
  const { parsed } = check
  try {
    return await db.insertInto('ssh_keys').values({
      user_id: userId,
      title: input.title,
      key: parsed.key,
      fingerprint: parsed.fingerprint,
      key_type: parsed.type,
      key_bits: parsed.bits,
      created_at: Date.now(),
    }).returningAll().executeTakeFirstOrThrow()
  } catch (err) {
    // The same key added concurrently.
    if (await fingerprintTaken(db, parsed.fingerprint)) throw validationFailed({ fingerprint: ['has already been taken'] })
    throw err
  }
}
