/**
 * The scope a verified deployment is for (docs/design.md, "The platform door"): pure, from what the
 * platform vouches for (Vercel's `gitSource`, Netlify's signed deploy object), never from metadata a
 * deployer can set. `pr-<n>` from the pull request; else `branch-<name>` from the branch, named as a
 * GitHub job's branch scope is (workers/auth/github-claims.ts); the default branch's deploys are
 * production's, and register nothing.
 */
import { isValidScope } from "../../shared/lock-keys";

export type DeploymentScope = { scope: string } | { ignore: string };

export function deploymentScope(
  { pullRequest, branch }: { pullRequest: number | null; branch: string | null },
  defaultBranch: string,
): DeploymentScope {
  if (pullRequest !== null) {
    const scope = `pr-${pullRequest}`;
    return isValidScope(scope) ? { scope } : { ignore: `pull request ${pullRequest} is not a scope number` };
  }
  if (branch === null || branch === "")
    return { ignore: "the deployment names no pull request and no branch" };
  if (branch === defaultBranch) return { ignore: `the default branch (${branch}) deploys production` };
  const scope = `branch-${branch}`;
  return isValidScope(scope) ? { scope } : { ignore: "the branch's name cannot be a scope name" };
}
