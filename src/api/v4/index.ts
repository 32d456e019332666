// Mounts every resource of /api/v4: the whole API surface, readable in one file.
import type { FastifyPluginAsync } from 'fastify'
import applicationSettings from './application-settings.js'
import applications from './applications.js'
import awardEmoji from './award-emoji.js'
import boards from './boards.js'
import branches from './branches.js'
import ciLint from './ci-lint.js'
import ciVariables from './ci-variables.js'
import commits from './commits.js'
import customAttributes from './custom-attributes.js'
import discussions from './discussions.js'
import events from './events.js'
import groups from './groups.js'
import impersonationTokens from './impersonation-tokens.js'
import integrations from './integrations.js'
import issues from './issues.js'
import jobs from './jobs.js'
import jobArtifacts from './job-artifacts.js'
import runnerJobFiles from './runner-job-files.js'
import commitStatuses from './commit-statuses.js'
import deployKeys from './deploy-keys.js'
import deployments from './deployments.js'
import environments from './environments.js'
import labels from './labels.js'
import members from './members.js'
import milestones from './milestones.js'
import mergeRequestGit from './merge-request-git.js'
import mergeRequests from './merge-requests.js'
import namespaces from './namespaces.js'
import notes from './notes.js'
import notificationSettings from './notification-settings.js'
import pipelines from './pipelines.js'
import pipelineSchedules from './pipeline-schedules.js'
import triggers from './triggers.js'
import badges from './badges.js'
import projectExport from './project-export.js'
import projectHousekeeping from './project-housekeeping.js'
import projectUploads from './project-uploads.js'
import projectHooks from './project-hooks.js'
import projects from './projects.js'
import projectImport from './project-import.js'
import protectedBranches from './protected-branches.js'
import protectedTags from './protected-tags.js'
import repository from './repository.js'
import repositoryFiles from './repository-files.js'
import runnerRegistration from './runner-registration.js'
import runners from './runners.js'
import runnerJobs from './runner-jobs.js'
import snippets from './snippets.js'
import systemHooks from './system-hooks.js'
import tags from './tags.js'
import users from './users.js'
import version from './version.js'
import wikis from './wikis.js'

const apiV4: FastifyPluginAsync = async (app) => {
  await app.register(applicationSettings)
  await app.register(applications)
  await app.register(awardEmoji)
  await app.register(boards)
  await app.register(branches)
  await app.register(ciLint)
  await app.register(ciVariables)
  await app.register(commits)
  await app.register(customAttributes)
  await app.register(discussions)
  await app.register(events)
  await app.register(groups)
  await app.register(impersonationTokens)
  await app.register(integrations)
  await app.register(issues)
  await app.register(jobs)
  await app.register(jobArtifacts)
  await app.register(runnerJobFiles)
  await app.register(commitStatuses)
  await app.register(deployKeys)
  await app.register(deployments)
  await app.register(environments)
  await app.register(labels)
  await app.register(members)
  await app.register(milestones)
  await app.register(mergeRequestGit)
  await app.register(mergeRequests)
  await app.register(namespaces)
  await app.register(notes)
  await app.register(notificationSettings)
  await app.register(pipelines)
  await app.register(pipelineSchedules)
  await app.register(triggers)
  await app.register(badges)
  await app.register(projectExport)
  await app.register(projectHousekeeping)
  await app.register(projectUploads)
  await app.register(projectHooks)
  await app.register(projects)
  await app.register(projectImport)
  await app.register(protectedBranches)
  await app.register(protectedTags)
  await app.register(repository)
  await app.register(repositoryFiles)
  await app.register(runnerRegistration)
  await app.register(runners)
  await app.register(runnerJobs)
  await app.register(snippets)
  await app.register(systemHooks)
  await app.register(tags)
  await app.register(users)
  await app.register(version)
  await app.register(wikis)
}

export default apiV4
