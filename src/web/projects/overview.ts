// The project overview, `/<namespace…>/<project>`: name and description, stars, forks and (for
// those who may see them) statistics, the clone URLs the API gives (http_url_to_repo,
// ssh_url_to_repo), the default branch's last commit, its root files and README; an empty
// repository shows how to push a first commit instead.
import type { LoadedProject } from '../../api/load.js'
import type { ProjectRow } from '../../db/schema.js'
import { presentCtx } from '../../api/present.js'
import { openBlob } from '../../git/blob.js'
import type { GitRepository } from '../../git/repository.js'
import { readTree } from '../../git/tree.js'
import { presentProject, type ProjectEntity } from '../../entities/project.js'
import { loadProjectViews } from '../../finders/project-views.js'
import { canOnProject } from '../../policies/project-policy.js'
import { readmeAmong } from '../../services/projects/refresh-statistics.js'
import { html, page, textBlock, type SafeHtml } from '../html.js'
import { sendPage, tokenOf } from '../visit.js'
import { commitSummary } from './commit-summary.js'
import { pageUrl, projectChrome, projectUrl, type ProjectPage, type ProjectPageRequest } from './context.js'
import { hasStarred, starAndForkButtons } from './star-fork.js'
import { humanSize } from './blob.js'
import { isMarkdownFile, renderMarkdown } from '../markdown.js'
import { treeTable } from './tree.js'

function cloneUrls(entity: ProjectEntity): SafeHtml {
  const field = (id: string, label: string, url: string) => html`<label for="${id}">${label}</label>
<input type="text" id="${id}" value="${url}" readonly>`
  return html`<div class="clone">${field('http_url_to_repo', 'Clone with HTTP', entity.http_url_to_repo)}
${entity.ssh_url_to_repo === '' ? '' : field('ssh_url_to_repo', 'Clone with SSH', entity.ssh_url_to_repo)}</div>`
}

function statistics(entity: ProjectEntity): SafeHtml {
  const stats = entity.statistics
  return html`<ul class="stats">
<li>${entity.star_count} ${entity.star_count === 1 ? 'star' : 'stars'}</li>
<li>${entity.forks_count} ${entity.forks_count === 1 ? 'fork' : 'forks'}</li>
${stats === undefined ? '' : html`<li>${stats.commit_count} ${stats.commit_count === 1 ? 'commit' : 'commits'}</li>
<li>${humanSize(stats.repository_size)} repository</li>`}
</ul>`
}

function emptyRepository(entity: ProjectEntity): SafeHtml {
  return html`<section class="empty-repository">
<h2>The repository is empty</h2>
<p>Push an existing repository to it:</p>
<pre><code>git remote add origin ${entity.http_url_to_repo}
git push -u origin --all
git push -u origin --tags</code></pre>
</section>`
}

async function repositoryPart(loaded: LoadedProject, repo: GitRepository, entity: ProjectEntity): Promise<SafeHtml> {
  const ref = loaded.project.default_branch
  const commit = ref === null ? null : await repo.resolveCommit(ref)
  if (ref === null || commit === null) return emptyRepository(entity)
  const [entries, last] = await Promise.all([readTree(repo, commit, '', false), repo.readCommit(commit)])
  const readme = entries === null ? null : readmeAmong(entries)
  const readmeBlob = readme === null ? null : await openBlob(repo, readme.id)
  const readmeText = readmeBlob?.data?.toString('utf8') ?? null
  return html`<div class="box">
<header>${last === null ? '' : commitSummary(loaded, last)}<a href="${pageUrl(loaded, 'tree', ref)}">Browse files</a></header>
${treeTable(loaded, ref, '', entries ?? [])}
</div>
${readme === null || readmeText === null ? '' : html`<article class="box readme" aria-labelledby="readme-title">
<header><h2 id="readme-title"><a href="${pageUrl(loaded, 'blob', ref, readme.path)}">${readme.path}</a></h2></header>
<div class="content">${isMarkdownFile(readme.path)
    ? renderMarkdown(readmeText, { baseUrl: '', projectFullPath: entity.path_with_namespace, file: { ref, path: readme.path } })
    : html`<pre>${readmeText}</pre>`}</div>
</article>`}`
}

/** Whether an import is filling the project (its repository is empty until it is done). */
function importing(project: ProjectRow): boolean {
  return project.import_status === 'scheduled' || project.import_status === 'started'
}

/** While an import runs, and after one failed (why, to those who administer the project, as the API shows import_error). */
function importProgress(request: ProjectPageRequest): SafeHtml {
  const { project } = request.loaded
  if (importing(project)) {
    return html`<p class="notice" role="status">The project is being imported (${project.import_status}); reload this page to see when it is done.</p>`
  }
  if (project.import_status !== 'failed') return html``
  const why = canOnProject(request.req.actor, request.loaded, 'admin_project') ? project.import_error : null
  return html`<div class="alert" role="alert">The import failed${why === null ? '.' : html`: ${why}`}</div>`
}

const overviewPage: ProjectPage = async (request: ProjectPageRequest) => {
  const { req, reply, visit, loaded } = request
  const { db } = req.ingot
  const [view] = await loadProjectViews(db, req.actor, [loaded.project], { statistics: true }, { namespace: loaded.namespace, access: loaded.access })
  const entity = presentProject(view!, presentCtx(req))
  const canReadCode = canOnProject(req.actor, loaded, 'download_code')
  const [code, starred] = await Promise.all([
    canReadCode && !importing(loaded.project) ? repositoryPart(loaded, req.ingot.repositories.open(loaded.project.id), entity) : html``, hasStarred(request),
  ])
  return sendPage(reply, visit, 200, page({ title: entity.name_with_namespace, user: visit.session?.user ?? null, csrfToken: visit.session === null ? undefined : tokenOf(visit), wide: true }, projectChrome(req.actor, loaded, 'overview', html`
${importProgress(request)}
<div class="project-header">
<h1>${entity.name}</h1>
${entity.description ? html`<div class="description">${textBlock(entity.description)}</div>` : ''}
${statistics(entity)}
${starAndForkButtons(request, starred)}
<p><a href="${projectUrl(loaded)}/activity">Activity</a></p>
${canReadCode ? cloneUrls(entity) : ''}
</div>
${code}`)))
}

export default overviewPage
