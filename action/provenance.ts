/**
 * Where a run comes from, as a service-token caller declares it (issue 28, item 1; docs/cli.md,
 * "The GitHub Action"): the body's `provenance`, read from the runner's GITHUB_* variables and the
 * event's pull request. The service stores it marked `declared` and ignores it for GitHub OIDC
 * callers, whose verified claims say the same. Pure: the environment is passed in.
 */

export interface DeclaredProvenance {
  actor?: string;
  pullRequest?: number;
  headBranch?: string;
  sha?: string;
  ref?: string;
  runUrl?: string;
}

type Env = Record<string, string | undefined>;

/** The event's pull request, when the job runs for one. */
export interface EventPullRequest {
  number: number;
  /** The pull request's head commit: GITHUB_SHA is the test-merge commit there. */
  headSha?: string;
}

export function provenanceFromGithub(env: Env, pullRequest: EventPullRequest | null): DeclaredProvenance {
  const out: DeclaredProvenance = {};
  if (env.GITHUB_ACTOR) out.actor = env.GITHUB_ACTOR;
  if (pullRequest) out.pullRequest = pullRequest.number;
  // Set by GitHub only for pull_request and pull_request_target events.
  if (env.GITHUB_HEAD_REF) out.headBranch = env.GITHUB_HEAD_REF;
  const sha = pullRequest?.headSha || env.GITHUB_SHA;
  if (sha) out.sha = sha;
  if (env.GITHUB_REF) out.ref = env.GITHUB_REF;
  const { GITHUB_SERVER_URL: server, GITHUB_REPOSITORY: repository, GITHUB_RUN_ID: runId } = env;
  if (server && repository && runId) {
    out.runUrl = `${server.replace(/\/+$/, "")}/${repository}/actions/runs/${runId}/attempts/${env.GITHUB_RUN_ATTEMPT || "1"}`;
  }
  return out;
}
