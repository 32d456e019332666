// Environments of a project, as the original 11.5's Environment: a name (the CI file's
// `environment:name` with its variables expanded, or one given through the API) unique in the
// project, a slug made from it once and never changed, an external URL and a state (available or
// stopped). CI jobs create them when their pipeline is created (ensureJobEnvironments) and deploy
// to or stop them when they succeed (deployments.ts); the API creates, renames, deletes and stops
// them.
import { randomInt } from 'node:crypto'
import type { Db } from '../../db/index.js'
import type { EnvironmentRow } from '../../db/schema.js'
import { validationFailed, type FieldErrors } from '../../common/errors.js'
import { isUniqueViolation } from '../projects/create-project.js'
import { ENVIRONMENT_NAME, ENVIRONMENT_NAME_MESSAGE } from './config/entries.js'
import type { CiEnvironment, CiJob } from './config/types.js'

const MAX_LENGTH = 255
const SLUG_CHARACTERS = 'abcdefghijklmnopqrstuvwxyz0123456789'

function randomSuffix(): string {
  return Array.from({ length: 6 }, () => SLUG_CHARACTERS[randomInt(SLUG_CHARACTERS.length)]).join('')
}

/**
 * The original's slug (Environment#generate_slug): lower-case letters, digits and single dashes,
 * starting with a letter, at most 24 characters (OpenShift's limit), not ending with a dash; a name
 * that had to change gets a random 6-character suffix so that two names never share a slug.
 */
export function environmentSlug(name: string, suffix: () => string = randomSuffix): string {
  let slug = name.toLowerCase().replace(/[^a-z0-9]/g, '-')
  if (!/^[a-z]/.test(slug)) slug = `env-${slug}`
  slug = slug.replace(/-+/g, '-').slice(0, 24).replace(/-$/, '')
  if (slug === name) return slug
  slug = slug.slice(0, 17)
  return `${slug.endsWith('-') ? slug : `${slug}-`}${suffix()}`
}

/** The original's ExpandVariables: `$NAME`, `${NAME}` and `%NAME%` replaced by their values, unknown names by nothing. */
export function expandVariables(text: string, variables: Readonly<Record<string, string>>): string {
  return text.replace(/\$([a-zA-Z_][a-zA-Z0-9_]*)|\$\{([a-zA-Z_][a-zA-Z0-9_]*)\}|%([a-zA-Z_][a-zA-Z0-9_]*)%/g,
    (_match, plain?: string, braced?: string, percent?: string) => variables[plain ?? braced ?? percent!] ?? '')
}

export interface EnvironmentInput {
  name?: string
  external_url?: string | null
}

function isHttpUrl(text: string): boolean {
  // The URL parser would drop or escape control characters; the URL is stored as given.
  if (/[\u0000-\u001f\u007f]/.test(text)) return false
  try {
    const url = new URL(text)
    return url.protocol === 'http:' || url.protocol === 'https:'
  } catch {
    return false
  }
}

/** A blank URL is none, as the original's nullify_external_url. */
function externalUrlOf(url: string | null | undefined): string | null | undefined {
  return url === undefined ? undefined : url === null || url.trim() === '' ? null : url
}

/** The original's validations of a name and an external URL, by field; null when both are fine. */
export function environmentErrors(input: EnvironmentInput): FieldErrors | null {
  const errors: FieldErrors = {}
  const add = (field: string, message: string) => { (errors[field] ??= []).push(message) }
  if (input.name !== undefined) {
    if (input.name.trim() === '') add('name', "can't be blank")
    if (input.name.length > MAX_LENGTH) add('name', 'is too long (maximum is 255 characters)')
    if (!ENVIRONMENT_NAME.test(input.name)) add('name', ENVIRONMENT_NAME_MESSAGE)
  }
  const url = externalUrlOf(input.external_url)
  if (url !== undefined && url !== null) {
    if (url.length > MAX_LENGTH) add('external_url', 'is too long (maximum is 255 characters)')
    if (!isHttpUrl(url)) add('external_url', 'must be a valid URL')
  }
  return Object.keys(errors).length === 0 ? null : errors
}

const nameTaken = () => validationFailed({ name: ['has already been taken'] })

function findByName(db: Db, projectId: number, name: string): Promise<EnvironmentRow | undefined> {
  return db.selectFrom('environments').selectAll().where('project_id', '=', projectId).where('name', '=', name).executeTakeFirst()
}

/** Inserts the environment unless one of that name (or, very rarely, that slug) exists; the new row or undefined. */
function insertEnvironment(db: Db, projectId: number, name: string, externalUrl: string | null, now: number): Promise<EnvironmentRow | undefined> {
  return db.insertInto('environments')
    .values({ project_id: projectId, name, slug: environmentSlug(name), external_url: externalUrl, created_at: now, updated_at: now })
    .onConflict((oc) => oc.doNothing())
    .returningAll().executeTakeFirst()
}

/** POST /projects/:id/environments: a new available environment; 400 for a bad or taken name. */
export async function createEnvironment(db: Db, projectId: number, input: { name: string; external_url?: string | null }): Promise<EnvironmentRow> {
  const errors = environmentErrors(input)
  if (errors !== null) throw validationFailed(errors)
  const created = await insertEnvironment(db, projectId, input.name, externalUrlOf(input.external_url) ?? null, Date.now())
  if (created === undefined) throw nameTaken()
  return created
}

/** PUT /projects/:id/environments/:environment_id: a new name or URL; the slug stays as it was made. */
export async function updateEnvironment(db: Db, environment: EnvironmentRow, input: EnvironmentInput): Promise<EnvironmentRow> {
  const errors = environmentErrors(input)
  if (errors !== null) throw validationFailed(errors)
  if (input.name !== undefined && input.name !== environment.name && await findByName(db, environment.project_id, input.name) !== undefined) throw nameTaken()
  const externalUrl = externalUrlOf(input.external_url)
  try {
    return await db.updateTable('environments')
      .set({ ...(input.name === undefined ? {} : { name: input.name }), ...(externalUrl === undefined ? {} : { external_url: externalUrl }), updated_at: Date.now() })
      .where('id', '=', environment.id).returningAll().executeTakeFirstOrThrow()
  } catch (error) {
    // Another request took the name between the check and the update.
    if (isUniqueViolation(error)) throw nameTaken()
    throw error
  }
}

/** DELETE: the environment and its deployments. */
export async function deleteEnvironment(db: Db, environment: EnvironmentRow): Promise<void> {
  await db.deleteFrom('environments').where('id', '=', environment.id).execute()
}

/** The environment of that name, created (available, without URL) when the project has none yet; null for a name it cannot have. */
export async function ensureEnvironment(db: Db, projectId: number, name: string, now: number): Promise<EnvironmentRow | null> {
  if (environmentErrors({ name }) !== null) return null
  return await findByName(db, projectId, name) ?? await insertEnvironment(db, projectId, name, null, now) ?? await findByName(db, projectId, name) ?? null
}

/**
 * A new pipeline's jobs with their environment names expanded with the job's variables (as the
 * original's expanded_environment_name) and their URLs with those and the environment's own
 * CI_ENVIRONMENT_NAME and CI_ENVIRONMENT_SLUG, each named environment created when missing. The
 * expanded values are what the jobs keep: a job deploys where its pipeline was created to deploy.
 */
export async function ensureJobEnvironments(
  trx: Db, projectId: number, jobs: readonly CiJob[], variablesOf: (job: CiJob) => Record<string, string>, now: number,
): Promise<CiJob[]> {
  const expanded: CiJob[] = []
  for (const job of jobs) {
    if (job.environment === null) {
      expanded.push(job)
      continue
    }
    const variables = { ...variablesOf(job), CI_JOB_NAME: job.name, CI_JOB_STAGE: job.stage }
    const name = expandVariables(job.environment.name, variables)
    const environment = await ensureEnvironment(trx, projectId, name, now)
    const urlVariables = environment === null ? variables : { ...variables, CI_ENVIRONMENT_NAME: environment.name, CI_ENVIRONMENT_SLUG: environment.slug }
    const url = job.environment.url === null ? null : expandVariables(job.environment.url, urlVariables)
    expanded.push({ ...job, environment: { ...job.environment, name, url } })
  }
  return expanded
}

/** The environment a job's (expanded) environment name names now, or null. */
export async function findJobEnvironment(db: Db, projectId: number, name: string): Promise<EnvironmentRow | null> {
  return await findByName(db, projectId, name) ?? null
}

/**
 * CI_ENVIRONMENT_NAME, CI_ENVIRONMENT_SLUG and CI_ENVIRONMENT_URL (the job's URL, else the
 * environment's) of a job whose environment exists, as the original's
 * persisted_environment_variables; none otherwise.
 */
export function environmentVariables(target: CiEnvironment | null, environment: Pick<EnvironmentRow, 'name' | 'slug' | 'external_url'> | null): Record<string, string> {
  if (target === null || environment === null) return {}
  const url = target.url ?? environment.external_url
  return { CI_ENVIRONMENT_NAME: environment.name, CI_ENVIRONMENT_SLUG: environment.slug, ...(url === null ? {} : { CI_ENVIRONMENT_URL: url }) }
}
