// Whether a job belongs in a pipeline (`only`/`except`), as a table of policies and contexts.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { jobIncluded, type PipelineContext } from '../../src/services/ci/config/job-rules.js'
import { parseCiConfig } from '../../src/services/ci/config/parse.js'
import type { CiJob } from '../../src/services/ci/config/types.js'

/** The job's only/except from the YAML of its `only:` and `except:` lines. */
async function policiesOf(lines: string): Promise<Pick<CiJob, 'only' | 'except'>> {
  const result = await parseCiConfig(`job:\n  script: x\n${lines.replace(/^/gm, '  ')}\n`)
  assert.ok(result.ok, result.ok ? '' : result.errors.join('\n'))
  return result.config.jobs[0]!
}

const BRANCH_PUSH: PipelineContext = { ref: 'master', tag: false, source: 'push', variables: {} }
const TAG_PUSH: PipelineContext = { ref: 'v1.0', tag: true, source: 'push', variables: {} }

const CASES: { name: string; policy: string; context: Partial<PipelineContext>; included: boolean }[] = [
  { name: 'no only: every branch', policy: '', context: {}, included: true },
  { name: 'no only: every tag', policy: '', context: TAG_PUSH, included: true },
  { name: 'no only: not a merge request pipeline', policy: '', context: { source: 'merge_request' }, included: false },
  { name: 'a branch by name', policy: 'only: [master]', context: {}, included: true },
  { name: 'another branch', policy: 'only: [master]', context: { ref: 'feature' }, included: false },
  { name: 'branches', policy: 'only: [branches]', context: {}, included: true },
  { name: 'branches, for a tag', policy: 'only: [branches]', context: TAG_PUSH, included: false },
  { name: 'tags', policy: 'only: [tags]', context: TAG_PUSH, included: true },
  { name: 'tags, for a branch', policy: 'only: [tags]', context: {}, included: false },
  { name: 'a regular expression', policy: 'only: [/^release-\\d+$/]', context: { ref: 'release-12' }, included: true },
  { name: 'a regular expression that does not match', policy: 'only: [/^release-\\d+$/]', context: { ref: 'pre-release-12x' }, included: false },
  { name: 'a case-insensitive regular expression', policy: 'only: [/^RELEASE/i]', context: { ref: 'release-1' }, included: true },
  { name: 'a source, plural', policy: 'only: [schedules]', context: { source: 'schedule' }, included: true },
  { name: 'a source, singular', policy: 'only: [web]', context: { source: 'web' }, included: true },
  { name: 'pushes', policy: 'only: [pushes]', context: {}, included: true },
  { name: 'triggers, for a push', policy: 'only: [triggers]', context: {}, included: false },
  { name: 'api and external', policy: 'only: [api, external]', context: { source: 'external' }, included: true },
  { name: 'merge requests', policy: 'only: [merge_requests]', context: { source: 'merge_request', ref: 'feature' }, included: true },
  { name: 'a ref of this project', policy: 'only: [branches@group/app]', context: { projectPath: 'group/app' }, included: true },
  { name: 'a ref of another project (a fork)', policy: 'only: [branches@group/app]', context: { projectPath: 'fork/app' }, included: false },
  { name: 'a regular expression of this project', policy: 'only: [/^rel/@group/app]', context: { ref: 'release', projectPath: 'group/app' }, included: true },
  { name: 'a project-qualified ref without a project path', policy: 'only: [master@group/app]', context: {}, included: false },
  { name: 'except a branch', policy: 'except: [master]', context: {}, included: false },
  { name: 'except another branch', policy: 'except: [master]', context: { ref: 'feature' }, included: true },
  { name: 'except tags, for a tag', policy: 'except: [tags]', context: TAG_PUSH, included: false },
  { name: 'a variable set', policy: 'only: {variables: [$DEPLOY]}', context: { variables: { DEPLOY: '1' } }, included: true },
  { name: 'a variable blank', policy: 'only: {variables: [$DEPLOY]}', context: { variables: { DEPLOY: '  ' } }, included: false },
  { name: 'a variable unset', policy: 'only: {variables: [$DEPLOY]}', context: {}, included: false },
  { name: 'a variable equal', policy: 'only: {variables: [$ENV == "prod"]}', context: { variables: { ENV: 'prod' } }, included: true },
  { name: 'a variable equal, swapped and single-quoted', policy: "only: {variables: [\"'prod' == $ENV\"]}", context: { variables: { ENV: 'prod' } }, included: true },
  { name: 'a variable not equal', policy: 'only: {variables: [$ENV != "prod"]}', context: { variables: { ENV: 'prod' } }, included: false },
  { name: 'two variables equal', policy: 'only: {variables: [$A == $B]}', context: { variables: { A: 'x', B: 'x' } }, included: true },
  { name: 'a variable equal to null when unset', policy: 'only: {variables: [$A == null]}', context: {}, included: true },
  { name: 'a variable not null when set', policy: 'only: {variables: [$A != null]}', context: { variables: { A: '' } }, included: true },
  { name: 'a variable matching', policy: "only: {variables: ['$CI_COMMIT_MESSAGE =~ /\\[deploy\\]/']}", context: { variables: { CI_COMMIT_MESSAGE: 'fix [deploy]' } }, included: true },
  { name: 'a variable matching, case-insensitive', policy: 'only: {variables: [$M =~ /DEPLOY/i]}', context: { variables: { M: 'deploy' } }, included: true },
  { name: 'a variable not matching (11.11)', policy: 'only: {variables: [$M !~ /^wip/]}', context: { variables: { M: 'wip: x' } }, included: false },
  { name: 'an unset variable never matches', policy: 'only: {variables: [$M =~ /x/]}', context: {}, included: false },
  { name: 'any of the expressions', policy: 'only: {variables: [$A, $B]}', context: { variables: { B: 'b' } }, included: true },
  { name: 'refs and variables both needed', policy: 'only: {refs: [master], variables: [$A]}', context: { ref: 'feature', variables: { A: 'a' } }, included: false },
  { name: 'except when a variable says so', policy: 'except: {variables: [$SKIP == "yes"]}', context: { variables: { SKIP: 'yes' } }, included: false },
  { name: 'except refs or variables: either excludes', policy: 'except: {refs: [feature], variables: [$SKIP]}', context: {}, included: true },
  { name: 'changes matching a changed path', policy: 'only: {changes: ["docs/**/*.md"]}', context: { changedPaths: ['src/a.ts', 'docs/guide/x.md'] }, included: true },
  { name: 'changes matching no changed path', policy: 'only: {changes: ["docs/**/*.md", "*.{yml,yaml}"]}', context: { changedPaths: ['src/a.ts'] }, included: false },
  { name: 'changes with a brace alternative', policy: 'only: {changes: ["*.{yml,yaml}"]}', context: { changedPaths: ['.gitlab-ci.yml'] }, included: true },
  { name: 'changes when the changed paths are unknown', policy: 'only: {changes: [docs/*]}', context: { source: 'web' }, included: true },
  { name: 'except changes', policy: 'except: {changes: [docs/*]}', context: { changedPaths: ['docs/a.md'] }, included: false },
  { name: 'kubernetes active, without an integration', policy: 'only: {kubernetes: active}', context: {}, included: false },
  { name: 'kubernetes active, with one', policy: 'only: {kubernetes: active}', context: { kubernetesActive: true }, included: true },
]

describe('jobIncluded: only and except', () => {
  for (const c of CASES) {
    it(`${c.name} → ${c.included ? 'included' : 'left out'}`, async () => {
      assert.equal(jobIncluded(await policiesOf(c.policy), { ...BRANCH_PUSH, ...c.context }), c.included)
    })
  }

  // A backtracking engine would not come back from this in the lifetime of the test (a hang the
  // runner's limit turns into a failure); RE2 answers at once.
  it('matches a catastrophic regular expression in linear time', { timeout: 60_000 }, async () => {
    const job = await policiesOf('only: [/^(a+)+$/]')
    assert.equal(jobIncluded(job, { ...BRANCH_PUSH, ref: `${'a'.repeat(100_000)}!` }), false)
    assert.equal(jobIncluded(job, { ...BRANCH_PUSH, ref: 'a'.repeat(100_000) }), true)
  })
})
