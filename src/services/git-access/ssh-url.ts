// The SSH clone URLs' prefix as presentation needs it now: from the configuration (port, host) and
// the enabled_git_access_protocol setting. Read without waiting, from the settings cache: the
// throttles read the settings as each request starts, so a route presenting finds them there.
import type { AppContext } from '../../context.js'
import { sshUrlPrefix } from '../../entities/common.js'
import { cachedApplicationSettings } from '../settings.js'

export function currentSshUrlPrefix(ctx: Pick<AppContext, 'config' | 'db'>): string | null {
  return sshUrlPrefix(ctx.config, cachedApplicationSettings(ctx.db)?.enabled_git_access_protocol ?? null)
}
