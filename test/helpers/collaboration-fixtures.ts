// Labels, milestones, issues and merge requests for the tests of the resources that show them:
// labels and milestones through their services, issues and merge requests as bare rows (with their
// iids and label links), for tests that only need them to exist.
import type { TestApp } from './app.js'
import { rootActor } from './factories.js'
import type { Actor } from '../../src/auth/actor.js'
import type { LabelRow, MilestoneRow } from '../../src/db/schema.js'
import type { LabelOwner } from '../../src/finders/labels-finder.js'
import { createLabel } from '../../src/services/labels/labels.js'
import { createMilestone } from '../../src/services/milestones/milestones.js'

export const projectOwner = (id: number): LabelOwner => ({ type: 'project', id })
export const groupOwner = (id: number): LabelOwner => ({ type: 'group', id })

export function makeLabel(t: TestApp, owner: LabelOwner, title: string, color = '#428BCA'): Promise<LabelRow> {
  return createLabel(t.ctx.db, owner, { title, color })
}

export async function makeMilestone(
  t: TestApp, owner: LabelOwner, title: string, options: { by?: Actor; description?: string } = {},
): Promise<MilestoneRow> {
  return createMilestone(t.ctx.db, owner, options.by ?? await rootActor(t), {
    title, ...(options.description === undefined ? {} : { description: options.description }),
  })
}

/** Issues and merge requests as bare rows; their options are issuable-rows.ts's. */
export { insertIssue as makeIssue, insertMergeRequest as makeMergeRequest } from './issuable-rows.js'
