// Project snippets (the original's SnippetsFinder for a project): those the caller may see, newest
// first, as snippet-rules says — members and admins see all, others the public ones, internal
// ones unless they are external, and their own.
import { sql, type Expression, type SqlBool } from 'kysely'
import type { Actor } from '../auth/actor.js'
import type { Db } from '../db/index.js'
import type { SnippetView } from '../entities/snippet.js'
import { INTERNAL, PUBLIC } from '../policies/access-levels.js'
import { canOnProject, type ProjectSubject } from '../policies/project-policy.js'
import { readsAllSnippets } from '../services/snippets/snippet-rules.js'
import { asProjectSnippet, type ProjectSnippetRow } from '../services/snippets/snippets.js'
import { grantedProject } from './access.js'
import { usersById } from './rows.js'

/** The project's snippets the caller may see: none where its snippets cannot be read at all. */
export function findProjectSnippets(db: Db, actor: Actor | null, subject: ProjectSubject) {
  const query = db.selectFrom('snippets').selectAll()
    .where('project_id', '=', subject.project.id)
    .$narrowType<{ project_id: number }>()
    .orderBy('created_at', 'desc').orderBy('id', 'desc')
  if (!canOnProject(actor, subject, 'read_snippet')) return query.where(sql<SqlBool>`1 = 0`)
  if (readsAllSnippets(actor, subject)) return query
  if (actor === null) return query.where('visibility_level', '>=', PUBLIC)
  const openLevel = actor.user.external === 1 ? PUBLIC : INTERNAL
  return query.where((eb) => eb.or([eb('visibility_level', '>=', openLevel), eb('author_id', '=', actor.user.id)]))
}

/**
 * The condition "the caller may see this snippet row", on top of its project's read_snippet, as
 * canReadSnippet decides: public ones by every reader, internal ones by signed-in users who are not
 * external, all by their author, the project's members and admins. For lists spanning projects.
 */
export async function snippetVisibleTo(db: Db, actor: Actor | null, snippets: string): Promise<Expression<SqlBool>> {
  const level = sql.ref(`${snippets}.visibility_level`)
  if (actor === null) return sql<SqlBool>`${level} >= ${PUBLIC}`
  if (actor.user.admin === 1) return sql<SqlBool>`1 = 1`
  const openLevel = actor.user.external === 1 ? PUBLIC : INTERNAL
  return sql<SqlBool>`(${level} >= ${openLevel} or ${sql.ref(`${snippets}.author_id`)} = ${actor.user.id}
    or ${await grantedProject(db, actor.user.id, `${snippets}.project_id`)})`
}

export async function findProjectSnippet(db: Db, projectId: number, snippetId: number): Promise<ProjectSnippetRow | null> {
  const row = await db.selectFrom('snippets').selectAll()
    .where('project_id', '=', projectId).where('id', '=', snippetId).executeTakeFirst()
  return row === undefined ? null : asProjectSnippet(row)
}

/** Snippets of one project with their authors, loaded in one query; `projectFullPath` builds their URLs. */
export async function loadSnippetViews(db: Db, snippets: readonly ProjectSnippetRow[], projectFullPath: string): Promise<SnippetView[]> {
  const authors = await usersById(db, [...new Set(snippets.map((snippet) => snippet.author_id))])
  return snippets.flatMap((snippet) => {
    const author = authors.get(snippet.author_id)
    return author === undefined ? [] : [{ snippet, author, projectFullPath }]
  })
}
