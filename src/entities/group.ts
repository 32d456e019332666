// Group entities (spec: Group):
//   Group         the group's own fields, `statistics` (admins, statistics=true) and `custom_attributes`
//   GroupDetail   + `projects` and `shared_projects` (full project form), unless with_projects=false
import { Type, type Static } from '@sinclair/typebox'
import type { NamespaceRow } from '../db/schema.js'
import { visibilityName } from '../policies/access-levels.js'
import { CustomAttribute, Nullable, NullableInteger, NullableString, type CustomAttributeEntity, type PresentContext } from './common.js'
import { Project, ProjectStatistics, presentProject, type ProjectView } from './project.js'

/** The project statistics summed over the group's projects, without commit counts. */
export const GroupStatistics = Type.Omit(ProjectStatistics, ['commit_count'])
export type GroupStatisticsEntity = Static<typeof GroupStatistics>

export const Group = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  path: Type.String(),
  description: Type.String(),
  visibility: Type.String(),
  lfs_enabled: Type.Boolean(),
  avatar_url: NullableString,
  web_url: Type.String(),
  request_access_enabled: Type.Boolean(),
  full_name: Type.String(),
  full_path: Type.String(),
  file_template_project_id: Nullable(Type.Integer()),
  parent_id: NullableInteger,
  custom_attributes: Type.Optional(Type.Array(CustomAttribute)),
  statistics: Type.Optional(GroupStatistics),
})
export type GroupEntity = Static<typeof Group>

export const GroupDetail = Type.Composite([Group, Type.Object({
  projects: Type.Optional(Type.Array(Project)),
  shared_projects: Type.Optional(Type.Array(Project)),
})])
export type GroupDetailEntity = Static<typeof GroupDetail>

/** A group with what its entity shows beyond the row, loaded in bulk by finders/groups-finder.ts. */
export interface GroupView {
  group: NamespaceRow
  /** Loaded only for statistics=true from an admin. */
  statistics: GroupStatisticsEntity | null
  /** Loaded only for with_custom_attributes=true from an admin. */
  customAttributes: CustomAttributeEntity[] | null
}

export interface GroupDetailView extends GroupView {
  /** The group's own and its shared projects visible to the caller; null when with_projects=false. */
  projects: ProjectView[] | null
  sharedProjects: ProjectView[] | null
}

export function groupWebUrl(group: Pick<NamespaceRow, 'full_path'>, ctx: PresentContext): string {
  return `${ctx.baseUrl}/groups/${group.full_path}`
}

export function presentGroup(view: GroupView, ctx: PresentContext): GroupEntity {
  const { group } = view
  return {
    id: group.id,
    name: group.name,
    path: group.path,
    description: group.description,
    visibility: visibilityName(group.visibility_level),
    lfs_enabled: group.lfs_enabled === 1,
    avatar_url: group.avatar_path === null ? null : `${ctx.baseUrl}/uploads/${group.avatar_path}`,
    web_url: groupWebUrl(group, ctx),
    request_access_enabled: group.request_access_enabled === 1,
    full_name: group.full_name,
    full_path: group.full_path,
    // Group file templates are a feature of the premium edition: never set here.
    file_template_project_id: null,
    parent_id: group.parent_id,
    custom_attributes: view.customAttributes ?? undefined,
    statistics: view.statistics ?? undefined,
  }
}

export function presentGroupDetail(view: GroupDetailView, ctx: PresentContext): GroupDetailEntity {
  return {
    ...presentGroup(view, ctx),
    ...(view.projects === null ? {} : { projects: view.projects.map((p) => presentProject(p, ctx)) }),
    ...(view.sharedProjects === null ? {} : { shared_projects: view.sharedProjects.map((p) => presentProject(p, ctx)) }),
  }
}
