// GitLab-flavoured Markdown: each feature of the original's flavour, references linked by shape to
// the original's URLs, relative links in a repository's files, and the sanitizer against hostile
// input (scripts, event handlers, javascript: URLs in every disguise, style attributes).
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { renderMarkdown, type MarkdownContext } from '../../src/web/markdown.js'

const BASE = 'https://ingot.test'
const IN_PROJECT: MarkdownContext = { baseUrl: BASE, projectFullPath: 'grp/proj' }

function render(text: string, context: MarkdownContext = IN_PROJECT): string {
  return renderMarkdown(text, context).markup
}

/** The links of some markup, as [href, text] pairs. */
function links(markup: string): [string, string][] {
  return [...markup.matchAll(/<a [^>]*?href="([^"]*)"[^>]*>(.*?)<\/a>/g)].map((m) => [m[1]!.replace(/&amp;/g, '&'), m[2]!])
}

describe('Markdown: the flavour', () => {
  it('renders CommonMark with tables aligned by class, strikethrough and line breaks as the original', () => {
    const out = render('*em* **strong** ~~gone~~\nsame paragraph\n\n| a | b | c |\n|:--|:-:|--:|\n| 1 | 2 | 3 |\n')
    assert.match(out, /<p><em>em<\/em> <strong>strong<\/strong> <s>gone<\/s>\nsame paragraph<\/p>/)
    assert.match(out, /<th class="text-left">a<\/th>\s*<th class="text-center">b<\/th>\s*<th class="text-right">c<\/th>/)
    assert.match(out, /<td class="text-right">3<\/td>/)
    assert.doesNotMatch(out, /style=/)
  })

  it('renders task lists as disabled checkboxes', () => {
    const out = render('- [ ] todo\n- [x] done\n- [X] also done\n- not a task\n- [a] nor this\n')
    assert.match(out, /<ul class="task-list">/)
    assert.match(out, /<li class="task-list-item"><input type="checkbox" class="task-list-item-checkbox" disabled(="")? aria-label="Task" \/>todo<\/li>/)
    assert.equal(out.match(/ checked/g)?.length, 2)
    assert.equal(out.match(/<input /g)?.length, 3)
    assert.match(out, /<li>\[a\] nor this<\/li>/)
    // Loose lists too, and ordered ones.
    assert.match(render('1. [x] first\n\n2. [ ] second\n'), /<ol class="task-list">\s*<li class="task-list-item">\s*<p><input [^>]*checked/)
  })

  it('highlights fenced code on the server, and escapes a fence in an unknown language', () => {
    const out = render('```ruby\ndef f\n  "<&>"\nend\n```\n\n```no-such-lang\n<b>x</b>\n```\n')
    assert.match(out, /<pre class="code highlight"><code class="language-ruby"><span class="hljs-keyword">def<\/span>/)
    assert.match(out, /<span class="hljs-string">"&lt;&amp;&gt;"<\/span>/)
    assert.match(out, /<pre><code class="language-no-such-lang">&lt;b&gt;x&lt;\/b&gt;\n<\/code><\/pre>/)
  })

  it('autolinks URLs with a scheme and e-mail addresses, but not file names', () => {
    const out = render('See https://example.com/a?b=1 or write to me@example.com about README.md and main.rs')
    assert.deepEqual(links(out), [['https://example.com/a?b=1', 'https://example.com/a?b=1'], ['mailto:me@example.com', 'me@example.com']])
  })

  it('turns emoji shortcodes into emoji, but not text smileys', () => {
    assert.equal(render(':smile: :+1: :no_such_emoji: :) 8-)'), '<p>😄 👍 :no_such_emoji: :) 8-)</p>\n')
    assert.equal(render('`:smile:`'), '<p><code>:smile:</code></p>\n')
  })

  it('anchors headings with the original ids: prefixed, punctuation dropped, repeats numbered, digits kept apart', () => {
    const out = render('# Hello, World!\n## Hello World\n## Hello world\n### 123\n#### Ünïcode `code` — dash\n')
    const anchors = [...out.matchAll(/<a id="([^"]*)" class="anchor" href="([^"]*)" aria-hidden="true" tabindex="-1"><\/a>/g)].map((m) => [m[1], m[2]])
    assert.deepEqual(anchors, [
      ['user-content-hello-world', '#hello-world'],
      ['user-content-hello-world-1', '#hello-world-1'],
      ['user-content-hello-world-2', '#hello-world-2'],
      ['user-content-anchor-123', '#anchor-123'],
      ['user-content-ünïcode-code-dash', '#ünïcode-code-dash'],
    ])
    // Each document numbers its own repeats.
    assert.match(render('# Hello World\n'), /id="user-content-hello-world"/)
  })

  it("keeps GFM's harmless inline HTML", () => {
    const out = render('<details open><summary>More</summary>\n\nPress <kbd>Ctrl</kbd>+<kbd>C</kbd>, H<sub>2</sub>O, x<sup>2</sup><br>next\n\n</details>\n')
    assert.match(out, /<details open(="")?><summary>More<\/summary>/)
    assert.match(out, /Press <kbd>Ctrl<\/kbd>\+<kbd>C<\/kbd>, H<sub>2<\/sub>O, x<sup>2<\/sup><br \/>next/)
    assert.match(out, /<\/details>/)
  })
})

describe('Markdown: references', () => {
  it("links every kind to the original's URLs", () => {
    const out = render('#12 !45 @alice @grp/sub abc1234f ~bug ~"two words" %v1.0 %"big one" %3 grp/other#5 grp/sub/other!6 grp/other@1a2b3c4d5 grp/other~bug')
    assert.deepEqual(links(out), [
      [`${BASE}/grp/proj/issues/12`, '#12'],
      [`${BASE}/grp/proj/merge_requests/45`, '!45'],
      [`${BASE}/alice`, '@alice'],
      [`${BASE}/grp/sub`, '@grp/sub'],
      [`${BASE}/grp/proj/commit/abc1234f`, 'abc1234f'],
      [`${BASE}/grp/proj/issues?label_name=bug`, '~bug'],
      [`${BASE}/grp/proj/issues?label_name=two%20words`, '~"two words"'],
      [`${BASE}/grp/proj/milestones?title=v1.0`, '%v1.0'],
      [`${BASE}/grp/proj/milestones?title=big%20one`, '%"big one"'],
      [`${BASE}/grp/proj/milestones/3`, '%3'],
      [`${BASE}/grp/other/issues/5`, 'grp/other#5'],
      [`${BASE}/grp/sub/other/merge_requests/6`, 'grp/sub/other!6'],
      [`${BASE}/grp/other/commit/1a2b3c4d5`, 'grp/other@1a2b3c4d'],
      [`${BASE}/grp/other/issues?label_name=bug`, 'grp/other~bug'],
    ])
    assert.match(out, /<a href="[^"]*\/issues\/12" class="gfm gfm-issue">/)
  })

  it('shows a commit by its short id and links ranges to the compare page', () => {
    const sha = '0123456789abcdef0123456789abcdef01234567'
    assert.deepEqual(links(render(`${sha} 1a2b3c4...5d6e7f8 1a2b3c4..5d6e7f8`)), [
      [`${BASE}/grp/proj/commit/${sha}`, '01234567'],
      [`${BASE}/grp/proj/compare/1a2b3c4...5d6e7f8`, '1a2b3c4...5d6e7f8'],
      [`${BASE}/grp/proj/compare/1a2b3c4^...5d6e7f8`, '1a2b3c4..5d6e7f8'],
    ])
  })

  it('leaves alone what only looks like a reference', () => {
    const out = render('deadbeef facade 20181122 abc1234.txt abc12345678901234567890123456789012345678901 a@b issue#12 C#1 x!2 ~12 50%off 100% ~/.bashrc \\#13 \\@bob')
    assert.deepEqual(links(out), [])
  })

  it('links nothing inside code spans, code blocks or links', () => {
    const out = render('`#1 @a` <code>#2</code> <kbd>#3</kbd> [see #4](https://x.test) <a href="https://y.test">#5 @b</a> https://z.test/#6\n\n    #7 indented\n\n```\n#8 fenced @c\n```\n')
    assert.deepEqual(links(out).map(([href]) => href), ['https://x.test', 'https://y.test', 'https://z.test/#6'])
  })

  it("links @all to the project's members, and to nothing outside a project", () => {
    assert.deepEqual(links(render('@all')), [[`${BASE}/grp/proj/project_members`, '@all']])
    assert.deepEqual(links(render('@all', { baseUrl: BASE })), [])
  })

  it('links no project references outside a project, but still users', () => {
    assert.deepEqual(links(render('#1 !2 ~bug %v1 abc1234f @alice', { baseUrl: BASE })), [[`${BASE}/alice`, '@alice']])
  })

  it('makes paths only when the base URL is empty', () => {
    assert.deepEqual(links(render('#7', { baseUrl: '', projectFullPath: 'g/p' })), [['/g/p/issues/7', '#7']])
    // In a repository file, root-relative links of the text are repository paths; references' links are not.
    const file = { baseUrl: '', projectFullPath: 'g/p', file: { ref: 'main', path: 'docs/README.md' } }
    assert.deepEqual(links(render('#7 [root](/LICENSE) @ann', file)), [['/g/p/issues/7', '#7'], ['/g/p/blob/main/LICENSE', 'root'], ['/ann', '@ann']])
  })

  it('stops linking after 2,000 references', () => {
    const out = render('#1 '.repeat(2_500))
    assert.equal(out.match(/<a /g)?.length, 2_000)
  })
})

describe("Markdown: links in a repository's files, a wiki and comments", () => {
  const README: MarkdownContext = { ...IN_PROJECT, file: { ref: 'feature/x', path: 'docs/README.md' } }

  it('resolves relative links to blob (or tree) URLs and images to raw URLs at the ref', () => {
    const out = render('[a](guide.md) [b](../LICENSE#l2) [c](/top.md?plain=1) [d](sub/) [e](../../../../etc/passwd) [f](#section) ![i](img/logo.png)', README)
    assert.deepEqual(links(out).map(([href]) => href), [
      `${BASE}/grp/proj/blob/feature/x/docs/guide.md`,
      `${BASE}/grp/proj/blob/feature/x/LICENSE#l2`,
      `${BASE}/grp/proj/blob/feature/x/top.md?plain=1`,
      `${BASE}/grp/proj/tree/feature/x/docs/sub/`,
      `${BASE}/grp/proj/blob/feature/x/etc/passwd`,
      '#section',
    ])
    assert.match(out, new RegExp(`<img src="${BASE}/grp/proj/raw/feature/x/docs/img/logo.png" alt="i" />`))
    // Raw HTML too.
    assert.match(render('<img src="shot.png" alt="s">', README), /src="https:\/\/ingot.test\/grp\/proj\/raw\/feature\/x\/docs\/shot.png"/)
  })

  it('points relative links of a wiki page at other wiki pages', () => {
    assert.deepEqual(links(render('[home](home) [api](api/intro)', { ...IN_PROJECT, wiki: true })).map(([href]) => href), [
      `${BASE}/grp/proj/wikis/home`, `${BASE}/grp/proj/wikis/api/intro`,
    ])
  })

  it("points uploads at the project's uploads and leaves other relative links of a comment alone", () => {
    const out = render('![shot](/uploads/0123abcd/shot.png) [x](other/page)')
    assert.match(out, /<img src="https:\/\/ingot.test\/grp\/proj\/uploads\/0123abcd\/shot.png" alt="shot" \/>/)
    assert.deepEqual(links(out).map(([href]) => href), ['other/page'])
  })

  it('marks links to other sites nofollow noreferrer noopener, and only those', () => {
    const out = render(`[out](https://elsewhere.test/x) [protocol-relative](//elsewhere.test/) [in](${BASE}/grp/proj) #1 <a href="https://e.test" rel="opener">raw</a> <a href="/x" rel="opener">own</a>`)
    const rels = [...out.matchAll(/<a ([^>]*)>/g)].map((m) => /rel="([^"]*)"/.exec(m[1]!)?.[1] ?? null)
    assert.deepEqual(rels, ['nofollow noreferrer noopener', 'nofollow noreferrer noopener', null, null, 'nofollow noreferrer noopener', null])
  })
})

describe('Markdown: hostile input', () => {
  /** No element, attribute or URL that runs code or needs the CSP to allow inline styles. */
  function assertInert(out: string): void {
    assert.doesNotMatch(out, /<(script|style|iframe|object|embed|svg|math|form|textarea|link|meta|base)\b/i)
    assert.doesNotMatch(out, /\son\w+\s*=/i)
    assert.doesNotMatch(out, /\sstyle\s*=/i)
    assert.doesNotMatch(out, /(href|src)\s*=\s*"\s*(javascript|vbscript|data):/i)
    assert.doesNotMatch(out, /\ssrcset\s*=/i)
  }

  it('drops scripts and styles with their content, and event handlers', () => {
    const out = render('<script>alert(1)</script>\n\n<style>body{display:none}</style>\n\nhi <img src="https://x.test/a.png" onerror="alert(1)"> <b onclick="alert(1)" onmouseover=alert(1)>b</b>\n<svg onload=alert(1)><circle/></svg><iframe src="https://x.test"></iframe>')
    assertInert(out)
    assert.doesNotMatch(out, /alert|display:none/)
    assert.match(out, /<img src="https:\/\/x.test\/a.png" \/>/)
    assert.match(out, /<b>b<\/b>/)
  })

  it('refuses javascript: URLs in Markdown links, autolinks, reference links and raw HTML, however disguised', () => {
    const attempts = [
      '[x](javascript:alert(1))',
      '[x](JaVaScRiPt:alert(1))',
      '<javascript:alert(1)>',
      '[x][r]\n\n[r]: javascript:alert(1)',
      '![x](javascript:alert(1))',
      '<a href="javascript:alert(1)">x</a>',
      '<a href="jav&#x09;ascript:alert(1)">x</a>',
      '<a href="jav&#9;ascript:alert(1)">x</a>',
      '<a href="&#106;avascript:alert(1)">x</a>',
      '<a href=" javascript:alert(1)">x</a>',
      '<a href="java\nscript:alert(1)">x</a>',
      '<a href="vbscript:msgbox(1)">x</a>',
      '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>',
      '<img src="data:image/png;base64,iVBORw0KGgo=">',
      '![x](data:image/png;base64,iVBORw0KGgo=)',
      '<img src="javascript:alert(1)">',
      '<a href="javascript&colon;alert(1)">x</a>',
    ]
    for (const attempt of attempts) {
      const out = render(attempt)
      assertInert(out)
      assert.doesNotMatch(out, /href="[^"]*script|src="[^"]*(script|data:)/i, `${attempt} → ${out}`)
    }
  })

  it('drops style attributes, unknown attributes and forms, and forces ids under the user-content prefix', () => {
    const out = render('<p style="color:red" class="evil" data-x="1" id="csrf-token" name="cookie">p</p><form action="/x"><input name="q"><input type="checkbox" checked><button>go</button></form>')
    assertInert(out)
    assert.match(out, /<p id="user-content-csrf-token">p<\/p>/)
    assert.doesNotMatch(out, /class="evil"|data-x|name=/)
    assert.match(out, /<input type="checkbox" checked(="")? disabled(="")? \/>/)
    assert.equal(out.match(/<input/g)?.length, 1)
  })

  it('closes nested and broken HTML', () => {
    const out = render('<div><b><i>unclosed\n\n</div></b> <a href="https://x.test"><a href="https://y.test">nested</a> <details><summary>s</summary>')
    assertInert(out)
    const opened = (out.match(/<(div|b|i|a|details|summary)\b/g) ?? []).length
    const closed = (out.match(/<\/(div|b|i|a|details|summary)>/g) ?? []).length
    assert.equal(opened, closed, out)
  })

  it('escapes text that looks like markup in references and headings', () => {
    const out = render('# <img src=x onerror=alert(1)> "quoted" & <b>bold</b>\n\n~"x < y" %"a&b"')
    assertInert(out)
    assert.match(out, /label_name=x%20%3C%20y" class="gfm gfm-label">~"x &lt; y"<\/a>/)
    assert.match(out, /title=a%26b" class="gfm gfm-milestone">%"a&amp;b"<\/a>/)
  })

  it('renders a 1 MB line in bounded time, whatever the reference patterns meet in it', () => {
    // Each would go quadratic with a pattern that rescans from every start, or link 350,000 references.
    for (const line of ['a'.repeat(1 << 20), 'a/'.repeat(1 << 19), '%.'.repeat(1 << 19), '#1 '.repeat(350_000)]) {
      const started = performance.now()
      const out = render(line)
      assert.ok(out.length >= line.length / 2)
      assert.ok(performance.now() - started < 10_000, `${line.slice(0, 6)}… took ${performance.now() - started} ms`)
    }
  })
})

describe('Markdown: the cache', () => {
  it('serves a text rendered before in the same context, and renders it anew in another', () => {
    const text = `cached ${Math.random()} #1`
    const first = renderMarkdown(text, IN_PROJECT)
    assert.equal(renderMarkdown(text, IN_PROJECT), first)
    const elsewhere = renderMarkdown(text, { baseUrl: BASE, projectFullPath: 'grp/other' })
    assert.notEqual(elsewhere, first)
    assert.match(elsewhere.markup, /grp\/other\/issues\/1/)
  })
})
