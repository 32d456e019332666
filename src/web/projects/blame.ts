// The blame page, `/blame/<ref…>/<path…>`: a file's lines, numbered and anchored as on its page and
// highlighted the same way, in runs by the commit that last changed them, each run headed by that
// commit (its short id linking to its page, its summary, author and date).
import { looksBinary } from '../../git/blob.js'
import { blameFile } from '../../git/blame.js'
import { canOnProject } from '../../policies/project-policy.js'
import { highlightLines } from '../highlight.js'
import { SafeHtml, escapeHtml, html, page } from '../html.js'
import { sendNotFound, sendPage } from '../visit.js'
import { commitUrl } from './commit.js'
import { breadcrumbs, pageUrl, projectChrome, refAndPath, type ProjectPage } from './context.js'

/** Files above this size are not blamed here (the raw file and the history are linked instead). */
const MAX_BLAMED_BYTES = 1024 * 1024

const blamePage: ProjectPage = async (request) => {
  const { req, reply, visit, loaded, rest } = request
  if (!canOnProject(req.actor, loaded, 'download_code')) return sendNotFound(reply, visit)
  const repo = req.ingot.repositories.open(loaded.project.id)
  const target = await refAndPath(repo, rest)
  const info = target === null || target.path === '' ? null : await repo.info(`${target.commit}:${target.path}`)
  if (target === null || info === null || info.type !== 'blob') return sendNotFound(reply, visit)
  const { ref, commit, path } = target
  const name = path.slice(path.lastIndexOf('/') + 1)
  const chrome = (body: SafeHtml) => sendPage(reply, visit, 200, page({ title: `Blame ${path} · ${loaded.project.name}`, user: visit.session?.user ?? null, wide: true },
    projectChrome(req.actor, loaded, 'files', html`<h1>Blame ${name}</h1>
${breadcrumbs(loaded, ref, path)}
<ul class="actions"><li><a href="${pageUrl(loaded, 'blob', ref, path)}">Normal view</a></li><li><a href="${pageUrl(loaded, 'commits', ref, path)}">History</a></li></ul>
${body}`)))
  const object = info.size > MAX_BLAMED_BYTES ? null : await repo.read(info.oid)
  const runs = object === null || looksBinary(object.data) ? null : await blameFile(repo, commit, path)
  if (object === null || runs === null) return chrome(html`<p class="muted">This file is too large or not text: <a href="${pageUrl(loaded, 'raw', ref, path)}">view it raw</a>.</p>`)
  const lines = highlightLines(info.oid, path, object.data.toString('utf8'))
  const rows: string[] = []
  for (const run of runs) {
    const date = new Date(run.commit.authorTime * 1000).toISOString().slice(0, 10)
    const heading = `<td class="blame-commit" rowspan="${run.lines.length}"><a class="mono" href="${escapeHtml(commitUrl(request, run.commit.id))}">${run.commit.id.slice(0, 8)}</a> ${escapeHtml(run.commit.summary)}<br><span class="muted">${escapeHtml(run.commit.author)}, ${date}</span>`
    run.lines.forEach((_, i) => {
      const number = run.firstLine + i
      rows.push(`<tr id="L${number}">${i === 0 ? heading : ''}<td class="line-number"><a href="#L${number}">${number}</a><td>${lines[number - 1]?.markup ?? ''}`)
    })
  }
  return chrome(html`<div class="box"><div class="blob-wrap"><table class="code highlight blame"><tbody>${new SafeHtml(rows.join(''))}</tbody></table></div></div>`)
}

export default blamePage
