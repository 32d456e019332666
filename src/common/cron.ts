// Cron expressions: cron-parser over luxon, required from node_modules (not bundled) so that this
// module reaches the very luxon cron-parser uses and sets its default locale. Unset, luxon asks Intl
// for the system's locale at the first date it makes, and that first Intl.DateTimeFormat maps ICU's
// locale and time zone data into the process: about 8 MB of RSS for its whole life, which a cron time
// never needs (a locale only names and parses; the times are the same in any).
import { createRequire } from 'node:module'
import type CronParser from 'cron-parser'

const requireCommonJs = createRequire(import.meta.url)

export const cronParser = requireCommonJs('cron-parser') as typeof CronParser

const luxon = createRequire(requireCommonJs.resolve('cron-parser'))('luxon') as { Settings: { defaultLocale: string } }
luxon.Settings.defaultLocale = 'en-US'
