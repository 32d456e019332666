// The signed-in user's own credentials, at the original's URLs: personal access tokens
// (/profile/personal_access_tokens), the password (/profile/password), SSH keys (/profile/keys).
// Every rule is the services'; a refused form comes back with the service's messages. A secret
// just made is shown in the answer to the form that made it, never again.
import type { FastifyPluginAsync, FastifyReply } from 'fastify'
import { SCOPES } from '../auth/actor.js'
import { findAccessTokens, findActivePersonalAccessToken, findSshKey, findSshKeys } from '../finders/users-finder.js'
import { grantableScopes } from '../policies/user-policy.js'
import { createPersonalAccessToken } from '../services/access-tokens/create-personal-access-token.js'
import { revokeAccessToken } from '../services/access-tokens/revoke-access-token.js'
import { addSshKey } from '../services/ssh-keys/add-ssh-key.js'
import { removeSshKey } from '../services/ssh-keys/remove-ssh-key.js'
import { changeOwnPassword } from '../services/users/change-password.js'
import {
  KEYS_PATH, PASSWORD_PATH, TOKENS_PATH, passwordPage, personalAccessTokensPage, sshKeysPage, type KeysPageInput,
  type TokensPageInput,
} from './profile-pages.js'
import {
  WEB, formListOf, formMethod, formOf, forSignedIn, idParam, redirect, refusalOf, sendNotFound, sendPage, tokenOf,
  type SignedInVisit,
} from './visit.js'

const profile: FastifyPluginAsync = async (app) => {
  const tokensPage = async (reply: FastifyReply, visit: SignedInVisit, extra: Partial<TokensPageInput> = {}) => {
    const { user } = visit.session
    const tokens = await findAccessTokens(app.ingot.db, user.id, 'personal', 'active').execute()
    return sendPage(reply, visit, 200, personalAccessTokensPage({
      user, csrfToken: tokenOf(visit), scopes: grantableScopes(user, SCOPES), tokens, ...extra,
    }))
  }

  app.get(TOKENS_PATH, WEB, forSignedIn(async (_req, reply, visit) => tokensPage(reply, visit)))

  app.post(TOKENS_PATH, WEB, forSignedIn(async (req, reply, visit) => {
    const { user } = visit.session
    const form = formOf(req, 'personal_access_token')
    const values = { name: form.name ?? '', expiresAt: form.expires_at ?? '', scopes: formListOf(req, 'personal_access_token', 'scopes') }
    // A scope the form does not offer (sudo to a non-administrator) counts as unticked.
    const offered: readonly string[] = grantableScopes(user, SCOPES)
    const scopes = values.scopes.filter((scope) => offered.includes(scope))
    try {
      const { token } = await createPersonalAccessToken(app.ingot.db, user.id, {
        name: values.name, scopes, expires_at: values.expiresAt === '' ? null : values.expiresAt,
      })
      return await tokensPage(reply, visit, { createdToken: token, notice: 'Your new personal access token has been created.' })
    } catch (err) {
      return tokensPage(reply, visit, { errors: refusalOf(err), values })
    }
  }))

  app.post(`${TOKENS_PATH}/:id/revoke`, WEB, forSignedIn(async (req, reply, visit) => {
    if (formMethod(req) !== 'PUT') return sendNotFound(reply, visit)
    const id = idParam(req)
    const token = id === null ? undefined : await findActivePersonalAccessToken(app.ingot.db, visit.session.user.id, id)
    if (token === undefined) return sendNotFound(reply, visit)
    await revokeAccessToken(app.ingot.db, token)
    return redirect(reply, visit, TOKENS_PATH)
  }))

  app.get(`${PASSWORD_PATH}/edit`, WEB, forSignedIn(async (_req, reply, visit) =>
    sendPage(reply, visit, 200, passwordPage({ user: visit.session.user, csrfToken: tokenOf(visit) }))))

  app.post(PASSWORD_PATH, WEB, forSignedIn(async (req, reply, visit) => {
    if (formMethod(req) !== 'PUT') return sendNotFound(reply, visit)
    const form = formOf(req, 'user')
    const { session, user } = visit.session
    try {
      const updated = await changeOwnPassword(app.ingot.db, { user, token: null, sudoFrom: null, sessionId: session.id }, {
        currentPassword: form.current_password ?? '', password: form.password ?? '', passwordConfirmation: form.password_confirmation ?? '',
      }, { bans: app.ingot.throttles.signInBans, address: req.ip })
      return sendPage(reply, visit, 200, passwordPage({ user: updated, csrfToken: tokenOf(visit), notice: 'Password was successfully updated.' }))
    } catch (err) {
      return sendPage(reply, visit, 200, passwordPage({ user, csrfToken: tokenOf(visit), errors: refusalOf(err) }))
    }
  }))

  const keysPage = async (reply: FastifyReply, visit: SignedInVisit, extra: Partial<KeysPageInput> = {}) => {
    const { user } = visit.session
    const keys = await findSshKeys(app.ingot.db, user.id).execute()
    return sendPage(reply, visit, 200, sshKeysPage({ user, csrfToken: tokenOf(visit), keys, ...extra }))
  }

  app.get(KEYS_PATH, WEB, forSignedIn(async (_req, reply, visit) => keysPage(reply, visit)))

  app.post(KEYS_PATH, WEB, forSignedIn(async (req, reply, visit) => {
    const form = formOf(req, 'key')
    const values = { key: form.key ?? '', title: form.title ?? '' }
    try {
      await addSshKey(app.ingot.db, visit.session.user.id, values)
      return await keysPage(reply, visit, { notice: 'The SSH key was added.' })
    } catch (err) {
      return keysPage(reply, visit, { errors: refusalOf(err), values })
    }
  }))

  app.post(`${KEYS_PATH}/:id`, WEB, forSignedIn(async (req, reply, visit) => {
    if (formMethod(req) !== 'DELETE') return sendNotFound(reply, visit)
    const id = idParam(req)
    const key = id === null ? undefined : await findSshKey(app.ingot.db, visit.session.user.id, id)
    if (key === undefined) return sendNotFound(reply, visit)
    await removeSshKey(app.ingot.db, key)
    return redirect(reply, visit, KEYS_PATH)
  }))
}

export default profile
