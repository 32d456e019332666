// The OAuth application entities of the original's /applications API (release 11.5): the secret
// only in the answer that made it, as Ingot keeps no more than its digest.
import { Type, type Static } from '@sinclair/typebox'
import type { OauthApplicationRow } from '../db/schema.js'

export const Application = Type.Object({
  id: Type.Integer(),
  application_id: Type.String(),
  application_name: Type.String(),
  /** The redirect URIs, one per line. */
  callback_url: Type.String(),
})
export type ApplicationEntity = Static<typeof Application>

export const ApplicationWithSecret = Type.Object({ ...Application.properties, secret: Type.String() })
export type ApplicationWithSecretEntity = Static<typeof ApplicationWithSecret>

export function presentApplication(application: OauthApplicationRow): ApplicationEntity {
  return {
    id: application.id,
    application_id: application.uid,
    application_name: application.name,
    callback_url: application.redirect_uri,
  }
}

export function presentApplicationWithSecret(application: OauthApplicationRow, secret: string): ApplicationWithSecretEntity {
  return { ...presentApplication(application), secret }
}
