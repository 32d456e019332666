// Sets or clears the current user's status (PUT /user/status): an emoji name and a short message.
// Without either the status is cleared; a message without an emoji gets the default emoji.
import type { Db } from '../../db/index.js'
import type { UserRow } from '../../db/schema.js'
import { validationFailed } from '../../common/errors.js'
import { collectErrors } from '../validation.js'

export const DEFAULT_STATUS_EMOJI = 'speech_balloon'
export const STATUS_MESSAGE_MAX_LENGTH = 100

/** Emoji names as the original spells them: `thumbsup`, `+1`, `flag-gb`, `e-mail`. */
const EMOJI_NAME = /^[a-z0-9_+-]{1,64}$/

export interface SetStatusInput {
  emoji?: string
  message?: string
}

export async function setUserStatus(db: Db, user: UserRow, input: SetStatusInput): Promise<UserRow> {
  const present = (value: string | undefined): value is string => value !== undefined && value.trim() !== ''
  if (!present(input.emoji) && !present(input.message)) {
    return db.updateTable('users').set({ status_emoji: null, status_message: null })
      .where('id', '=', user.id).returningAll().executeTakeFirstOrThrow()
  }
  const emoji = present(input.emoji) ? input.emoji : DEFAULT_STATUS_EMOJI
  const message = input.message ?? null
  const errors = collectErrors({
    emoji: EMOJI_NAME.test(emoji) ? [] : ['is not included in the list'],
    message: message !== null && message.length > STATUS_MESSAGE_MAX_LENGTH
      ? [`is too long (maximum is ${STATUS_MESSAGE_MAX_LENGTH} characters)`]
      : [],
  })
  if (errors !== null) throw validationFailed(errors)
  return db.updateTable('users').set({ status_emoji: emoji, status_message: message })
    .where('id', '=', user.id).returningAll().executeTakeFirstOrThrow()
}
