/**
 * The Vercel REST emulator (api.vercel.com): `GET /v13/deployments/{idOrUrl}` as the platform door
 * reads it, with Vercel's answers — 403 `forbidden` (`invalidToken: true`) for a token it does not
 * know, 404 `not_found` for a deployment the token's scope cannot see (another team's, or a team
 * not named by `teamId`), 400 for a malformed `teamId`.
 * State: ./state.ts; the demo project of `npm start`: ./demo.ts.
 */
import type { ProviderEmulatorModule } from "../emulator";
import { provisionDemoProject } from "./demo";
import { reply, vercelError } from "./responses";
import { type VercelDeploymentRecord, type VercelToken, vercelKeys } from "./state";

export const VERCEL_API_HOST = "api.vercel.com";

const DEPLOYMENT_PATH = /^\/v13\/deployments\/([^/]+)$/;

function tokenOf(request: Request): string | null {
  return request.headers.get("authorization")?.match(/^Bearer (\S+)$/)?.[1] ?? null;
}

/** The scope a request acts in: its `teamId`, else the token owner's personal account. */
function canSee(token: VercelToken, deployment: VercelDeploymentRecord, teamId: string | null): boolean {
  const owner = deployment.teamId ?? "personal";
  if ((teamId ?? "personal") !== owner) return false;
  return token.scopes === "*" || token.scopes.includes(owner);
}

/** The deployment as Vercel's v13 answers it; the emulator keeps nothing it does not answer. */
function deploymentView(d: VercelDeploymentRecord) {
  return {
    id: d.id,
    url: d.url,
    name: d.name,
    createdAt: d.createdAt,
    projectId: d.projectId,
    project: { id: d.projectId, name: d.name },
    ...(d.teamId ? { team: { id: d.teamId, name: "acme", slug: "acme" } } : {}),
    target: d.target,
    readyState: d.readyState,
    status: d.readyState,
    alias: d.alias,
    automaticAliases: d.automaticAliases,
    aliasAssigned: d.readyState === "READY",
    ...(d.gitSource ? { gitSource: d.gitSource } : {}),
    meta: d.meta,
    regions: ["iad1"],
    version: 2,
    type: "LAMBDAS",
  };
}

export const vercelEmulator: ProviderEmulatorModule = {
  provider: "vercel",
  matches: (host) => host === VERCEL_API_HOST,
  isRead: (request) => request.method === "GET",
  isWrite: (request) => request.method !== "GET",

  async handle(request, state) {
    const now = Date.now();
    provisionDemoProject(state);
    const bearer = tokenOf(request);
    const token = bearer === null ? undefined : state.get<VercelToken>(vercelKeys.token(bearer));
    if (token === undefined)
      return vercelError(403, "forbidden", "Not authorized", now, { invalidToken: true });
    const url = new URL(request.url);
    const teamId = url.searchParams.get("teamId");
    if (teamId !== null && !/^team_[A-Za-z0-9]+$/.test(teamId))
      return vercelError(400, "bad_request", "Invalid request: `teamId` should be a team id.", now);
    const m = DEPLOYMENT_PATH.exec(url.pathname);
    if (request.method !== "GET" || !m)
      return vercelError(404, "not_found", "The requested path was not found.", now);
    const id = decodeURIComponent(m[1] ?? "");
    const deployment = state.get<VercelDeploymentRecord>(vercelKeys.deployment(id));
    if (!deployment || !canSee(token, deployment, teamId))
      return vercelError(404, "not_found", "Deployment not found", now);
    return reply(200, deploymentView(deployment), now);
  },

  injectedError(status, nowMs) {
    if (status === 429)
      return new Response(
        JSON.stringify({ error: { code: "rate_limited", message: "Rate limit exceeded" } }),
        {
          status,
          headers: { "content-type": "application/json; charset=utf-8", "retry-after": "60" },
        },
      );
    return vercelError(status, "internal_server_error", "An unexpected internal error occurred", nowMs);
  },
};

export { DEMO_VERCEL_PROJECT, DEMO_VERCEL_TEAM, DEMO_VERCEL_TOKEN } from "./demo";
export {
  deploymentRecord,
  type VercelDeploymentRecord,
  type VercelToken,
  vercelKeys,
} from "./state";
