// Environment entities as the original 11.5's: EnvironmentBasic (id, name, slug, external_url)
// inside deployments, and Environment, which adds the project in its basic form, from the
// environments API.
import { Type, type Static } from '@sinclair/typebox'
import type { EnvironmentRow, NamespaceRow, ProjectRow } from '../db/schema.js'
import { NullableString, type PresentContext } from './common.js'
import { ProjectSimple, presentProjectSimple } from './project.js'

export const EnvironmentBasic = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  slug: Type.String(),
  external_url: NullableString,
})
export type EnvironmentBasicEntity = Static<typeof EnvironmentBasic>

export const Environment = Type.Composite([EnvironmentBasic, Type.Object({ project: ProjectSimple })])
export type EnvironmentEntity = Static<typeof Environment>

export function presentEnvironmentBasic(environment: EnvironmentRow): EnvironmentBasicEntity {
  return { id: environment.id, name: environment.name, slug: environment.slug, external_url: environment.external_url }
}

export function presentEnvironment(environment: EnvironmentRow, owner: { project: ProjectRow; namespace: NamespaceRow }, ctx: PresentContext): EnvironmentEntity {
  const project = presentProjectSimple({
    ...owner, owner: null, access: null, sharedWithGroups: [], statistics: null, customAttributes: null, forkedFrom: null,
  }, ctx)
  return { ...presentEnvironmentBasic(environment), project }
}
