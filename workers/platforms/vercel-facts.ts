/**
 * What Vercel vouches for about one deployment (docs/design.md, "The platform door"), read with the
 * connection's token and checked against the connection: the project must be the connection's (an
 * integration's one secret signs every project's events, so the event's project alone is not
 * enough), and only a GitHub `gitSource` names a repository, by its numeric id. The pull request
 * and the branch come from `gitSource` too, never from `meta`.
 */

import type { Env } from "../../shared/env";
import { SponsonError } from "../../shared/errors";
import { SHA_PATTERN } from "../../shared/placeholders";
import type { PlatformDeployment } from "../../shared/schemas/queued-platform-apply";
import { type DeploymentScope, deploymentScope } from "./deployment-scope";
import { secretValue } from "./platform-answer";
import type { VercelPlatform } from "./platform-schema";
import { branchAliasOf, projectOf, readVercelDeployment } from "./vercel-deployment";
import { vercelTargetName } from "./vercel-event";

export type VercelFacts =
  | { kind: "refused"; rule: string; reason: string }
  | {
      kind: "read";
      target: string;
      /** The GitHub repository id of its `gitSource`; null when it has none (a CLI or API deploy). */
      repositoryId: number | null;
      deployment: Omit<PlatformDeployment, "link">;
      scopeOf(defaultBranch: string): DeploymentScope;
    };

const REPOSITORY_ID = /^[1-9][0-9]{0,15}$/;

export async function vercelDeploymentFacts(
  env: Env,
  fetcher: typeof fetch,
  connection: VercelPlatform,
  deploymentId: string,
): Promise<VercelFacts> {
  const token = secretValue(env, connection.apiToken);
  if (token === "")
    throw new SponsonError("INTERNAL", `platform connection ${connection.name}: its API token is not set`);
  const read = await readVercelDeployment(fetcher, token, deploymentId, connection.team);
  if (read.kind === "unreadable")
    return {
      kind: "refused",
      rule: "platform.deployment",
      reason: `Vercel answered ${read.status}: the deployment cannot be read with ${connection.name}'s token`,
    };
  const { deployment } = read;
  if (deployment.id !== deploymentId || projectOf(deployment) !== connection.project)
    return {
      kind: "refused",
      rule: "platform.project",
      reason: `the deployment is not one of project ${connection.project}'s`,
    };
  const git = deployment.gitSource;
  const repoId =
    git?.type === "github" && REPOSITORY_ID.test(String(git.repoId ?? "")) ? Number(git.repoId) : null;
  const pullRequest =
    typeof git?.prId === "number" && Number.isSafeInteger(git.prId) && git.prId > 0 ? git.prId : null;
  const branch = typeof git?.ref === "string" && git.ref !== "" ? git.ref : null;
  const sha = typeof git?.sha === "string" && SHA_PATTERN.test(git.sha) ? git.sha : null;
  const host = deployment.url.toLowerCase();
  const alias = branchAliasOf(deployment);
  return {
    kind: "read",
    target: vercelTargetName(deployment.target),
    repositoryId: repoId,
    deployment: {
      id: deployment.id,
      createdAt: deployment.createdAt,
      url: `https://${host}`,
      ...(alias === undefined ? {} : { branchUrl: `https://${alias.toLowerCase()}` }),
      pullRequest,
      branch,
      sha,
    },
    scopeOf: (defaultBranch) => deploymentScope({ pullRequest, branch }, defaultBranch),
  };
}
