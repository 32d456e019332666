// time_stats of issues and merge requests (spec: Issue), also the answer of their time tracking
// endpoints: seconds and the human forms ("1w 2d", null for none).
import { Type, type Static } from '@sinclair/typebox'
import { humanDuration, type TrackedTime } from '../services/issuables/time-tracking.js'
import { NullableString } from './common.js'

export const TimeStats = Type.Object({
  time_estimate: Type.Integer(),
  total_time_spent: Type.Integer(),
  human_time_estimate: NullableString,
  human_total_time_spent: NullableString,
})
export type TimeStatsEntity = Static<typeof TimeStats>

export function presentTimeStats(time: TrackedTime): TimeStatsEntity {
  return {
    time_estimate: time.time_estimate,
    total_time_spent: time.total_time_spent,
    human_time_estimate: humanDuration(time.time_estimate),
    human_total_time_spent: humanDuration(time.total_time_spent),
  }
}
