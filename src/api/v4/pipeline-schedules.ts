// Pipeline schedules, as the original 11.5: the list (scope active/inactive, newest first), one with
// its last pipeline and variables, create, update, take ownership, delete, and the schedule's
// variables. Developers read and create; a schedule is changed by Maintainers or by its owner (a
// Developer), and a schedule the caller may not read is 404 'Pipeline Schedule'.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import type { CiPipelineScheduleRow } from '../../db/schema.js'
import {
  PipelineSchedule, PipelineScheduleDetails, ScheduleVariable, presentPipelineSchedule, presentPipelineScheduleDetails,
} from '../../entities/pipeline-schedule.js'
import { projectFullPath } from '../../entities/project.js'
import { usersById } from '../../finders/rows.js'
import { canOnProject } from '../../policies/project-policy.js'
import {
  addScheduleVariable, createSchedule, deleteSchedule, deleteScheduleVariable, findSchedule, findSchedulePage, lastPipelines,
  scheduleErrors, scheduleFields, scheduleVariables, updateSchedule, updateScheduleVariable, scheduleVariableKeyErrors, type ScheduleFields,
} from '../../services/ci/pipeline-schedules.js'
import { authorize, loadProject, loadProjectFor, requireActor, type LoadedProject } from '../load.js'
import { notFound, validationFailed } from '../../common/errors.js'
import { setPaginationHeaders } from '../pagination.js'
import { BooleanParam, IdParams, OneOf, Pagination } from '../params.js'
import { presentCtx } from '../present.js'

const ScheduleParams = Type.Composite([IdParams, Type.Object({ pipeline_schedule_id: Type.Integer() })])
const VariableParams = Type.Composite([ScheduleParams, Type.Object({ key: Type.String() })])

const ListQuery = Type.Object({ ...Pagination.properties, scope: Type.Optional(OneOf(['active', 'inactive'] as const)) })

const CreateBody = Type.Object({
  description: Type.String(),
  ref: Type.String(),
  cron: Type.String(),
  cron_timezone: Type.String({ default: 'UTC' }),
  active: BooleanParam({ default: true }),
})

const UpdateBody = Type.Partial(Type.Object({
  description: Type.String(),
  ref: Type.String(),
  cron: Type.String(),
  cron_timezone: Type.String(),
  active: BooleanParam(),
}))

/**
 * The schedule, 404 unless the caller reads the project's schedules, then `change` (update,
 * variables, take ownership) or `admin` (delete) checked: Maintainers, or the owner while a Developer.
 */
async function loadSchedule(req: FastifyRequest, id: string, scheduleId: number, ability: 'read' | 'change' | 'admin') {
  const loaded = await loadProject(req, id)
  const schedule = await findSchedule(req.ingot.db, loaded.project.id, scheduleId)
  if (schedule === null || !canOnProject(req.actor, loaded, 'read_pipeline_schedule')) throw notFound('Pipeline Schedule')
  if (ability !== 'read') {
    const owner = schedule.owner_id === requireActor(req).user.id
    authorize(canOnProject(req.actor, loaded, 'admin_build') || (owner && canOnProject(req.actor, loaded, 'update_build')))
  }
  return { loaded, schedule }
}

async function presentDetails(req: FastifyRequest, loaded: LoadedProject, schedule: CiPipelineScheduleRow) {
  const owners = await usersById(req.ingot.db, schedule.owner_id === null ? [] : [schedule.owner_id])
  const lastPipeline = (await lastPipelines(req.ingot.db, [schedule.id])).get(schedule.id) ?? null
  return presentPipelineScheduleDetails({
    schedule, owner: schedule.owner_id === null ? null : owners.get(schedule.owner_id) ?? null, lastPipeline,
    variables: await scheduleVariables(req.ingot, schedule.id),
  }, projectFullPath(loaded), presentCtx(req))
}

function checkFields(fields: ScheduleFields): ScheduleFields {
  const errors = scheduleErrors(fields)
  if (Object.keys(errors).length > 0) throw validationFailed(errors)
  return fields
}

const variableNotFound = () => notFound('Pipeline Schedule Variable')

const pipelineSchedules: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/projects/:id/pipeline_schedules', {
    schema: { params: IdParams, querystring: ListQuery, response: { 200: Type.Array(PipelineSchedule) } },
  }, async (req, reply) => {
    const loaded = await loadProjectFor(req, req.params.id, 'read_pipeline_schedule')
    const page = await findSchedulePage(req.ingot.db, loaded.project.id, req.query.scope, req.query)
    setPaginationHeaders(req, reply, page)
    const owners = await usersById(req.ingot.db, page.items.flatMap((schedule) => (schedule.owner_id === null ? [] : [schedule.owner_id])))
    const ctx = presentCtx(req)
    return page.items.map((schedule) => presentPipelineSchedule({
      schedule, owner: schedule.owner_id === null ? null : owners.get(schedule.owner_id) ?? null,
    }, ctx))
  })

  app.get('/projects/:id/pipeline_schedules/:pipeline_schedule_id', {
    schema: { params: ScheduleParams, response: { 200: PipelineScheduleDetails } },
  }, async (req) => {
    const { loaded, schedule } = await loadSchedule(req, req.params.id, req.params.pipeline_schedule_id, 'read')
    return presentDetails(req, loaded, schedule)
  })

  app.post('/projects/:id/pipeline_schedules', {
    schema: { params: IdParams, body: CreateBody, response: { 201: PipelineScheduleDetails } },
  }, async (req, reply) => {
    const loaded = await loadProjectFor(req, req.params.id, 'create_pipeline')
    const fields = checkFields(req.body)
    const schedule = await createSchedule(req.ingot.db, loaded.project.id, requireActor(req).user.id, fields)
    reply.code(201)
    return presentDetails(req, loaded, schedule)
  })

  app.put('/projects/:id/pipeline_schedules/:pipeline_schedule_id', {
    schema: { params: ScheduleParams, body: UpdateBody, response: { 200: PipelineScheduleDetails } },
  }, async (req) => {
    const { loaded, schedule } = await loadSchedule(req, req.params.id, req.params.pipeline_schedule_id, 'change')
    const fields = checkFields({ ...scheduleFields(schedule), ...req.body })
    return presentDetails(req, loaded, await updateSchedule(req.ingot.db, schedule, fields))
  })

  app.post('/projects/:id/pipeline_schedules/:pipeline_schedule_id/take_ownership', {
    schema: { params: ScheduleParams, response: { 201: PipelineScheduleDetails } },
  }, async (req, reply) => {
    const { loaded, schedule } = await loadSchedule(req, req.params.id, req.params.pipeline_schedule_id, 'change')
    const updated = await updateSchedule(req.ingot.db, schedule, scheduleFields(schedule), requireActor(req).user.id)
    reply.code(201)
    return presentDetails(req, loaded, updated)
  })

  app.delete('/projects/:id/pipeline_schedules/:pipeline_schedule_id', {
    schema: { params: ScheduleParams },
  }, async (req, reply) => {
    const { schedule } = await loadSchedule(req, req.params.id, req.params.pipeline_schedule_id, 'admin')
    await deleteSchedule(req.ingot.db, schedule)
    return reply.code(204).send()
  })

  app.post('/projects/:id/pipeline_schedules/:pipeline_schedule_id/variables', {
    schema: { params: ScheduleParams, body: ScheduleVariable, response: { 201: ScheduleVariable } },
  }, async (req, reply) => {
    const { schedule } = await loadSchedule(req, req.params.id, req.params.pipeline_schedule_id, 'change')
    const keyErrors = scheduleVariableKeyErrors(req.body.key)
    if (Object.keys(keyErrors).length > 0) throw validationFailed(keyErrors)
    const variable = await addScheduleVariable(req.ingot, schedule.id, req.body)
    if (variable === null) throw validationFailed({ key: ['has already been taken'] })
    reply.code(201)
    return variable
  })

  app.put('/projects/:id/pipeline_schedules/:pipeline_schedule_id/variables/:key', {
    schema: { params: VariableParams, body: Type.Object({ value: Type.Optional(Type.String()) }), response: { 200: ScheduleVariable } },
  }, async (req) => {
    const { schedule } = await loadSchedule(req, req.params.id, req.params.pipeline_schedule_id, 'change')
    const { key } = req.params
    const current = (await scheduleVariables(req.ingot, schedule.id)).find((variable) => variable.key === key)
    if (current === undefined) throw variableNotFound()
    const updated = await updateScheduleVariable(req.ingot, schedule.id, { key, value: req.body.value ?? current.value })
    if (updated === null) throw variableNotFound()
    return updated
  })

  app.delete('/projects/:id/pipeline_schedules/:pipeline_schedule_id/variables/:key', {
    schema: { params: VariableParams, response: { 202: ScheduleVariable } },
  }, async (req, reply) => {
    const { schedule } = await loadSchedule(req, req.params.id, req.params.pipeline_schedule_id, 'admin')
    const deleted = await deleteScheduleVariable(req.ingot, schedule.id, req.params.key)
    if (deleted === null) throw variableNotFound()
    reply.code(202)
    return deleted
  })
}

export default pipelineSchedules
