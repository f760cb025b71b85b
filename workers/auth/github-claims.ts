/**
 * GitHub Actions OIDC claims → Caller (docs/design.md, "Security model"). Pure: the token's signature,
 * issuer, audience and lifetime were verified before; here the repository is checked against configuration
 * and the scopes the job may act on are derived from its ref (docs/design.md, "Security model": the scope
 * comes from what GitHub signed, never from the request).
 */
import { z } from "zod";
import { SponsonError } from "../../shared/errors";
import type { RepositoryConfig } from "../../shared/schemas/repository";
import type { GithubCaller } from "./caller";
import { githubProvenance } from "./provenance";
import { environmentsForRef, refKindOf } from "./ref-environments";

/** The claims this service reads; GitHub sends more, which are ignored. */
export const githubClaimsSchema = z.object({
  sub: z.string().min(1),
  repository: z.string().min(3),
  repository_id: z.string().regex(/^[0-9]+$/),
  repository_owner: z.string().min(1),
  ref: z.string().min(1),
  event_name: z.string().min(1),
  ref_type: z.string().optional(),
  head_ref: z.string().optional(),
  base_ref: z.string().optional(),
  job_workflow_ref: z.string().optional(),
  /** The GitHub deployment environment the job runs in (present only then). */
  environment: z.string().optional(),
  // Provenance (docs/design.md, "Provenance"): read, never trusted for access.
  actor: z.string().optional(),
  sha: z.string().optional(),
  run_id: z.string().optional(),
  run_attempt: z.string().optional(),
  workflow: z.string().optional(),
});
export type GithubClaims = z.infer<typeof githubClaimsSchema>;

const PULL_REQUEST_EVENTS = new Set(["pull_request", "pull_request_target"]);
/**
 * The events whose branch ref the job's own author chose: a push, a manual dispatch (write access),
 * the repository's own schedule, a merge queue's branch, a release, a created ref and a deployment.
 * Every other event is refused branch scopes and `main`: GitHub runs `pull_request_target`,
 * `workflow_run`, `issue_comment`, `issues`, `discussion`, `check_run`, `status`, `watch`, … on the
 * default branch for whoever triggered them, so their ref proves nothing about who speaks for it.
 */
export const BRANCH_EVENTS: ReadonlySet<string> = new Set([
  "push",
  "workflow_dispatch",
  "schedule",
  "merge_group",
  "release",
  "create",
  "deployment",
]);
const PULL_REF = /^refs\/pull\/([1-9][0-9]{0,9})\/(merge|head)$/;
const BRANCH_PREFIX = "refs/heads/";

/**
 * The scopes a job may act on, from its signed ref:
 * - `pr-<n>` when the ref is `refs/pull/<n>/merge` or `refs/pull/<n>/head` from a pull-request event;
 * - `branch-<name>` when the ref is `refs/heads/<name>`, and `main` too when that is the
 *   repository's default branch — but only from an event in BRANCH_EVENTS: a `pull_request_target`,
 *   `workflow_run` or `issue_comment` job runs with the default branch's ref while serving someone
 *   else's pull request or comment, so its ref proves nothing about which branch it speaks for;
 * - nothing otherwise (tags, merge queues, unknown shapes).
 */
export function scopesForRef(
  claims: Pick<GithubClaims, "ref" | "event_name">,
  defaultBranch: string,
): string[] {
  const isPullRequestEvent = PULL_REQUEST_EVENTS.has(claims.event_name);
  const pull = PULL_REF.exec(claims.ref);
  if (pull) return isPullRequestEvent ? [`pr-${pull[1]}`] : [];
  if (claims.ref.startsWith(BRANCH_PREFIX) && BRANCH_EVENTS.has(claims.event_name)) {
    const branch = claims.ref.slice(BRANCH_PREFIX.length);
    if (branch.length === 0) return [];
    return branch === defaultBranch ? [`branch-${branch}`, "main"] : [`branch-${branch}`];
  }
  return [];
}

/**
 * Finds the configured repository by id AND name: a name alone can be re-registered by someone
 * else after a rename or deletion, an id alone would survive a transfer the operator never saw.
 */
export function configuredRepository(
  claims: GithubClaims,
  repositories: RepositoryConfig[],
): RepositoryConfig {
  const byId = repositories.find((r) => String(r.id) === claims.repository_id);
  const name = claims.repository.toLowerCase();
  if (byId && byId.name.toLowerCase() === name) return byId;
  if (byId) {
    throw new SponsonError(
      "FORBIDDEN",
      "the token's repository name does not match the configured repository with its id",
      {
        rule: "github.repository-name",
        repository: claims.repository,
        repositoryId: claims.repository_id,
      },
    );
  }
  if (repositories.some((r) => r.name.toLowerCase() === name)) {
    throw new SponsonError(
      "FORBIDDEN",
      "the token's repository id does not match the configured repository with its name",
      {
        rule: "github.repository-id",
        repository: claims.repository,
        repositoryId: claims.repository_id,
      },
    );
  }
  throw new SponsonError("FORBIDDEN", "the token's repository is not configured in SPONSON_REPOSITORIES", {
    rule: "github.repository",
    repository: claims.repository,
    repositoryId: claims.repository_id,
  });
}

export function githubCaller(
  claims: GithubClaims,
  repositories: RepositoryConfig[],
  destroyEnvironments: readonly string[],
): GithubCaller {
  const repo = configuredRepository(claims, repositories);
  const scopes = scopesForRef(claims, repo.defaultBranch);
  const refKind = refKindOf(scopes);
  return {
    kind: "github",
    subject: claims.sub,
    role: "ci",
    repository: claims.repository,
    repositoryId: claims.repository_id,
    ref: claims.ref,
    eventName: claims.event_name,
    ...(claims.job_workflow_ref ? { workflowRef: claims.job_workflow_ref } : {}),
    scopes,
    environments: repo.environments ?? null,
    refKind,
    refEnvironments: environmentsForRef(refKind, repo, destroyEnvironments),
    deploymentEnvironment: claims.environment ?? null,
    deploymentEnvironments: repo.deploymentEnvironments ?? {},
    jobWorkflowRefs: repo.jobWorkflowRef ?? {},
    provenance: githubProvenance(claims),
  };
}
