// Notification settings (spec: Notification settings): the caller's global level and notification
// email, and their level per group and project, each with the 14 email event flags of the custom
// level. Signed-in callers only (401); a group or project they cannot see is 404.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type, type Static } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import { BooleanParam, IdParams } from '../params.js'
import {
  EMAIL_EVENTS, GlobalNotificationSetting, NotificationSetting, presentGlobalNotificationSetting, presentNotificationSetting,
  type EmailEvent, type EmailEvents,
} from '../../entities/notification-setting.js'
import {
  findNotificationSetting, notificationEmailOf, settingView, updateNotificationSetting, type NotificationSource,
} from '../../services/notifications/settings.js'
import { loadGroup, loadProject, requireActor } from '../load.js'

const optionalBoolean = () => Type.Optional(BooleanParam())
const EventParams = Object.fromEntries(EMAIL_EVENTS.map((event) => [event, optionalBoolean()])) as
  Record<EmailEvent, ReturnType<typeof optionalBoolean>>

// `level` is any string, so that a wrong one gets the original's "'x' is not a valid level".
const SourceBody = Type.Object({ level: Type.Optional(Type.String()), ...EventParams })
const GlobalBody = Type.Object({ level: Type.Optional(Type.String()), notification_email: Type.Optional(Type.String()), ...EventParams })

function eventsOf(body: Partial<EmailEvents>): Partial<EmailEvents> {
  return Object.fromEntries(EMAIL_EVENTS.filter((event) => body[event] !== undefined).map((event) => [event, body[event]]))
}

const SOURCES = [
  { collection: '/groups', load: async (req: FastifyRequest, id: string): Promise<NotificationSource> => ({ type: 'group', id: (await loadGroup(req, id)).group.id }) },
  { collection: '/projects', load: async (req: FastifyRequest, id: string): Promise<NotificationSource> => ({ type: 'project', id: (await loadProject(req, id)).project.id }) },
] as const

const notificationSettings: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/notification_settings', {
    schema: { response: { 200: GlobalNotificationSetting } },
  }, async (req) => {
    const { user } = requireActor(req)
    const row = await findNotificationSetting(req.ingot.db, user.id, { type: 'global' })
    return presentGlobalNotificationSetting(settingView(row, { type: 'global' }), notificationEmailOf(user, row))
  })

  app.put('/notification_settings', {
    schema: { body: Type.Optional(GlobalBody), response: { 200: GlobalNotificationSetting } },
  }, async (req) => {
    const { user } = requireActor(req)
    const body: Static<typeof GlobalBody> = req.body ?? {}
    const row = await updateNotificationSetting(req.ingot.db, user, { type: 'global' }, {
      ...(body.level === undefined ? {} : { level: body.level }),
      ...(body.notification_email === undefined ? {} : { notificationEmail: body.notification_email }),
      events: eventsOf(body),
    })
    return presentGlobalNotificationSetting(settingView(row, { type: 'global' }), notificationEmailOf(user, row))
  })

  for (const { collection, load } of SOURCES) {
    app.get(`${collection}/:id/notification_settings`, {
      schema: { params: IdParams, response: { 200: NotificationSetting } },
    }, async (req) => {
      const { user } = requireActor(req)
      const source = await load(req, req.params.id)
      return presentNotificationSetting(settingView(await findNotificationSetting(req.ingot.db, user.id, source), source))
    })

    app.put(`${collection}/:id/notification_settings`, {
      schema: { params: IdParams, body: Type.Optional(SourceBody), response: { 200: NotificationSetting } },
    }, async (req) => {
      const { user } = requireActor(req)
      const source = await load(req, req.params.id)
      const body: Static<typeof SourceBody> = req.body ?? {}
      const row = await updateNotificationSetting(req.ingot.db, user, source, {
        ...(body.level === undefined ? {} : { level: body.level }),
        events: eventsOf(body),
      })
      return presentNotificationSetting(settingView(row, source))
    })
  }
}

export default notificationSettings
