// Access levels of members (spec: Member and access levels) and visibility levels.
import type { VisibilityLevel } from '../db/schema.js'

/** "No one": the level of a protected ref nobody may push to. */
export const NO_ACCESS_LEVEL = 0
export const GUEST = 10
export const REPORTER = 20
export const DEVELOPER = 30
export const MAINTAINER = 40
export const OWNER = 50

export const PROJECT_ACCESS_LEVELS = [GUEST, REPORTER, DEVELOPER, MAINTAINER] as const
export const GROUP_ACCESS_LEVELS = [GUEST, REPORTER, DEVELOPER, MAINTAINER, OWNER] as const

export const PRIVATE: VisibilityLevel = 0
export const INTERNAL: VisibilityLevel = 10
export const PUBLIC: VisibilityLevel = 20

export type Visibility = 'private' | 'internal' | 'public'
export const VISIBILITIES: readonly Visibility[] = ['private', 'internal', 'public']

const LEVEL_OF: Record<Visibility, VisibilityLevel> = { private: PRIVATE, internal: INTERNAL, public: PUBLIC }

export function visibilityLevel(visibility: Visibility): VisibilityLevel {
  return LEVEL_OF[visibility]
}

export function visibilityName(level: number): Visibility {
  return level >= PUBLIC ? 'public' : level >= INTERNAL ? 'internal' : 'private'
}

/** Notification level numbers shown in `permissions` (the member default is `global`). */
export const NOTIFICATION_LEVEL_GLOBAL = 3
