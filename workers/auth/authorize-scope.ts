/**
 * May this caller act on this environment and scope? (docs/design.md, "Security model"). Pure; called before
 * any lock is taken (docs/design.md, "Staleness recheck": authorize before the lease, then recheck the
 * scope's revision under it). Refusals name the rule that failed and never carry a token or a secret.
 */
import { SponsonError } from "../../shared/errors";
import { isValidEnvironment, isValidScope } from "../../shared/lock-keys";
import { matchScopePattern } from "../policy/glob";
import type { Caller } from "./caller";
import { BRANCH_EVENTS } from "./github-claims";

const BRANCH_EVENT_NAMES = [...BRANCH_EVENTS].join(" / ");

export const SCOPE_ACTIONS = ["apply", "preview", "destroy", "rollback", "read"] as const;
export type ScopeAction = (typeof SCOPE_ACTIONS)[number];

function forbidden(rule: string, message: string, environment: string, scope: string, action: ScopeAction) {
  return new SponsonError("FORBIDDEN", message, { rule, environment, scope, action });
}

export function authorizeScope(
  caller: Caller,
  environment: string,
  scope: string,
  action: ScopeAction,
): void {
  if (!isValidEnvironment(environment) || !isValidScope(scope)) {
    throw new SponsonError("VALIDATION", `"${environment}/${scope}" is not an environment and scope`);
  }
  // Every role reads: viewer is the least an authenticated caller has.
  if (action === "read") return;
  if (caller.role === "admin") return;
  if (caller.role === "viewer") {
    throw forbidden(
      "role.viewer",
      `role viewer may only read; ${action} needs ci or admin`,
      environment,
      scope,
      action,
    );
  }
  // Service tokens, and Access identities (never ci, so never here): their scopes are the patterns.
  if (caller.kind !== "github") {
    if (caller.scopes.some((p) => matchScopePattern(p, environment, scope))) return;
    throw forbidden(
      "service.scopes",
      `the service token's scopes do not cover ${environment}/${scope}`,
      environment,
      scope,
      action,
    );
  }
  if (caller.environments !== null && !caller.environments.includes(environment)) {
    throw forbidden(
      "github.environments",
      `repository ${caller.repository} is not configured for environment "${environment}"`,
      environment,
      scope,
      action,
    );
  }
  if (!caller.scopes.includes(scope)) {
    throw forbidden(
      "github.ref",
      githubRefusal(caller.ref, caller.eventName, scope),
      environment,
      scope,
      action,
    );
  }
  // docs/security.md, "Environments bound to the ref": what the ref kind may reach, then what the
  // environment itself demands of the job.
  const { allowed, setting } = caller.refEnvironments;
  if (allowed !== null && !allowed.includes(environment)) {
    throw forbidden(
      "github.ref-environments",
      `a ${caller.refKind} job of ${caller.repository} acts only in ${allowed.length > 0 ? allowed.join(", ") : "no environment"}; "${environment}" is not among them (set by ${setting})`,
      environment,
      scope,
      action,
    );
  }
  const workflowRefs = caller.jobWorkflowRefs ?? {};
  const workflowPattern = Object.hasOwn(workflowRefs, environment) ? workflowRefs[environment] : undefined;
  if (workflowPattern !== undefined && !matchesWorkflowRef(workflowPattern, caller.workflowRef)) {
    throw forbidden(
      "github.job-workflow-ref",
      `environment "${environment}" takes jobs only from workflow ${workflowPattern} (SPONSON_REPOSITORIES[${caller.repository}].jobWorkflowRef); this token's job_workflow_ref is ${caller.workflowRef ?? "absent"}`,
      environment,
      scope,
      action,
    );
  }
  const required = caller.deploymentEnvironments[environment];
  if (required !== undefined && caller.deploymentEnvironment !== required) {
    throw forbidden(
      "github.deployment-environment",
      `environment "${environment}" needs a job running in GitHub deployment environment "${required}" (\`environment: ${required}\` in the workflow job; SPONSON_REPOSITORIES[${caller.repository}].deploymentEnvironments); this token's is ${caller.deploymentEnvironment ?? "none"}`,
      environment,
      scope,
      action,
    );
  }
}

/**
 * docs/security.md, "Environments bound to the ref": `*` matches any run of characters, everything
 * else itself; a token without `job_workflow_ref` matches no pattern.
 */
export function matchesWorkflowRef(pattern: string, workflowRef: string | undefined): boolean {
  if (workflowRef === undefined) return false;
  const parts = pattern.split("*").map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${parts.join(".*")}$`, "s").test(workflowRef);
}

/** Explains which claim-to-scope rule refused, in terms of what GitHub signed. */
function githubRefusal(ref: string, eventName: string, scope: string): string {
  if (scope.startsWith("pr-")) {
    return `a GitHub token acts on ${scope} only from refs/pull/${scope.slice(3)}/merge or /head of a pull-request event; this token's ref is ${ref} (${eventName})`;
  }
  if (scope === "main") {
    return `a GitHub token acts on main only from the repository's default branch, in a ${BRANCH_EVENT_NAMES} job; this token's ref is ${ref} (${eventName})`;
  }
  return `a GitHub token acts on ${scope} only from refs/heads/${scope.slice("branch-".length)}, in a ${BRANCH_EVENT_NAMES} job; this token's ref is ${ref} (${eventName})`;
}
