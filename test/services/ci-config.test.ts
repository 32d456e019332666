// The CI file reader as a table: each file, and the normalized jobs or the errors (the original
// 11.5's messages) it must come to.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { stringify } from 'yaml'
import { parseCiConfig } from '../../src/services/ci/config/parse.js'
import type { CiJob, CiPipelineDefinition } from '../../src/services/ci/config/types.js'

interface ValidCase {
  name: string
  yaml: string
  /** Per job name, the fields to compare (the others may be anything). */
  jobs?: Record<string, Partial<CiJob>>
  /** The visible jobs' names, in order. */
  names?: string[]
  pipeline?: Partial<Omit<CiPipelineDefinition, 'jobs'>>
  files?: Record<string, string>
}

interface InvalidCase {
  name: string
  yaml: string
  errors: string[]
  files?: Record<string, string>
}

const DEFAULT_ONLY = { refs: ['branches', 'tags'], variables: null, changes: null, kubernetes: null }

const VALID: ValidCase[] = [
  {
    name: 'the defaults of a job with a script only',
    yaml: 'rspec:\n  script: rake spec\n',
    pipeline: { stages: ['build', 'test', 'deploy'], variables: {} },
    jobs: {
      rspec: {
        stage: 'test', stageIndex: 1, beforeScript: [], script: ['rake spec'], afterScript: [], when: 'on_success', startIn: null,
        allowFailure: false, tags: [], dependencies: null, only: DEFAULT_ONLY, except: null, variables: {}, image: null,
        services: [], cache: null, artifacts: null, environment: null, coverage: null, retry: null, parallel: null,
      },
    },
  },
  {
    name: 'global before_script, after_script, image, services and cache inherited unless the job has its own',
    yaml: `
before_script: [bundle]
after_script: [cleanup]
image: ruby:2.5
services: [postgres, {name: redis:4, alias: cache}]
cache: {paths: [vendor/]}
variables: {DB: postgres, PORT: 5432}
rspec:
  script: rspec
own:
  before_script: []
  image: {name: alpine, entrypoint: [""]}
  cache: {key: own, policy: pull}
  variables: {DB: mysql}
  script: [a, b]
`,
    pipeline: { variables: { DB: 'postgres', PORT: '5432' } },
    jobs: {
      rspec: {
        beforeScript: ['bundle'], afterScript: ['cleanup'], image: { name: 'ruby:2.5' },
        services: [{ name: 'postgres' }, { name: 'redis:4', alias: 'cache' }],
        cache: { key: 'default', paths: ['vendor/'], untracked: false, policy: 'pull-push' },
        variables: { DB: 'postgres', PORT: '5432' },
      },
      own: {
        beforeScript: [], script: ['a', 'b'], afterScript: ['cleanup'], image: { name: 'alpine', entrypoint: [''] },
        cache: { key: 'own', paths: [], untracked: false, policy: 'pull' }, variables: { DB: 'mysql', PORT: '5432' },
      },
    },
  },
  {
    name: 'stages declared, and the deprecated types and type',
    yaml: 'types: [lint, test]\nlint:\n  type: lint\n  script: x\n',
    pipeline: { stages: ['lint', 'test'] },
    jobs: { lint: { stage: 'lint', stageIndex: 0 } },
  },
  {
    name: 'YAML 1.1 as Psych reads it: yes/no/on/off booleans, y and n strings, dates as written',
    yaml: 'variables: {Y: y, N: n, DAY: 2018-11-22}\nrspec:\n  script: x\n  allow_failure: yes\nn:\n  script: y\n  allow_failure: Off\n',
    pipeline: { variables: { Y: 'y', N: 'n', DAY: '2018-11-22' } },
    jobs: { rspec: { allowFailure: true }, n: { script: ['y'], allowFailure: false } },
  },
  {
    name: 'anchors and << merge keys, hidden jobs dropped',
    yaml: `
.defaults: &defaults
  image: ruby
  tags: [docker]
  script: [default]
rspec:
  <<: *defaults
  script: [rspec]
lint: *defaults
`,
    names: ['rspec', 'lint'],
    jobs: { rspec: { image: { name: 'ruby' }, tags: ['docker'], script: ['rspec'] }, lint: { script: ['default'] } },
  },
  {
    name: 'extends deep-merges the base under the job, through several levels',
    yaml: `
.base:
  script: base
  variables: {A: a, B: b}
  only: {refs: [master]}
.middle:
  extends: .base
  variables: {B: middle}
  tags: [middle]
rspec:
  extends: .middle
  variables: {C: c}
  tags: [own]
`,
    jobs: {
      rspec: {
        script: ['base'], variables: { A: 'a', B: 'middle', C: 'c' }, tags: ['own'],
        only: { refs: ['master'], variables: null, changes: null, kubernetes: null },
      },
    },
  },
  {
    name: 'manual jobs may fail by default, unless they say otherwise; delayed ones start later',
    yaml: `
deploy:
  script: x
  when: manual
strict:
  script: x
  when: manual
  allow_failure: false
later:
  script: x
  when: delayed
  start_in: 30 minutes
`,
    jobs: {
      deploy: { when: 'manual', allowFailure: true },
      strict: { allowFailure: false },
      later: { when: 'delayed', allowFailure: false, startIn: { text: '30 minutes', seconds: 1800 } },
    },
  },
  {
    name: 'only and except, as a list and as a hash',
    yaml: `
rspec:
  script: x
  only: [master, /^release-.*$/, tags]
  except:
    refs: [schedules]
    variables: [$SKIP == "yes", $CI_COMMIT_MESSAGE =~ /skip/i]
    changes: [docs/**/*]
    kubernetes: active
`,
    jobs: {
      rspec: {
        only: { refs: ['master', '/^release-.*$/', 'tags'], variables: null, changes: null, kubernetes: null },
        except: { refs: ['schedules'], variables: ['$SKIP == "yes"', '$CI_COMMIT_MESSAGE =~ /skip/i'], changes: ['docs/**/*'], kubernetes: 'active' },
      },
    },
  },
  {
    name: 'parallel jobs expand into instances, and dependencies on them name every instance',
    yaml: `
rspec:
  stage: test
  script: rspec
  parallel: 3
report:
  stage: deploy
  script: report
  dependencies: [rspec]
`,
    names: ['rspec 1/3', 'rspec 2/3', 'rspec 3/3', 'report'],
    jobs: {
      'rspec 2/3': { parallel: { index: 2, total: 3 }, script: ['rspec'] },
      report: { dependencies: ['rspec 1/3', 'rspec 2/3', 'rspec 3/3'] },
    },
  },
  {
    name: 'artifacts, environment, coverage and retry normalized',
    yaml: `
build:
  stage: build
  script: make
  artifacts:
    name: dist
    paths: [dist/]
    untracked: true
    when: always
    expire_in: 1 week
    reports: {junit: report.xml}
  coverage: '/Coverage: \\d+%/'
  retry: 2
deploy:
  stage: deploy
  script: deploy
  dependencies: [build]
  environment: {name: review/$CI_COMMIT_REF_NAME, url: https://example.com, on_stop: stop}
  retry: {max: 1, when: [script_failure, api_failure]}
stop:
  stage: deploy
  script: stop
  environment: {name: review/$CI_COMMIT_REF_NAME, action: stop}
staging:
  stage: deploy
  script: x
  environment: staging
`,
    jobs: {
      build: {
        artifacts: { name: 'dist', paths: ['dist/'], untracked: true, when: 'always', expireIn: '1 week', reports: { junit: ['report.xml'] } },
        coverage: 'Coverage: \\d+%', retry: { max: 2, when: ['always'] },
      },
      deploy: {
        dependencies: ['build'], retry: { max: 1, when: ['script_failure', 'api_failure'] },
        environment: { name: 'review/$CI_COMMIT_REF_NAME', url: 'https://example.com', action: 'start', onStop: 'stop' },
      },
      staging: { environment: { name: 'staging', url: null, action: 'start', onStop: null } },
    },
  },
  {
    name: 'the first YAML document only, as Psych reads a stream',
    yaml: 'rspec:\n  script: x\n---\nlint: [\n',
    names: ['rspec'],
  },
  {
    name: 'local includes through the reader, the file winning over them',
    yaml: 'include: [/ci/base.yml, {local: ci/more.yaml}]\nvariables: {A: main}\nrspec:\n  script: rspec\n',
    files: { 'ci/base.yml': 'variables: {A: base, B: base}\nlint:\n  script: lint\n', 'ci/more.yaml': 'variables: {B: more, C: more}\n' },
    names: ['lint', 'rspec'],
    pipeline: { variables: { A: 'main', B: 'base', C: 'more' } },
  },
]

const INVALID: InvalidCase[] = [
  { name: 'blank content', yaml: '  \n', errors: ['Please provide content of .gitlab-ci.yml'] },
  { name: 'a root that is not a hash', yaml: '- rspec\n', errors: ['Invalid configuration format'] },
  { name: 'bad YAML', yaml: 'rspec: [\n', errors: ['(<unknown>): Flow sequence in block collection must be sufficiently indented and end with a ] at line 2, column 1:'] },
  { name: 'an alias of no anchor', yaml: 'rspec: *nothing\n', errors: ['(<unknown>): Unresolved alias (the anchor must be set before the alias): nothing'] },
  { name: 'no visible job', yaml: '.hidden:\n  script: x\n', errors: ['jobs config should contain at least one visible job'] },
  { name: 'a job that is not a hash', yaml: 'rspec: rake\n', errors: ['jobs:rspec config should be a hash'] },
  { name: 'an empty job', yaml: 'rspec:\n', errors: ["jobs:rspec config can't be blank", "jobs:rspec script can't be blank"] },
  { name: 'an empty hidden job', yaml: '.x:\nrspec:\n  script: x\n', errors: ["jobs:.x config can't be blank"] },
  { name: 'unknown keys and no script', yaml: 'rspec:\n  foo: 1\n  needs: [a]\n', errors: ['jobs:rspec config contains unknown keys: foo, needs', "jobs:rspec script can't be blank"] },
  { name: 'messages in lower case, job names and keys included', yaml: 'RSpec:\n  Script: x\n', errors: ['jobs:rspec config contains unknown keys: script', "jobs:rspec script can't be blank"] },
  { name: 'a blank script', yaml: 'rspec:\n  script: " "\n', errors: ["jobs:rspec script can't be blank"] },
  { name: 'script of the wrong type', yaml: 'rspec:\n  script: [a, [b]]\n', errors: ['jobs:rspec:script config should be a string or an array of strings'] },
  { name: 'before_script as a string', yaml: 'before_script: bundle\nrspec:\n  script: x\n  after_script: done\n', errors: ['before_script config should be an array of strings', 'jobs:rspec:after_script config should be an array of strings'] },
  { name: 'stages not a list of strings', yaml: 'stages: build\nrspec:\n  script: x\n  stage: [test]\n', errors: ['stages config should be an array of strings', 'jobs:rspec:stage config should be a string'] },
  { name: 'variables with booleans', yaml: 'variables: {A: true}\nrspec:\n  script: x\n  variables: [A]\n', errors: ['variables config should be a hash of key value pairs', 'jobs:rspec:variables config should be a hash of key value pairs'] },
  { name: 'an undeclared stage', yaml: 'rspec:\n  script: x\n  stage: lint\n', errors: ['rspec job: stage parameter should be build, test, deploy'] },
  { name: 'when unknown', yaml: 'rspec:\n  script: x\n  when: later\n', errors: ['jobs:rspec when should be on_success, on_failure, always, manual or delayed'] },
  { name: 'delayed without start_in', yaml: 'rspec:\n  script: x\n  when: delayed\n', errors: ['jobs:rspec start in should be a duration', 'jobs:rspec start in should not exceed the limit'] },
  { name: 'delayed over a day', yaml: 'rspec:\n  script: x\n  when: delayed\n  start_in: 2 days\n', errors: ['jobs:rspec start in should not exceed the limit'] },
  { name: 'start_in without delayed', yaml: 'rspec:\n  script: x\n  start_in: 1 hour\n', errors: ['jobs:rspec start in must be blank'] },
  { name: 'allow_failure and tags of the wrong type', yaml: 'rspec:\n  script: x\n  allow_failure: maybe\n  tags: docker\n', errors: ['jobs:rspec tags should be an array of strings', 'jobs:rspec allow failure should be a boolean value'] },
  { name: 'parallel out of range', yaml: 'a:\n  script: x\n  parallel: 1\nb:\n  script: x\n  parallel: 51\nc:\n  script: x\n  parallel: 2.5\nd:\n  script: x\n  parallel: many\n', errors: ['jobs:a parallel must be greater than or equal to 2', 'jobs:b parallel must be less than or equal to 50', 'jobs:c parallel must be an integer', 'jobs:d parallel is not a number'] },
  { name: 'a dependency not defined', yaml: 'rspec:\n  script: x\n  dependencies: [build]\n', errors: ['rspec job: undefined dependency: build'] },
  { name: 'a dependency of the same stage', yaml: 'build:\n  script: x\nrspec:\n  script: x\n  dependencies: [build]\n', errors: ['rspec job: dependency build is not defined in prior stages'] },
  { name: 'dependencies not a list', yaml: 'rspec:\n  script: x\n  dependencies: build\n', errors: ['jobs:rspec dependencies should be an array of strings'] },
  {
    name: 'on_stop naming no job, or a job that does not stop the environment',
    yaml: 'a:\n  script: x\n  environment: {name: e, on_stop: none}\nb:\n  script: x\n  environment: {name: e, on_stop: c}\nc:\n  script: x\n  environment: {name: e}\n',
    errors: ['a job: on_stop job none is not defined', 'b job: on_stop job c needs to have action stop defined'],
  },
  {
    name: 'environment mistakes',
    yaml: 'a:\n  script: x\n  environment: {name: "a:b", action: restart, foo: 1}\nb:\n  script: x\n  environment: [prod]\n',
    errors: [
      'jobs:a:environment config contains unknown keys: foo',
      "jobs:a:environment name can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', and spaces",
      'jobs:a:environment action should be start or stop',
      'jobs:b:environment config should be a hash or a string',
    ],
  },
  {
    name: 'only and except mistakes',
    yaml: 'a:\n  script: x\n  only: master\nb:\n  script: x\n  except: {refs: [1], kubernetes: passive, variables: [$A === 1], foo: 1}\nc:\n  script: x\n  only: [/(/]\nd:\n  script: x\n  only: [/^(a)\\1$/]\n',
    errors: [
      'jobs:a:only has to be either an array of conditions or a hash',
      'jobs:b:except config contains unknown keys: foo',
      'jobs:b:except variables invalid expression syntax',
      'jobs:b:except refs should be an array of strings or regexps',
      'jobs:b:except kubernetes unknown value: passive',
      'jobs:c:only config should be an array of strings or regexps',
      // RE2 has no backreferences: refused when the file is read, not when a pipeline matches it.
      'jobs:d:only config should be an array of strings or regexps',
    ],
  },
  { name: 'coverage not a regular expression', yaml: 'rspec:\n  script: x\n  coverage: "\\\\d+%"\n', errors: ['jobs:rspec:coverage config must be a regular expression'] },
  {
    name: 'retry mistakes',
    yaml: 'a:\n  script: x\n  retry: 3\nb:\n  script: x\n  retry: {max: 1, when: [bad_luck], foo: 1}\nc:\n  script: x\n  retry: yes\n',
    errors: [
      'jobs:a:retry config must be less than or equal to 2',
      'jobs:b:retry config contains unknown keys: foo',
      'jobs:b:retry when contains unknown values: bad_luck',
      'jobs:c:retry config has to be either an integer or a hash',
    ],
  },
  {
    name: 'artifacts and cache mistakes',
    yaml: 'a:\n  script: x\n  artifacts: {paths: dist, when: sometimes, expire_in: soon, reports: {junit: 1, bogus: []}}\nb:\n  script: x\n  cache: {key: a/b, untracked: 1, policy: keep}\nc:\n  script: x\n  cache: [x]\n',
    errors: [
      'jobs:a:artifacts paths should be an array of strings',
      'jobs:a:artifacts when should be on_success, on_failure or always',
      'jobs:a:artifacts expire in should be a duration',
      'jobs:a:artifacts:reports config contains unknown keys: bogus',
      'jobs:a:artifacts:reports junit should be an array of strings or a string',
      'jobs:b:cache policy should be pull-push, push, or pull',
      'jobs:b:cache:key config cannot contain the "/" character',
      'jobs:b:cache:untracked config should be a boolean value',
      'jobs:c:cache config should be a hash',
    ],
  },
  {
    name: 'image and services mistakes',
    yaml: 'image: {entrypoint: sh}\nservices: postgres\nrspec:\n  script: x\n  services: [{name: redis, port: 1}]\n',
    errors: [
      'image name should be a string',
      "image name can't be blank",
      'image entrypoint should be an array of strings',
      'services config should be a array',
      'service config contains unknown keys: port',
    ],
  },
  { name: 'extends an unknown key', yaml: 'rspec:\n  extends: .nothing\n  script: x\n', errors: ['rspec: unknown key in `extends`'] },
  { name: 'extends a base that is not a hash', yaml: '.base: [x]\nrspec:\n  extends: .base\n  script: x\n', errors: ['rspec: invalid base hash in `extends`'] },
  { name: 'extends in a circle', yaml: '.a:\n  extends: .b\n.b:\n  extends: .a\nrspec:\n  script: x\n', errors: ['.a: circular dependency detected in `extends`'] },
  { name: 'extends a list (12.0 and later)', yaml: '.a:\n  script: x\nrspec:\n  extends: [.a]\n', errors: ['rspec: unknown key in `extends`'] },
  {
    name: 'extends nested deeper than ten levels',
    yaml: `${Array.from({ length: 12 }, (_, i) => `.l${i}:\n  extends: .l${i + 1}\n`).join('')}.l12:\n  script: x\nrspec:\n  extends: .l0\n`,
    errors: ['.l11: nesting too deep in `extends`'],
  },
  { name: 'a local include without a project', yaml: 'include: ci/base.yml\nrspec:\n  script: x\n', errors: ['Local file `ci/base.yml` does not have project!'] },
  { name: 'a remote include', yaml: 'include: https://example.com/ci.yml\nrspec:\n  script: x\n', errors: ['Remote file `https://example.com/ci.yml` was not fetched: Ingot does not fetch remote includes'] },
  { name: 'an include without a YAML extension', yaml: 'include: ci/base.txt\nrspec:\n  script: x\n', errors: ['Included file `ci/base.txt` does not have YAML extension!'] },
  { name: 'an include of two kinds at once', yaml: 'include: {local: a.yml, remote: https://x/b.yml}\nrspec:\n  script: x\n', errors: ['Include `{"local":"a.yml","remote":"https://x/b.yml"}` needs to match exactly one accessor!'] },
  {
    name: 'includes missing, empty or not YAML',
    yaml: 'include: [missing.yml, empty.yml, broken.yml]\nrspec:\n  script: x\n',
    files: { 'empty.yml': '\n', 'broken.yml': 'a: [\n' },
    errors: ['Local file `missing.yml` does not exist!', 'Included file `empty.yml` is empty or does not exist!', 'Included file `broken.yml` does not have valid YAML syntax!'],
  },
]

const readerOf = (files: Record<string, string> | undefined) =>
  files === undefined ? undefined : async (path: string) => (Object.hasOwn(files, path) ? files[path]! : null)

describe('CI file: valid files and what they come to', () => {
  for (const c of VALID) {
    it(c.name, async () => {
      const result = await parseCiConfig(c.yaml, { readLocalFile: readerOf(c.files) })
      assert.ok(result.ok, result.ok ? '' : result.errors.join('\n'))
      const { jobs, ...pipeline } = result.config
      if (c.names !== undefined) assert.deepEqual(jobs.map((job) => job.name), c.names)
      for (const [key, value] of Object.entries(c.pipeline ?? {})) assert.deepEqual(pipeline[key as keyof typeof pipeline], value, key)
      for (const [name, expected] of Object.entries(c.jobs ?? {})) {
        const job = jobs.find((candidate) => candidate.name === name)
        assert.ok(job, `no job ${name}`)
        for (const [field, value] of Object.entries(expected)) assert.deepEqual(job[field as keyof CiJob], value, `${name}.${field}`)
      }
    })
  }
})

describe('CI file: invalid files and their errors', () => {
  for (const c of INVALID) {
    it(c.name, async () => {
      const result = await parseCiConfig(c.yaml, { readLocalFile: readerOf(c.files) })
      assert.ok(!result.ok, 'expected errors')
      assert.deepEqual(result.errors, c.errors)
    })
  }
})

describe('CI file: what could exhaust the server', () => {
  it('refuses a billion laughs quickly', async () => {
    const levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for (let i = 1; i < 9; i++) levels.push(`${'abcdefghi'[i]}: &${'abcdefghi'[i]} [${Array(9).fill(`*${'abcdefghi'[i - 1]}`).join(',')}]`)
    const started = performance.now()
    const result = await parseCiConfig(`${levels.join('\n')}\nrspec:\n  script: x\n`)
    assert.deepEqual(result, { ok: false, errors: ['The parsed YAML is too big'] })
    assert.ok(performance.now() - started < 1000)
  })

  it('refuses a file over 1 MiB, and one nested too deep', async () => {
    assert.deepEqual(await parseCiConfig(`rspec:\n  script: "${'x'.repeat(1024 * 1024)}"\n`), { ok: false, errors: ['The parsed YAML is too big'] })
    const started = performance.now()
    assert.deepEqual(await parseCiConfig(`a: ${'['.repeat(500_000)}`), { ok: false, errors: ['The parsed YAML is too deep'] })
    assert.deepEqual(await parseCiConfig(`a: ${'['.repeat(150)}${']'.repeat(150)}\nb:\n  script: x\n`), { ok: false, errors: ['The parsed YAML is too deep'] })
    assert.ok(performance.now() - started < 1000)
  })

  it('refuses includes that together pass 4 MiB', async () => {
    const big = `variables: {A: "${'x'.repeat(900 * 1024)}"}\n`
    const includes = Array.from({ length: 5 }, (_, i) => `f${i}.yml`)
    const result = await parseCiConfig(`include: [${includes.join(', ')}]\nrspec:\n  script: x\n`, { readLocalFile: async () => big })
    assert.deepEqual(result, { ok: false, errors: ['The parsed YAML is too big'] })
  })

  it('keeps aliases apart: extending one use of an anchor changes no other', async () => {
    const result = await parseCiConfig('.v: &v {A: a}\n.base:\n  variables: {B: b}\nrspec:\n  extends: .base\n  variables: *v\n  script: x\nlint:\n  variables: *v\n  script: x\n')
    assert.ok(result.ok)
    assert.deepEqual(result.config.jobs.map((job) => job.variables), [{ A: 'a', B: 'b' }, { A: 'a' }])
  })

  it('never throws, whatever mapping of CI keys and values the file holds', async () => {
    const key = fc.constantFrom('script', 'stage', 'only', 'except', 'variables', 'image', 'services', 'cache', 'artifacts',
      'environment', 'retry', 'parallel', 'when', 'start_in', 'extends', 'include', 'dependencies', 'refs', 'changes', 'name',
      'paths', 'key', 'max', 'on_stop', 'action', 'reports', '.base', 'rspec', '__proto__', 'constructor')
    const { value } = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, fc.string({ maxLength: 6 }), fc.integer(), fc.double(), fc.boolean(), fc.constant(null),
        fc.constantFrom('/a+/', '$A == "x"', '1 day', 'delayed', '.base', 'rspec', 'ci.yml'),
        fc.array(tie('value'), { maxLength: 3 }), fc.dictionary(key, tie('value'), { maxKeys: 4 })),
    }))
    await fc.assert(fc.asyncProperty(fc.dictionary(key, value, { maxKeys: 5 }), async (root) => {
      const result = await parseCiConfig(stringify(root), { readLocalFile: async () => 'lint:\n  script: x\n' })
      assert.equal(typeof result.ok, 'boolean')
    }), { numRuns: 500, seed: 20261127 })
  })

  it('reads `__proto__` as a plain name', async () => {
    const result = await parseCiConfig('__proto__:\n  script: x\n')
    assert.ok(result.ok)
    assert.equal(result.config.jobs[0]!.name, '__proto__')
    assert.equal(({} as Record<string, unknown>).script, undefined)
  })
})
