// The real server on a real socket for the client-compatibility suite: Ingot listening on
// 127.0.0.1 with INGOT_EXTERNAL_URL pointing at itself, @gitbeaker/rest clients for any token, and
// a check that a call failed with the status the original answers.
import assert from 'node:assert/strict'
import { Gitlab, GitbeakerRequestError } from '@gitbeaker/rest'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { freePort } from '../helpers/ports.js'

export type Client = InstanceType<typeof Gitlab<false>>

export interface ClientOptions {
  /** gitbeaker's `sudo` option: every request of the client acts as this user. */
  sudo?: string | number
  /** Send the token as `Authorization: Bearer` (gitbeaker's `oauthToken`) instead of Private-Token. */
  bearer?: boolean
}

export interface CompatServer {
  t: TestApp
  url: string
  /** A client for any token (root's when omitted, anonymous when null). */
  client(token?: string | null, options?: ClientOptions): Client
  close(): Promise<void>
}

export async function startCompatServer(): Promise<CompatServer> {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const t = await buildTestApp({ env: { INGOT_EXTERNAL_URL: url } })
  await t.app.listen({ port, host: '127.0.0.1' })
  return {
    t,
    url,
    client(token = t.root.token, options = {}) {
      const { sudo, bearer = false } = options
      const credentials = token === null ? {} : bearer ? { oauthToken: token } : { token }
      return new Gitlab({ host: url, ...credentials, ...(sudo === undefined ? {} : { sudo }) })
    },
    close: () => t.close(),
  }
}

/**
 * Parameters of the 11.5 API that gitbeaker v43's typings no longer name (they name successors, e.g.
 * topics for tag_list, issues_access_level for issues_enabled) or never named (custom_attributes
 * filters); gitbeaker sends whatever it is given, decamelized, so a client of that era can use them.
 */
export const untypedParams = (params: Record<string, unknown>): object => params

/**
 * Awaits a call that must fail as the original fails it: a GitbeakerRequestError whose response has
 * `status`. Returns the error's message (the body's `message` or `error`, objects as JSON).
 */
export async function expectStatus(call: Promise<unknown>, status: number): Promise<string> {
  const error = await call.then(
    (value) => assert.fail(`expected ${status}, got a success: ${JSON.stringify(value)}`),
    (err: unknown) => err,
  )
  assert.ok(error instanceof GitbeakerRequestError, `expected a GitbeakerRequestError, got ${String(error)}`)
  assert.equal(error.cause?.response.status, status, `expected ${status}: ${error.message}`)
  return error.message
}
