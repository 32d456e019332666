// Server-side highlighting: the language a file's name tells, lines that are well-formed markup on
// their own when a token spans several, escaping, the size limit and the cache's bound.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { highlightCode, highlightLines, languageForPath, LineHighlighter, splitHighlightedLines } from '../../src/web/highlight.js'

/** The text a line of markup shows. */
function textOf(markup: string): string {
  return markup.replace(/<[^>]*>/g, '').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#x27;|&#39;/g, "'").replace(/&amp;/g, '&')
}

/** Whether every span a line opens it also closes, in order. */
function balanced(markup: string): boolean {
  let depth = 0
  for (const tag of markup.match(/<\/?span\b/g) ?? []) {
    depth += tag === '<span' ? 1 : -1
    if (depth < 0) return false
  }
  return depth === 0
}

describe('Highlighting: the language of a file', () => {
  it('is told by the extension, the whole file name, or the shebang line, and never guessed', () => {
    assert.equal(languageForPath('src/app.ts'), 'typescript')
    assert.equal(languageForPath('lib/x.RB'), 'ruby')
    assert.equal(languageForPath('a/b/c.yml'), 'yaml')
    assert.equal(languageForPath('main.rs'), 'rust')
    assert.equal(languageForPath('index.mjs'), 'javascript')
    assert.equal(languageForPath('page.htm'), 'xml')
    assert.equal(languageForPath('Dockerfile'), 'dockerfile')
    assert.equal(languageForPath('sub/Makefile'), 'makefile')
    assert.equal(languageForPath('Gemfile'), 'ruby')
    assert.equal(languageForPath('bin/run', '#!/usr/bin/env python3\nprint(1)\n'), 'python')
    assert.equal(languageForPath('bin/run', '#!/bin/sh\necho hi\n'), 'bash')
    assert.equal(languageForPath('notes', 'def f(): pass\n'), undefined)
    assert.equal(languageForPath('archive.xyz'), undefined)
    assert.equal(languageForPath('.hidden'), undefined)
  })
})

describe('Highlighting: lines', () => {
  it('closes the spans of a multi-line comment and string at each line end and reopens them on the next', () => {
    const content = 'const a = 1 /* one\n   two\n   three */ + 2\nconst s = `x\ny ${a}\nz`\n'
    const lines = highlightLines('blob-multi', 'x.js', content)
    assert.equal(lines.length, 6)
    for (const line of lines) assert.ok(balanced(line.markup), line.markup)
    assert.deepEqual(lines.map((line) => textOf(line.markup)), content.split('\n').slice(0, 6))
    assert.match(lines[1]!.markup, /^<span class="hljs-comment">   two<\/span>$/)
    assert.match(lines[2]!.markup, /^<span class="hljs-comment">   three \*\/<\/span>/)
    assert.match(lines[4]!.markup, /^<span class="hljs-string">y <span class="hljs-subst">\$\{a\}<\/span><\/span>$/)
  })

  it('reopens nested spans in their order', () => {
    const lines = splitHighlightedLines('<span class="a">1<span class="b">2\n3</span>4\n5</span>6')
    assert.deepEqual(lines, [
      '<span class="a">1<span class="b">2</span></span>',
      '<span class="a"><span class="b">3</span>4</span>',
      '<span class="a">5</span>6',
    ])
  })

  it('escapes < and & in code, highlighted or not', () => {
    const js = highlightLines('blob-escape-js', 'x.js', 'if (a < b && c > "<script>") {}\n')
    assert.equal(textOf(js[0]!.markup), 'if (a < b && c > "<script>") {}')
    assert.doesNotMatch(js[0]!.markup, /<script|&&|a < b/)
    const plain = highlightLines('blob-escape-txt', 'notes.unknown', '<b>bold</b> & "q"\n')
    assert.equal(plain[0]!.markup, '&lt;b&gt;bold&lt;/b&gt; &amp; &quot;q&quot;')
  })

  it('counts lines as an editor does: a final line break ends the last line, CRLF is one break', () => {
    assert.equal(highlightLines('blob-crlf', 'x.py', 'a = 1\r\nb = 2\r\n').length, 2)
    assert.equal(highlightLines('blob-no-final', 'x.py', 'a = 1\nb = 2').length, 2)
    assert.equal(highlightLines('blob-blank', 'x.py', 'a = 1\n\n\n').length, 3)
    assert.equal(highlightLines('blob-empty', 'x.py', '').length, 0)
  })

  it('shows a file above the size limit escaped, without highlighting', () => {
    const highlighter = new LineHighlighter({ maxHighlightedChars: 100 })
    const small = highlighter.highlightLines('small', 'x.js', 'const a = "<"\n')
    assert.match(small[0]!.markup, /hljs-keyword/)
    const big = highlighter.highlightLines('big', 'x.js', `const a = "<"\n${'// filler\n'.repeat(20)}`)
    assert.equal(big.length, 21)
    assert.equal(big[0]!.markup, 'const a = &quot;&lt;&quot;')
    assert.equal(highlighter.cachedChars, small.reduce((sum, line) => sum + line.markup.length + 48, 0))
  })

  it('survives a 1 MB line', () => {
    const line = `var x = "${'a<&'.repeat(349_000)}"`
    const [only] = new LineHighlighter({ maxHighlightedChars: 2 * 1024 * 1024 }).highlightLines('long', 'x.js', line)
    assert.equal(textOf(only!.markup), line)
  })
})

describe('Highlighting: the cache', () => {
  it('serves a blob it highlighted from the cache, frozen, and keys it by language too', () => {
    const highlighter = new LineHighlighter()
    const first = highlighter.highlightLines('blob-1', 'a.rb', 'puts 1\n')
    assert.equal(highlighter.highlightLines('blob-1', 'a.rb', 'puts 1\n'), first)
    assert.ok(Object.isFrozen(first))
    assert.notEqual(highlighter.highlightLines('blob-1', 'a.py', 'puts 1\n'), first)
  })

  it('stays within its bound in characters, evicting the least recently used', () => {
    const highlighter = new LineHighlighter({ maxCacheChars: 4_000 })
    const content = 'const value = 1 // a line of some length\n'.repeat(10)
    const a = highlighter.highlightLines('a', 'x.js', content)
    const weight = highlighter.cachedChars
    assert.ok(weight > 1_500 && weight < 2_000, `one entry weighs ${weight}`)
    const b = highlighter.highlightLines('b', 'x.js', content)
    assert.equal(highlighter.highlightLines('a', 'x.js', content), a) // a is now the most recent
    highlighter.highlightLines('c', 'x.js', content)
    assert.equal(highlighter.cachedChars, 2 * weight)
    assert.equal(highlighter.highlightLines('a', 'x.js', content), a)
    assert.notEqual(highlighter.highlightLines('b', 'x.js', content), b, 'the least recently used went first')
    // One file heavier than the whole bound is highlighted but not kept.
    const huge = highlighter.highlightLines('huge', 'x.js', content.repeat(20))
    assert.notEqual(highlighter.highlightLines('huge', 'x.js', content.repeat(20)), huge)
    assert.ok(highlighter.cachedChars <= 4_000)
  })
})

describe('Highlighting: Markdown fences', () => {
  it('highlights by a language name or alias, and knows none it has not registered', () => {
    assert.match(highlightCode('def f; end', 'rb')!.markup, /<span class="hljs-keyword">def<\/span>/)
    assert.match(highlightCode('fn main() {}', 'Rust')!.markup, /hljs-keyword/)
    assert.equal(highlightCode('x', 'no-such-language'), null)
    assert.equal(highlightCode('<&>', 'plaintext')!.markup, '&lt;&amp;&gt;')
  })
})
