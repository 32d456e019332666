// Notification email end to end: real API calls (issues, comments, closing, assigning, merge
// requests, pushes) with INGOT_SMTP_URL pointing at a real SMTP listener, checking which users'
// notification emails arrive — and which do not — and what they carry.
import { after, before, beforeEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeGroup, makeMember, makeProject, makeUser, uniqueName, type TestUser } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import { startSmtpListener, type ReceivedMail, type SmtpListener } from '../helpers/smtp.js'
import { DEVELOPER, GUEST, REPORTER } from '../../src/policies/access-levels.js'
import type { NamespaceRow, ProjectRow } from '../../src/db/schema.js'
import { DELIVER_NOTIFICATION, REMIND_ISSUES_DUE } from '../../src/services/notifications/jobs.js'
import { today } from '../../src/db/values.js'

describe('notification email', () => {
  let smtp: SmtpListener
  let t: TestApp
  let group: NamespaceRow
  let project: ProjectRow
  let fullPath: string
  const users: Record<string, TestUser> = {}

  /** Works the event jobs, then the delivery jobs they enqueued. */
  const deliver = async () => {
    await t.ctx.jobs.runDue()
    await t.ctx.jobs.runDue()
  }
  const recipients = () => smtp.messages.flatMap((mail) => mail.to).sort()
  const mailTo = (user: TestUser): ReceivedMail => {
    const found = smtp.messages.filter((mail) => mail.to.includes(user.user.email.toLowerCase()))
    assert.equal(found.length, 1, `one email to ${user.user.username}, got ${found.length}`)
    return found[0]!
  }
  const emails = (...names: string[]) => names.map((name) => users[name]!.user.email.toLowerCase()).sort()
  const setLevel = async (name: string, path: string, body: Record<string, unknown>) => {
    const res = await t.api('PUT', path, { token: users[name]!.token, body })
    assert.equal(res.status, 200, res.text)
  }
  const createIssue = async (by: string, body: Record<string, unknown>) => {
    const res = await t.api('POST', `/projects/${project.id}/issues`, { token: users[by]!.token, body })
    assert.equal(res.status, 201, res.text)
    return res.body as { iid: number; id: number }
  }

  before(async () => {
    smtp = await startSmtpListener()
    t = await buildTestApp({ env: { INGOT_SMTP_URL: smtp.url } })
    group = await makeGroup(t, { path: uniqueName('notify') })
    project = await makeProject(t, null, { namespace: group, name: 'Rocket', path: uniqueName('rocket') })
    fullPath = `${group.full_path}/${project.path}`
    for (const name of ['author', 'assignee', 'watcher', 'globalWatcher', 'groupWatcher', 'mentioner', 'disabled', 'customOn', 'customOff', 'member', 'outsider', 'guest', 'reporter']) {
      users[name] = await makeUser(t, { name: `${name[0]!.toUpperCase()}${name.slice(1)} Person` })
    }
    for (const name of ['author', 'assignee', 'watcher', 'globalWatcher', 'disabled', 'customOn', 'customOff', 'member']) {
      await makeMember(t, { type: 'project', id: project.id }, users[name]!, DEVELOPER)
    }
    await makeMember(t, { type: 'project', id: project.id }, users.mentioner!, REPORTER)
    await makeMember(t, { type: 'project', id: project.id }, users.reporter!, REPORTER)
    await makeMember(t, { type: 'project', id: project.id }, users.guest!, GUEST)
    await makeMember(t, { type: 'group', id: group.id }, users.groupWatcher!, REPORTER)
    await setLevel('watcher', `/projects/${project.id}/notification_settings`, { level: 'watch' })
    // A member watching globally watches the project without a setting on it.
    await setLevel('globalWatcher', '/notification_settings', { level: 'watch' })
    // The project setting says global: the group's watch decides.
    await setLevel('groupWatcher', `/projects/${project.id}/notification_settings`, { level: 'global' })
    await setLevel('groupWatcher', `/groups/${group.id}/notification_settings`, { level: 'watch' })
    await setLevel('mentioner', '/notification_settings', { level: 'mention' })
    // Globally a watcher, but disabled on this project: the project setting wins.
    await setLevel('disabled', '/notification_settings', { level: 'watch' })
    await setLevel('disabled', `/projects/${project.id}/notification_settings`, { level: 'disabled' })
    await setLevel('customOn', `/projects/${project.id}/notification_settings`, { level: 'custom', new_issue: true, close_issue: true })
    // Custom on the group, global on the project: the group's custom events count.
    await setLevel('customOff', `/groups/${group.id}/notification_settings`, { level: 'custom', new_note: true })
    await setLevel('customOff', `/projects/${project.id}/notification_settings`, { level: 'global' })
    // Watching everything globally, but no member of the private project.
    await setLevel('outsider', '/notification_settings', { level: 'watch' })
    await setLevel('guest', `/projects/${project.id}/notification_settings`, { level: 'watch' })
    await setLevel('reporter', `/projects/${project.id}/notification_settings`, { level: 'watch' })
    await setLevel('assignee', '/notification_settings', { notification_email: users.assignee!.user.email.toUpperCase() })
  })
  after(async () => {
    await t.close()
    await smtp.close()
  })
  beforeEach(() => { smtp.messages.length = 0 })

  it('mails a new issue to assignees, mentioned users, watchers and custom users, and to nobody else', async () => {
    const issue = await createIssue('author', {
      title: 'Engine stalls', description: `Seen by @${users.mentioner!.user.username} and @${users.outsider!.user.username}.`,
      assignee_ids: [users.assignee!.user.id],
    })
    await deliver()
    assert.deepEqual(recipients(), emails('assignee', 'watcher', 'globalWatcher', 'groupWatcher', 'mentioner', 'customOn', 'guest', 'reporter'))

    const mail = mailTo(users.watcher!)
    assert.equal(mail.subject, `Rocket | Engine stalls (#${issue.iid})`)
    assert.equal(mail.from, `"Author Person" <ingot@ingot.test>`)
    assert.equal(mail.headers['message-id'], `<issue_${issue.id}@ingot.test>`)
    assert.equal(mail.headers['x-service-project'], 'Rocket')
    assert.equal(mail.headers['x-service-project-id'], String(project.id))
    assert.equal(mail.headers['x-service-project-path'], fullPath)
    assert.match(mail.headers['list-id']!, new RegExp(`^${fullPath} <.*\\.${project.id}\\.ingot\\.test>$`))
    assert.equal(mail.headers['x-service-notificationreason'], undefined)
    assert.match(mail.text, new RegExp(`http://ingot\\.test/${fullPath}/issues/${issue.iid}`))
    assert.match(mail.text, /Assignee: Assignee Person/)
    assert.match(mail.text, /Seen by @/)
    // email_author_in_body is off by default: the author is the sender's name only.
    assert.doesNotMatch(mail.text, /Author Person created/)
    assert.ok(mail.html?.includes(`href="http://ingot.test/${fullPath}/issues/${issue.iid}"`), 'the HTML part links the issue')

    assert.equal(mailTo(users.assignee!).headers['x-service-notificationreason'], 'assigned')
    // The chosen notification email is where the assignee's mail goes.
    const [local, domain] = users.assignee!.user.email.toUpperCase().split('@')
    assert.equal(mailTo(users.assignee!).headers.to, `${local}@${domain!.toLowerCase()}`, 'nodemailer writes the domain lower-cased')
    assert.equal(mailTo(users.mentioner!).headers['x-service-notificationreason'], 'mentioned')
  })

  it('mails comments, closing and reassignment to participants, threaded under the issue', async () => {
    const issue = await createIssue('author', { title: 'Fuel leak', assignee_ids: [users.assignee!.user.id] })
    await deliver()
    smtp.messages.length = 0
    await t.api('PUT', '/application/settings', { body: { html_emails_enabled: false, email_author_in_body: true } })
    try {
      const note = await t.api('POST', `/projects/${project.id}/issues/${issue.iid}/notes`, {
        token: users.assignee!.token, body: { body: `Found it, @${users.mentioner!.user.username}.` },
      })
      assert.equal(note.status, 201, note.text)
      await deliver()
      // The author participates; customOff's group-level custom has new_note on; the assignee acted.
      assert.deepEqual(recipients(), emails('author', 'watcher', 'globalWatcher', 'groupWatcher', 'mentioner', 'customOff', 'guest', 'reporter'))
      const comment = mailTo(users.author!)
      assert.equal(comment.subject, `Re: Rocket | Fuel leak (#${issue.iid})`)
      assert.equal(comment.headers['in-reply-to'], `<issue_${issue.id}@ingot.test>`)
      assert.equal(comment.headers.references, `<issue_${issue.id}@ingot.test>`)
      assert.equal(comment.from, `"Assignee Person" <ingot@ingot.test>`)
      assert.match(comment.text, /^Assignee Person commented:\n\nFound it, @/)
      assert.match(comment.text, new RegExp(`/issues/${issue.iid}#note_${note.body.id}`))
      assert.equal(comment.html, null)

      smtp.messages.length = 0
      await t.api('PUT', `/projects/${project.id}/issues/${issue.iid}`, { token: users.author!.token, body: { state_event: 'close' } })
      await deliver()
      // The mention-level user was mentioned before, not now: no email.
      assert.deepEqual(recipients(), emails('assignee', 'watcher', 'globalWatcher', 'groupWatcher', 'customOn', 'guest', 'reporter'))
      assert.match(mailTo(users.assignee!).text, new RegExp(`Issue #${issue.iid} was closed by Author Person`))

      smtp.messages.length = 0
      await t.api('PUT', `/projects/${project.id}/issues/${issue.iid}`, { token: users.author!.token, body: { assignee_ids: [users.member!.user.id] } })
      await deliver()
      assert.deepEqual(recipients(), emails('assignee', 'member', 'watcher', 'globalWatcher', 'groupWatcher', 'guest', 'reporter'))
      const reassigned = mailTo(users.member!)
      assert.equal(reassigned.headers['x-service-notificationreason'], 'assigned')
      assert.match(reassigned.text, /Assignee changed from Assignee Person to Member Person/)
    } finally {
      await t.api('PUT', '/application/settings', { body: { html_emails_enabled: true, email_author_in_body: false } })
    }
  })

  it('keeps confidential issues from guests, and honours unsubscribing and subscribing', async () => {
    await createIssue('author', { title: 'Secret flaw', confidential: true })
    await deliver()
    assert.deepEqual(recipients(), emails('watcher', 'globalWatcher', 'groupWatcher', 'customOn', 'reporter'))

    smtp.messages.length = 0
    const issue = await createIssue('author', { title: 'Loose bolt' })
    await deliver()
    smtp.messages.length = 0
    // The author, a participant, opts out of the thread.
    const unsubscribed = await t.api('POST', `/projects/${project.id}/issues/${issue.iid}/unsubscribe`, { token: users.author!.token })
    assert.equal(unsubscribed.status, 201, unsubscribed.text)
    // A disabled user who subscribes by hand still gets the thread.
    const subscribed = await t.api('POST', `/projects/${project.id}/issues/${issue.iid}/subscribe`, { token: users.disabled!.token })
    assert.equal(subscribed.status, 201, subscribed.text)
    await t.api('POST', `/projects/${project.id}/issues/${issue.iid}/notes`, { token: users.member!.token, body: { body: 'Tightened.' } })
    await deliver()
    assert.deepEqual(recipients(), emails('watcher', 'globalWatcher', 'groupWatcher', 'disabled', 'customOff', 'guest', 'reporter'))
  })

  it('mails nothing to anyone when the only interested user is the actor, and nothing at all to blocked users', async () => {
    const issue = await createIssue('author', { title: 'Quiet one' })
    await deliver()
    smtp.messages.length = 0
    await t.ctx.db.updateTable('users').set({ state: 'blocked' }).where('id', '=', users.reporter!.user.id).execute()
    try {
      await t.api('PUT', `/projects/${project.id}/issues/${issue.iid}`, { token: users.author!.token, body: { title: 'Quiet one, renamed' } })
      await deliver()
      assert.deepEqual(recipients(), [], 'an edit that is no reassignment or state change mails nobody')
      await t.api('PUT', `/projects/${project.id}/issues/${issue.iid}`, { token: users.author!.token, body: { state_event: 'close' } })
      await deliver()
      assert.ok(!recipients().includes(users.author!.user.email.toLowerCase()))
      assert.ok(!recipients().includes(users.reporter!.user.email.toLowerCase()))
      assert.ok(recipients().includes(users.watcher!.user.email.toLowerCase()))
    } finally {
      await t.ctx.db.updateTable('users').set({ state: 'active' }).where('id', '=', users.reporter!.user.id).execute()
    }
  })

  it('mails new merge requests, pushes to their source branch and merges', async () => {
    await commitFiles(t, project.id, { 'README.md': 'rocket\n' })
    await t.ctx.db.updateTable('projects').set({ default_branch: 'master' }).where('id', '=', project.id).execute()
    const branch = await t.api('POST', `/projects/${project.id}/repository/branches`, { token: users.author!.token, body: { branch: 'thrust', ref: 'master' } })
    assert.equal(branch.status, 201, branch.text)
    const commit = await t.api('POST', `/projects/${project.id}/repository/files/${encodeURIComponent('thrust.txt')}`, {
      token: users.author!.token, body: { branch: 'thrust', content: 'more\n', commit_message: 'Add thrust' },
    })
    assert.equal(commit.status, 201, commit.text)
    await deliver()
    smtp.messages.length = 0

    const mr = await t.api('POST', `/projects/${project.id}/merge_requests`, {
      token: users.author!.token, body: { source_branch: 'thrust', target_branch: 'master', title: 'More thrust', assignee_id: users.assignee!.user.id },
    })
    assert.equal(mr.status, 201, mr.text)
    await deliver()
    assert.deepEqual(recipients(), emails('assignee', 'watcher', 'globalWatcher', 'groupWatcher', 'reporter'))
    const opened = mailTo(users.assignee!)
    assert.equal(opened.subject, `Rocket | More thrust (!${mr.body.iid})`)
    assert.equal(opened.headers['message-id'], `<merge_request_${mr.body.id}@ingot.test>`)
    assert.match(opened.text, new RegExp(`http://ingot\\.test/${fullPath}/merge_requests/${mr.body.iid}`))

    smtp.messages.length = 0
    const pushed = await t.api('POST', `/projects/${project.id}/repository/files/${encodeURIComponent('fins.txt')}`, {
      token: users.author!.token, body: { branch: 'thrust', content: 'fins\n', commit_message: 'Add fins' },
    })
    assert.equal(pushed.status, 201, pushed.text)
    await deliver()
    // Watchers are not told about pushes; the assignee participates.
    assert.deepEqual(recipients(), emails('assignee'))
    const push = mailTo(users.assignee!)
    assert.equal(push.subject, `Re: Rocket | More thrust (!${mr.body.iid})`)
    assert.match(push.text, /Author Person pushed new commits to merge request/)
    assert.match(push.text, /- Add fins/)

    smtp.messages.length = 0
    const merged = await t.api('PUT', `/projects/${project.id}/merge_requests/${mr.body.iid}/merge`, { token: users.member!.token })
    assert.equal(merged.status, 200, merged.text)
    await deliver()
    assert.deepEqual(recipients(), emails('author', 'assignee', 'watcher', 'globalWatcher', 'groupWatcher', 'reporter'))
    assert.match(mailTo(users.author!).text, /was merged by Member Person/)
  })

  it('mails the participants of issues due today from the daily job', async () => {
    const issue = await createIssue('author', { title: 'Launch window', due_date: today(), assignee_ids: [users.assignee!.user.id] })
    await createIssue('author', { title: 'Later', due_date: '2999-01-01' })
    await deliver()
    smtp.messages.length = 0
    await t.ctx.jobs.enqueue(REMIND_ISSUES_DUE, null)
    await deliver()
    await t.ctx.jobs.runDue()
    // The author is told too; watchers are not told about due dates.
    assert.deepEqual(recipients(), emails('author', 'assignee'))
    assert.equal(mailTo(users.author!).subject, `Re: Rocket | Launch window (#${issue.iid})`)
    assert.match(mailTo(users.author!).text, /is due today/)
  })

  it('retries a send the SMTP server did not take', async () => {
    const port = Number(new URL(smtp.url).port)
    await smtp.close()
    try {
      await createIssue('author', { title: 'While mail is down' })
      await deliver()
      const pending = await t.ctx.jobs.list({ kind: DELIVER_NOTIFICATION.name })
      assert.ok(pending.length > 0)
      for (const job of pending) {
        assert.equal(job.attempts, 1)
        assert.ok(job.lastError !== null)
        assert.ok(job.runAt > Date.now())
      }
    } finally {
      smtp = await startSmtpListener(port)
    }
    await t.ctx.jobs.runDue(Date.now() + 60 * 60 * 1000)
    assert.ok(recipients().includes(users.watcher!.user.email.toLowerCase()))
    assert.match(mailTo(users.watcher!).subject, /While mail is down/)
  })
})

describe('notification email without INGOT_SMTP_URL', () => {
  it('enqueues nothing', async () => {
    const t = await buildTestApp()
    try {
      const author = await makeUser(t)
      const project = await makeProject(t, author)
      const res = await t.api('POST', `/projects/${project.id}/issues`, { token: author.token, body: { title: 'Nobody hears' } })
      assert.equal(res.status, 201)
      const jobs = (await t.ctx.jobs.counts()).filter((count) => count.kind.startsWith('notifications.'))
      assert.deepEqual(jobs, [])
      assert.equal(t.ctx.mailer, null)
    } finally {
      await t.close()
    }
  })
})
