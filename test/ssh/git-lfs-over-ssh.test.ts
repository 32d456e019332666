// Git LFS over SSH end to end (issue 17): the real git-lfs client with an ssh:// remote asks Ingot's
// SSH server for `git-lfs-authenticate` (after `git-lfs-transfer`, which Ingot refuses), then
// moves the objects over HTTP with the credential it was given: a user's key pushes and clones, a
// read-only deploy key clones and cannot push.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import fs from 'node:fs/promises'
import path from 'node:path'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import { freePort } from '../helpers/ports.js'
import { projectFullPath } from '../helpers/projects.js'
import { addDeployKey, addUserKey, startSshClient, type SshClient, type SshKeyPair } from './ssh-client.js'

describe('Git LFS over SSH', () => {
  let t: TestApp
  let client: SshClient
  let owner: TestUser
  let ownerKey: SshKeyPair

  before(async () => {
    // The credential's href is the external URL: the app listens there.
    const port = await freePort()
    t = await buildTestApp({ env: { INGOT_EXTERNAL_URL: `http://127.0.0.1:${port}` } })
    await t.app.listen({ host: '127.0.0.1', port })
    client = await startSshClient(t)
    owner = await makeUser(t)
    ownerKey = await client.makeKey()
    await addUserKey(t, owner.user.id, ownerKey)
  })
  after(async () => {
    await client?.close()
    await t?.close()
  })

  it("pushes a tracked file's object with a user's key and clones it back; a read-only deploy key clones but cannot push one", async () => {
    const project = await makeProject(t, owner, { visibility: 'private' })
    await commitFiles(t, project.id, { 'README.md': '# readme\n' })
    const fullPath = await projectFullPath(t, project)
    const dir = path.join(client.dir, 'lfs-push')
    // The filters in the client's own HOME, so that clones fetch the objects.
    await client.ok(ownerKey, ['lfs', 'install'])
    await client.ok(ownerKey, ['clone', client.url(fullPath), dir])
    await client.ok(ownerKey, ['lfs', 'track', '*.bin'], { cwd: dir })
    const content = Buffer.alloc(300_000, 7)
    await fs.writeFile(path.join(dir, 'big.bin'), content)
    await client.ok(ownerKey, ['add', '.gitattributes', 'big.bin'], { cwd: dir })
    await client.ok(ownerKey, ['commit', '-m', 'Add big.bin'], { cwd: dir })
    await client.ok(ownerKey, ['push', 'origin', 'HEAD:master'], { cwd: dir })
    const oid = createHash('sha256').update(content).digest('hex')
    const stored = await t.ctx.db.selectFrom('lfs_objects').innerJoin('lfs_objects_projects', 'lfs_objects_projects.lfs_object_id', 'lfs_objects.id')
      .select('lfs_objects.size').where('lfs_objects.oid', '=', oid).where('lfs_objects_projects.project_id', '=', project.id).executeTakeFirst()
    assert.equal(Number(stored?.size), content.length)

    const cloned = path.join(client.dir, 'lfs-clone')
    await client.ok(ownerKey, ['clone', client.url(fullPath), cloned])
    assert.deepEqual(await fs.readFile(path.join(cloned, 'big.bin')), content)

    const deployKey = await client.makeKey()
    await addDeployKey(t, project.id, deployKey, false, owner.user.id)
    const byDeployKey = path.join(client.dir, 'lfs-deploy-key')
    await client.ok(deployKey, ['clone', client.url(fullPath), byDeployKey])
    assert.deepEqual(await fs.readFile(path.join(byDeployKey, 'big.bin')), content)
    await fs.writeFile(path.join(byDeployKey, 'other.bin'), Buffer.alloc(1000, 9))
    await client.ok(deployKey, ['add', 'other.bin'], { cwd: byDeployKey })
    await client.ok(deployKey, ['commit', '-m', 'Add other.bin'], { cwd: byDeployKey })
    const refused = await client.git(deployKey, ['lfs', 'push', 'origin', 'HEAD'], { cwd: byDeployKey })
    assert.notEqual(refused.code, 0)
    assert.match(refused.stderr, /This deploy key does not have write access to this project/)
    const otherOid = createHash('sha256').update(Buffer.alloc(1000, 9)).digest('hex')
    assert.equal(await t.ctx.db.selectFrom('lfs_objects').select('id').where('oid', '=', otherOid).executeTakeFirst(), undefined)
  })
})
