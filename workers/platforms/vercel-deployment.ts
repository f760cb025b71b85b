/**
 * The one thing the door asks Vercel (docs/design.md, "The platform door"): `GET
 * /v13/deployments/{id}` with the connection's token, for what only Vercel vouches for — the
 * deployment's project, target, creation time, URLs and `gitSource` (repository id, ref, sha, pull
 * request). The event names the deployment; this read says what it is.
 */
import { z } from "zod";
import { SponsonError } from "../../shared/errors";

export const VERCEL_API = "https://api.vercel.com";

const gitSourceSchema = z.looseObject({
  type: z.string(),
  repoId: z.union([z.number(), z.string()]).optional(),
  ref: z.string().nullable().optional(),
  sha: z.string().nullable().optional(),
  prId: z.number().nullable().optional(),
});

const deploymentSchema = z.looseObject({
  id: z.string(),
  /** The deployment's host, without a scheme. */
  url: z.string().regex(/^[A-Za-z0-9.-]{1,253}$/, "a host"),
  createdAt: z.number().int().positive(),
  projectId: z.string().optional(),
  project: z.looseObject({ id: z.string() }).optional(),
  target: z.string().nullable().optional(),
  /** The aliases assigned at creation (the branch alias among them). */
  alias: z.array(z.string()).optional(),
  automaticAliases: z.array(z.string()).optional(),
  gitSource: gitSourceSchema.optional(),
});
export type VercelDeployment = z.infer<typeof deploymentSchema>;

export type DeploymentRead =
  | { kind: "read"; deployment: VercelDeployment }
  /** 403 or 404: the token cannot see this deployment, so nothing about it can be vouched for. */
  | { kind: "unreadable"; status: number };

/** Well within a platform's delivery timeout: the event is then refused retriable. */
const READ_TIMEOUT_MS = 5_000;

export async function readVercelDeployment(
  fetcher: typeof fetch,
  token: string,
  deploymentId: string,
  team: string | undefined,
): Promise<DeploymentRead> {
  const url = new URL(`/v13/deployments/${encodeURIComponent(deploymentId)}`, VERCEL_API);
  if (team !== undefined) url.searchParams.set("teamId", team);
  let res: Response;
  try {
    res = await fetcher(url, {
      headers: { authorization: `Bearer ${token}`, accept: "application/json" },
      // The token goes to api.vercel.com only, and a hung read never holds the delivery's answer.
      redirect: "manual",
      signal: AbortSignal.timeout(READ_TIMEOUT_MS),
    });
  } catch (err) {
    throw unavailable(
      `the deployment could not be read: ${err instanceof Error ? err.name : "network error"}`,
    );
  }
  if (res.status === 403 || res.status === 404 || res.status === 401) {
    await res.body?.cancel();
    return { kind: "unreadable", status: res.status };
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw unavailable(`Vercel answered ${res.status} to the deployment's read`);
  }
  const parsed = deploymentSchema.safeParse(await res.json().catch(() => null));
  if (!parsed.success) throw unavailable("Vercel's answer is not a deployment");
  return { kind: "read", deployment: parsed.data };
}

/** The platform will deliver again: the event is refused retriable, nothing done. */
function unavailable(message: string): SponsonError {
  return new SponsonError("PROVIDER_ERROR", message, { rule: "platform.deployment-read" });
}

/** The project the deployment belongs to, as Vercel says it. */
export function projectOf(deployment: VercelDeployment): string | undefined {
  return deployment.projectId ?? deployment.project?.id;
}

/**
 * The branch alias among the deployment's aliases: Vercel names it `<project>-git-<branch>-<scope>`
 * (its generated branch URL); absent when the deployment has none.
 */
export function branchAliasOf(deployment: VercelDeployment): string | undefined {
  // Only the aliases Vercel generates, on its own domain: a team member can alias a deployment to
  // a custom domain of their own (`x-git-y.attacker.example`) and point its DNS anywhere later.
  return (deployment.automaticAliases ?? []).find(
    (host) => host !== deployment.url && /^[a-z0-9-]+-git-[a-z0-9-]+\.vercel\.app$/.test(host),
  );
}
