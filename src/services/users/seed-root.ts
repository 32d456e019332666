// First start: the administrator `root` (id 1) with the configured password, or a generated one
// written to $INGOT_DATA_DIR/initial_root_password (never to the log), and the configured token.
import fs from 'node:fs/promises'
import path from 'node:path'
import type { AppContext } from '../../context.js'
import type { UserRow } from '../../db/schema.js'
import { generatePassword } from '../../auth/secrets.js'
import { createAccessToken } from '../access-tokens/create-access-token.js'
import { createUser } from './create-user.js'

export const INITIAL_ROOT_PASSWORD_FILE = 'initial_root_password'

const hasUsers = async (ctx: AppContext) => (await ctx.db.selectFrom('users').select('id').limit(1).executeTakeFirst()) !== undefined

/** Seeds root when the instance has no users yet. */
export async function seedRoot(ctx: AppContext): Promise<void> {
  if (await hasUsers(ctx)) return
  const password = ctx.config.rootPassword ?? generatePassword()
  let root: UserRow
  try {
    root = await createUser(ctx, {
      username: 'root',
      name: 'Administrator',
      email: 'admin@example.com',
      password,
      admin: true,
      skip_confirmation: true,
    })
  } catch (err) {
    // Processes started at once on an empty database all see no users; the first one seeds root
    // (and its token and password file), the others find it taken and have nothing left to do.
    if (await hasUsers(ctx)) return
    throw err
  }
  if (ctx.config.rootToken !== null) {
    await createAccessToken(ctx.db, {
      userId: root.id, kind: 'personal', name: 'root token', scopes: ['api', 'read_user', 'sudo'], token: ctx.config.rootToken,
    })
  }
  if (ctx.config.rootPassword === null) {
    await fs.writeFile(path.join(ctx.config.dataDir, INITIAL_ROOT_PASSWORD_FILE), `${password}\n`, { mode: 0o600 })
  }
}
