// Artifacts and caches as the runner writes and reads them: the CI file's path globs, a zip round
// trip through yazl and yauzl, and archives that try to write outside the directory they are
// extracted into (`..`, absolute names, links out, a path through a link), refused.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import yazl from 'yazl'
import { ArchiveError, extractZip, globToRegExp, normalizePattern, saveStream, selectEntries, zipEntries } from '../../src/runner/archive.js'

let root: string

async function write(dir: string, files: Record<string, string>): Promise<void> {
  for (const [name, content] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(dir, name)), { recursive: true })
    await fs.writeFile(path.join(dir, name), content)
  }
}

/** A zip made by yazl with `entries`, then with `from` replaced by `to` in every name (yazl refuses bad names itself). */
async function craftedZip(file: string, entries: { name: string; content: string; mode?: number }[], rename?: { from: string; to: string }): Promise<void> {
  const zip = new yazl.ZipFile()
  for (const entry of entries) zip.addBuffer(Buffer.from(entry.content), entry.name, entry.mode === undefined ? {} : { mode: entry.mode })
  zip.end()
  await saveStream(zip.outputStream as any, file)
  if (rename !== undefined) {
    assert.equal(rename.from.length, rename.to.length)
    const bytes = await fs.readFile(file)
    await fs.writeFile(file, Buffer.from(bytes.toString('latin1').split(rename.from).join(rename.to), 'latin1'))
  }
}

describe('runner archives', () => {
  before(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'ingot-archive-test-'))
  })
  after(() => fs.rm(root, { recursive: true, force: true }))

  it('match paths as the runner globs them', () => {
    const table: [string, string, boolean][] = [
      ['*.txt', 'a.txt', true], ['*.txt', 'dir/a.txt', false], ['**/*.txt', 'dir/sub/a.txt', true], ['**/*.txt', 'a.txt', true],
      ['out', 'out', true], ['out/*', 'out/x', true], ['file?.log', 'file1.log', true], ['file?.log', 'file10.log', false],
      ['[ab].c', 'a.c', true], ['[!ab].c', 'a.c', false], ['a.c', 'abc', false], ['dist/**', 'dist/a/b', true],
    ]
    for (const [pattern, name, expected] of table) assert.equal(globToRegExp(pattern).test(name), expected, `${pattern} ~ ${name}`)
    assert.equal(normalizePattern('./out/'), 'out')
    assert.deepEqual(normalizePattern('../secret'), { refused: '../secret: outside the build directory' })
    assert.deepEqual(normalizePattern('/etc/passwd'), { refused: '/etc/passwd: outside the build directory' })
  })

  it('zip the chosen entries and extract them the same, links inside kept and links out left out', async () => {
    const source = path.join(root, 'source')
    await write(source, { 'out/a.txt': 'A', 'out/sub/b.bin': 'B', 'notes.txt': 'N', 'src/main.c': 'tracked', 'src/gen.o': 'untracked', 'other/x.log': 'X' })
    await fs.mkdir(path.join(source, 'out/empty'))
    await fs.chmod(path.join(source, 'out/a.txt'), 0o755)
    await fs.symlink('a.txt', path.join(source, 'out/link-inside'))
    await fs.symlink('/etc/passwd', path.join(source, 'out/link-outside'))
    const entries = await selectEntries(source, { patterns: ['out', '*.txt'], untracked: true, tracked: new Set(['src/main.c', 'other/x.log']) })
    assert.deepEqual(entries.map((entry) => entry.name), ['notes.txt', 'out', 'out/a.txt', 'out/empty', 'out/link-inside', 'out/link-outside', 'out/sub', 'out/sub/b.bin', 'src/gen.o'])
    const skipped: string[] = []
    const file = path.join(root, 'round-trip.zip')
    await saveStream(await zipEntries(source, entries, (name) => skipped.push(name)), file)
    assert.deepEqual(skipped, ['out/link-outside'])

    const target = path.join(root, 'target')
    await fs.mkdir(target)
    assert.equal(await extractZip(file, target), entries.length - 1)
    assert.equal(await fs.readFile(path.join(target, 'out/sub/b.bin'), 'utf8'), 'B')
    assert.equal(await fs.readFile(path.join(target, 'src/gen.o'), 'utf8'), 'untracked')
    assert.equal(await fs.readlink(path.join(target, 'out/link-inside')), 'a.txt')
    assert.ok((await fs.stat(path.join(target, 'out/empty'))).isDirectory())
    assert.equal((await fs.stat(path.join(target, 'out/a.txt'))).mode & 0o111, 0o111)
    await assert.rejects(fs.lstat(path.join(target, 'out/link-outside')))
    await assert.rejects(fs.access(path.join(target, 'src/main.c')))
  })

  it('refuse names that climb out with ..', async () => {
    const file = path.join(root, 'climb.zip')
    await craftedZip(file, [{ name: 'zz/escaped.txt', content: 'evil' }], { from: 'zz/', to: '../' })
    const target = path.join(root, 'climb')
    await fs.mkdir(target)
    await assert.rejects(extractZip(file, target), ArchiveError)
    await assert.rejects(fs.access(path.join(root, 'escaped.txt')))
  })

  it('refuse absolute names', async () => {
    const file = path.join(root, 'absolute.zip')
    const outside = path.join(root, 'abs-escaped.txt')
    await craftedZip(file, [{ name: `x${outside.slice(1)}`, content: 'evil' }], { from: `x${outside.slice(1, 5)}`, to: `/${outside.slice(1, 5)}` })
    const target = path.join(root, 'absolute')
    await fs.mkdir(target)
    await assert.rejects(extractZip(file, target), ArchiveError)
    await assert.rejects(fs.access(outside))
  })

  it('refuse links that point out, and paths through a link', async () => {
    const linkOut = path.join(root, 'link-out.zip')
    await craftedZip(linkOut, [{ name: 'etc', content: '../../../etc', mode: 0o120777 }])
    const target = path.join(root, 'links')
    await fs.mkdir(target)
    await assert.rejects(extractZip(linkOut, target), /outside the directory/)
    await assert.rejects(fs.lstat(path.join(target, 'etc')))

    const through = path.join(root, 'through.zip')
    await fs.mkdir(path.join(root, 'elsewhere'))
    await craftedZip(through, [{ name: 'sub/file.txt', content: 'evil' }])
    const target2 = path.join(root, 'through')
    await fs.mkdir(target2)
    // A link the build directory already holds (a checked-out repository can have one) is never written through.
    await fs.symlink(path.join(root, 'elsewhere'), path.join(target2, 'sub'))
    await assert.rejects(extractZip(through, target2), /is not a directory/)
    await assert.rejects(fs.access(path.join(root, 'elsewhere', 'file.txt')))
  })

  it('write over an existing link by replacing it, not through it', async () => {
    const file = path.join(root, 'replace.zip')
    await craftedZip(file, [{ name: 'victim', content: 'new' }])
    const target = path.join(root, 'replace')
    await fs.mkdir(target)
    await fs.writeFile(path.join(root, 'outside-victim'), 'old')
    await fs.symlink(path.join(root, 'outside-victim'), path.join(target, 'victim'))
    await extractZip(file, target)
    assert.equal(await fs.readFile(path.join(root, 'outside-victim'), 'utf8'), 'old')
    assert.equal(await fs.readFile(path.join(target, 'victim'), 'utf8'), 'new')
  })
})
