// Project snippet entity, the original's Entities::ProjectSnippet of release 11.5 (the snippet's
// visibility is not shown), with `raw_url`, where its content is served as text.
import { Type, type Static } from '@sinclair/typebox'
import type { SnippetRow, UserRow } from '../db/schema.js'
import { isoTime } from '../db/values.js'
import { IsoDateTime, NullableString, type PresentContext } from './common.js'
import { UserBasic, presentUserBasic } from './user.js'

export const ProjectSnippet = Type.Object({
  id: Type.Integer(),
  title: Type.String(),
  file_name: Type.String(),
  description: NullableString,
  author: UserBasic,
  updated_at: IsoDateTime,
  created_at: IsoDateTime,
  project_id: Type.Integer(),
  web_url: Type.String(),
  raw_url: Type.String(),
})
export type ProjectSnippetEntity = Static<typeof ProjectSnippet>

export interface SnippetView {
  snippet: SnippetRow & { project_id: number }
  author: UserRow
  /** The project's path_with_namespace. */
  projectFullPath: string
}

export function presentProjectSnippet(view: SnippetView, ctx: PresentContext): ProjectSnippetEntity {
  const { snippet } = view
  const webUrl = `${ctx.baseUrl}/${view.projectFullPath}/snippets/${snippet.id}`
  return {
    id: snippet.id,
    title: snippet.title,
    file_name: snippet.file_name,
    description: snippet.description,
    author: presentUserBasic(view.author, ctx),
    updated_at: isoTime(snippet.updated_at),
    created_at: isoTime(snippet.created_at),
    project_id: snippet.project_id,
    web_url: webUrl,
    raw_url: `${webUrl}/raw`,
  }
}
