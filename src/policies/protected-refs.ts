// Protected branches and tags (spec: Branches, Protected tags): which rules match a ref, and who
// may push, merge, force-push, delete or create under them. Used by the push path (every transport)
// and by the branch and tag endpoints, so both decide alike.
import type { ProtectedBranchRow, ProtectedTagRow } from '../db/schema.js'
import { DEVELOPER, MAINTAINER, NO_ACCESS_LEVEL } from './access-levels.js'
import { matchesWildcard } from '../wildcard.js'

/** The rules whose name matches: itself, or with `*` matching any text in its place. */
export function matchingRules<Rule extends { name: string }>(rules: readonly Rule[], name: string): Rule[] {
  return rules.filter((rule) => matchesWildcard(rule.name, name))
}

/**
 * Whether a caller at `accessLevel` passes one of the rules' levels (any one suffices). Admins pass
 * every level but "no one" (0).
 */
function passesAny(levels: readonly number[], accessLevel: number, admin: boolean): boolean {
  return levels.some((level) => level !== NO_ACCESS_LEVEL && (admin || accessLevel >= level))
}

/** Pushing (not forcing) to a branch: Developer on an unprotected one, else as its rules allow. */
export function canPushToBranch(rules: readonly ProtectedBranchRow[], branch: string, accessLevel: number, admin: boolean): boolean {
  const matching = matchingRules(rules, branch)
  if (matching.length === 0) return admin || accessLevel >= DEVELOPER
  return passesAny(matching.map((rule) => rule.push_access_level), accessLevel, admin)
}

/** Merging into a branch (merge requests): Developer on an unprotected one, else as its rules allow. */
export function canMergeToBranch(rules: readonly ProtectedBranchRow[], branch: string, accessLevel: number, admin: boolean): boolean {
  const matching = matchingRules(rules, branch)
  if (matching.length === 0) return admin || accessLevel >= DEVELOPER
  return passesAny(matching.map((rule) => rule.merge_access_level), accessLevel, admin)
}

/** Force-pushing to or deleting a branch: nobody on a protected branch, Developer elsewhere. */
export function canRewriteBranch(rules: readonly ProtectedBranchRow[], branch: string, accessLevel: number, admin: boolean): boolean {
  return matchingRules(rules, branch).length === 0 && (admin || accessLevel >= DEVELOPER)
}

/** Creating a tag: Developer for an unprotected one, else as its rules allow. */
export function canCreateTag(rules: readonly ProtectedTagRow[], tag: string, accessLevel: number, admin: boolean): boolean {
  const matching = matchingRules(rules, tag)
  if (matching.length === 0) return admin || accessLevel >= DEVELOPER
  return passesAny(matching.map((rule) => rule.create_access_level), accessLevel, admin)
}

/** Deleting a tag: Developer for an unprotected one, Maintainer for a protected one (as the original). */
export function canDeleteTag(rules: readonly ProtectedTagRow[], tag: string, accessLevel: number, admin: boolean): boolean {
  const needed = matchingRules(rules, tag).length === 0 ? DEVELOPER : MAINTAINER
  return admin || accessLevel >= needed
}

/** Moving an existing tag to another object: never for a protected one, Developer elsewhere. */
export function canMoveTag(rules: readonly ProtectedTagRow[], tag: string, accessLevel: number, admin: boolean): boolean {
  return matchingRules(rules, tag).length === 0 && (admin || accessLevel >= DEVELOPER)
}

/** `access_level_description` of a protected ref's level. */
export function accessLevelDescription(level: number): string {
  if (level === NO_ACCESS_LEVEL) return 'No one'
  if (level === DEVELOPER) return 'Developers + Maintainers'
  if (level === MAINTAINER) return 'Maintainers'
  return 'Admins'
}

/**
 * The protection the default branch of a new project gets on its first push, from the
 * `default_branch_protection` setting: 0 none, 1 Developers may push and merge (nobody forces or
 * deletes), 2 only Maintainers push and merge.
 */
export function defaultBranchProtection(setting: number): { push_access_level: number; merge_access_level: number } | null {
  if (setting === 1) return { push_access_level: DEVELOPER, merge_access_level: DEVELOPER }
  if (setting === 2) return { push_access_level: MAINTAINER, merge_access_level: MAINTAINER }
  return null
}
