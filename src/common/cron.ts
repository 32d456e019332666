// Cron expressions: cron-parser over luxon, required from node_modules (not bundled, pg-boss's too:
// scripts/build.mjs) so that this module reaches the very luxon cron-parser uses and sets its
// defaults. Unset, luxon asks Intl for the system's locale at the first date it makes, and for the
// system's time zone when cron-parser is given no date (pg-boss gives none); that first
// Intl.DateTimeFormat maps ICU's locale and time zone data into the process: about 8 MB of RSS for
// its whole life, which a cron time never needs (a locale only names and parses, and every cron is
// read in a zone it names, so the default zone only picks how the same instant is first written).
import { createRequire } from 'node:module'
import type CronParser from 'cron-parser'

const requireCommonJs = createRequire(import.meta.url)

export const cronParser = requireCommonJs('cron-parser') as typeof CronParser

const luxon = createRequire(requireCommonJs.resolve('cron-parser'))('luxon') as { Settings: { defaultLocale: string; defaultZone: string } }
luxon.Settings.defaultLocale = 'en-US'
luxon.Settings.defaultZone = 'UTC'
