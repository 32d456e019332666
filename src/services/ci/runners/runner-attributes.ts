// What a runner's settings must satisfy, whoever sets them (registration, PUT /runners/:id): the
// original 11.5's validations, with its messages. Tags arrive as a list or, from the runners that
// send them so, as one comma-separated string; both become the same list.
import { validationFailed, type FieldErrors } from '../../../common/errors.js'

/** The original's floor for a runner's maximum_timeout: ten minutes. */
export const MINIMUM_RUNNER_TIMEOUT_SECONDS = 600

/** Tags as acts_as_taggable reads them: split at commas, trimmed, empty ones and repeats dropped. */
export function normalizeTags(tags: string | readonly string[]): string[] {
  const parts = (typeof tags === 'string' ? [tags] : tags).flatMap((tag) => tag.split(','))
  return [...new Set(parts.map((tag) => tag.trim()).filter((tag) => tag !== ''))]
}

/** 400 with the original's field messages when the settings a runner would have are invalid. */
export function checkRunnerSettings(settings: { tags: readonly string[]; runUntagged: boolean; maximumTimeout: number | null }): void {
  const errors: FieldErrors = {}
  if (settings.tags.length === 0 && !settings.runUntagged) {
    errors.tags_list = ['can not be empty when runner is not allowed to pick untagged jobs']
  }
  if (settings.maximumTimeout !== null && settings.maximumTimeout < MINIMUM_RUNNER_TIMEOUT_SECONDS) {
    errors.maximum_timeout = ['needs to be at least 10 minutes']
  }
  if (Object.keys(errors).length > 0) throw validationFailed(errors)
}
