// What the pipeline and coverage badges of a ref show (the original's Gitlab::Badge::Pipeline and
// Gitlab::Badge::Coverage, their Status, Report and Template): the texts, colours and widths that
// the SVG is drawn with.
import type { Db } from '../../db/index.js'

/** A badge as the SVG draws it: a grey key on the left, a coloured value on the right. */
export interface BadgeTemplate {
  keyText: string
  valueText: string
  keyColor: string
  valueColor: string
  keyWidth: number
  valueWidth: number
}

const KEY_COLOR = '#555'
const GREY = '#9f9f9f'

const PIPELINE_COLORS: Readonly<Record<string, string>> = {
  success: '#4c1',
  failed: '#e05d44',
  running: '#dfb317',
  pending: '#dfb317',
  canceled: GREY,
  skipped: GREY,
}

/**
 * The status of the newest pipeline of `ref` for the ref's last commit (`sha`, null when the ref
 * names none), or "unknown": as the original's Pipeline::Status.
 */
export async function pipelineStatusOf(db: Db, projectId: number, ref: string, sha: string | null): Promise<string> {
  if (sha === null) return 'unknown'
  const newest = await db.selectFrom('ci_pipelines').select('status')
    .where('project_id', '=', projectId).where('ref', '=', ref).where('sha', '=', sha)
    .orderBy('id', 'desc').limit(1).executeTakeFirst()
  return newest?.status ?? 'unknown'
}

export function pipelineBadge(status: string): BadgeTemplate {
  return {
    keyText: 'pipeline',
    // The original's one rename; other statuses are shown as they are.
    valueText: status === 'success' ? 'passed' : status,
    keyColor: KEY_COLOR,
    valueColor: PIPELINE_COLORS[status] ?? GREY,
    keyWidth: 62,
    valueWidth: 54,
  }
}

/**
 * The coverage of the newest successful pipeline of `ref` (the average of its jobs'), or of its
 * job named `job`, rounded to two decimals; null when there is none. As the original's Coverage::Report.
 */
export async function coverageOf(db: Db, projectId: number, ref: string, job: string | null): Promise<number | null> {
  const pipeline = await db.selectFrom('ci_pipelines').select(['id', 'coverage'])
    .where('project_id', '=', projectId).where('ref', '=', ref).where('status', '=', 'success')
    .orderBy('id', 'desc').limit(1).executeTakeFirst()
  if (pipeline === undefined) return null
  let raw: string | number | null = pipeline.coverage
  if (job !== null && job !== '') {
    // The job as it stands: its latest try.
    const build = await db.selectFrom('ci_builds').select('coverage')
      .where('pipeline_id', '=', pipeline.id).where('name', '=', job).orderBy('id', 'desc').limit(1).executeTakeFirst()
    raw = build?.coverage ?? null
  }
  if (raw === null) return null
  const value = Number(raw)
  return Number.isFinite(value) ? Math.round(value * 100) / 100 : null
}

/** Colours by coverage, the first range that holds it (ends included), as the original's. */
const COVERAGE_COLORS: readonly (readonly [number, number, string])[] = [
  [95, 100, '#4c1'],
  [90, 95, '#a3c51c'],
  [75, 90, '#dfb317'],
  [0, 75, '#e05d44'],
]

export function coverageBadge(coverage: number | null): BadgeTemplate {
  const color = coverage === null ? undefined : COVERAGE_COLORS.find(([low, high]) => coverage >= low && coverage <= high)?.[2]
  return {
    keyText: 'coverage',
    valueText: coverage === null ? 'unknown' : `${coverage.toFixed(2)}%`,
    keyColor: KEY_COLOR,
    valueColor: color ?? GREY,
    keyWidth: 62,
    valueWidth: coverage === null ? 58 : 54,
  }
}
