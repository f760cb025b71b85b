/**
 * What the Vercel REST emulator keeps (one object for api.vercel.com). Storage keys:
 *   token:<token>         → VercelToken (which teams' deployments it can read)
 *   deployment:<id>       → VercelDeploymentRecord
 * Only what the platform door asks is modelled: a deployment as `GET /v13/deployments/{id}` answers
 * it (id, url, createdAt, projectId, target, aliases, gitSource).
 */

export interface VercelToken {
  /** Team ids (`team_…`) whose deployments it reads; "personal" for the account's own; `*`: all. */
  scopes: string[] | "*";
}

export interface VercelGitSource {
  type: "github" | "gitlab" | "bitbucket";
  repoId?: number | string;
  ref?: string | null;
  sha?: string;
  prId?: number | null;
}

export interface VercelDeploymentRecord {
  id: string;
  /** The deployment's host (no scheme), e.g. `web-abc123-acme.vercel.app`. */
  url: string;
  name: string;
  createdAt: number;
  projectId: string;
  /** The owning team, or absent for a personal account's deployment. */
  teamId?: string;
  /** null: a preview. */
  target: "production" | "staging" | null;
  readyState: "QUEUED" | "BUILDING" | "READY" | "ERROR" | "CANCELED";
  alias: string[];
  automaticAliases: string[];
  gitSource?: VercelGitSource;
  /** Caller-settable metadata (`vercel deploy -m`); the door must never read it. */
  meta: Record<string, string>;
}

export const vercelKeys = {
  token: (token: string) => `token:${token}`,
  deployment: (id: string) => `deployment:${id}`,
} as const;

/** A preview deployment of project `name` from a seed: the web-…-acme hosts Vercel would give it. */
export function deploymentRecord(
  seed: Partial<VercelDeploymentRecord> & { id: string; projectId: string },
): VercelDeploymentRecord {
  const name = seed.name ?? "web";
  const hash = seed.id.replace(/^dpl_/, "").toLowerCase().slice(0, 9);
  const branch = seed.gitSource?.ref ?? undefined;
  const branchAlias =
    branch === undefined || branch === null
      ? []
      : [`${name}-git-${branch.toLowerCase().replace(/[^a-z0-9]+/g, "-")}-acme.vercel.app`];
  return {
    url: `${name}-${hash}-acme.vercel.app`,
    name,
    createdAt: Date.now(),
    target: null,
    readyState: "BUILDING",
    alias: branchAlias,
    automaticAliases: branchAlias,
    meta: {},
    ...seed,
  };
}
