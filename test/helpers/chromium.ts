// A real headless browser for the web pages: Debian's `chromium` driven by playwright-core (which
// downloads nothing), and an Ingot test app on a real socket whose external URL is the address it
// listens on, so its redirects and cookies are what a browser sees in production. One browser per
// test file (launched in `before`, closed in `after`); a fresh context (cookies) per test.
import fs from 'node:fs/promises'
import { createRequire } from 'node:module'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { ROOT_PASSWORD, buildTestApp, type TestApp, type TestAppOptions } from './app.js'
import { freePort } from './ports.js'

/** Where Debian's `chromium` package installs its launcher. */
export const CHROMIUM_PATH = '/usr/bin/chromium'

/** How long a page action or navigation may take before the test fails (Playwright's default is 30s). */
export const PAGE_TIMEOUT_MS = 10_000

/**
 * Launches headless Chromium; close it in `after`. Fails (never skips) when Chromium is not
 * installed: CI installs the package (.ci/run), and a browser test that does not run proves nothing.
 */
export async function launchChromium(): Promise<Browser> {
  try {
    await fs.access(CHROMIUM_PATH, fs.constants.X_OK)
  } catch {
    throw new Error(`Chromium is missing: no executable at ${CHROMIUM_PATH}. The browser tests need Debian's \`chromium\` package: apt-get install chromium (.ci/run installs it).`)
  }
  const root = process.getuid?.() === 0
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    // Chromium's sandbox refuses to run as root (as CI containers run); anyone else keeps it.
    // playwright-core adds --no-sandbox whenever this is not true.
    chromiumSandbox: !root,
    // A container's /dev/shm is often 64 MB, too small for Chromium's shared memory: use /tmp.
    args: ['--disable-dev-shm-usage'],
    timeout: 30_000,
  })
}

export interface OpenedPage {
  context: BrowserContext
  page: Page
  /** Console errors and uncaught exceptions of the page so far, as they happen (but /favicon.ico's 404). */
  consoleErrors: string[]
  close(): Promise<void>
}

/**
 * A page in a context of its own (no cookies from other tests) whose relative URLs resolve
 * against `baseURL`, with a shorter time limit and its console errors recorded.
 */
export async function openPage(browser: Browser, baseURL: string): Promise<OpenedPage> {
  const context = await browser.newContext({ baseURL })
  context.setDefaultTimeout(PAGE_TIMEOUT_MS)
  const page = await context.newPage()
  const consoleErrors: string[] = []
  page.on('console', (message) => {
    if (message.type() !== 'error') return
    const { url } = message.location()
    // Chromium asks for /favicon.ico on its own (Ingot serves none: a 404 logged as an error),
    // sometimes after the test has looked: not the page's error, and a flake if counted.
    if (url !== '' && new URL(url).pathname === '/favicon.ico') return
    consoleErrors.push(url === '' ? message.text() : `${message.text()} (${url})`)
  })
  page.on('pageerror', (error) => consoleErrors.push(`uncaught: ${error.message}`))
  return { context, page, consoleErrors, close: () => context.close() }
}

export interface ListeningApp {
  t: TestApp
  /** `http://127.0.0.1:<port>`: where the app listens, and its INGOT_EXTERNAL_URL. */
  url: string
  close(): Promise<void>
}

/**
 * buildTestApp() listening on 127.0.0.1 at a free port, with INGOT_EXTERNAL_URL set to that
 * address (over any given in `options.env`), as the client-compatibility suite's server is.
 */
export async function startListeningApp(options: TestAppOptions = {}): Promise<ListeningApp> {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const t = await buildTestApp({ ...options, env: { ...options.env, INGOT_EXTERNAL_URL: url } })
  try {
    await t.app.listen({ host: '127.0.0.1', port })
  } catch (err) {
    await t.close()
    throw err
  }
  return { t, url, close: () => t.close() }
}

/** Fills and sends the sign-in form the page shows (root with the test password unless told otherwise). */
export async function submitSignIn(page: Page, login = 'root', password = ROOT_PASSWORD): Promise<void> {
  await page.fill('#user_login', login)
  await page.fill('#user_password', password)
  await page.getByRole('button', { name: 'Sign in' }).click()
}

/** An accessibility rule broken on a page, as axe-core reports it, with the elements that break it. */
export interface AccessibilityViolation {
  id: string
  impact: string | null
  help: string
  targets: string[]
}

const AXE_SOURCE_PATH = createRequire(import.meta.url).resolve('axe-core/axe.min.js')

/**
 * The serious and critical WCAG 2.x A/AA violations axe-core finds on the page as it is now.
 * axe is evaluated through the DevTools protocol, which the pages' CSP (no inline scripts) does
 * not govern, so the page is scanned exactly as visitors get it.
 */
export async function seriousAccessibilityViolations(page: Page): Promise<AccessibilityViolation[]> {
  await page.evaluate(await fs.readFile(AXE_SOURCE_PATH, 'utf8'))
  const { checked, violations } = await page.evaluate(async () => {
    const { axe, document } = globalThis as unknown as { document: unknown; axe: { run(context: unknown, options: unknown): Promise<{ passes: unknown[]; violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[] }> } }
    const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })
    return { checked: result.passes.length, violations: result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) })) }
  })
  // A scan that passed no rule at all did not look at the page.
  if (checked === 0) throw new Error(`axe-core checked nothing on ${page.url()}`)
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
}
