/**
 * identitytoolkit.googleapis.com: GET and PATCH /admin/v2/projects/{p}/config (PROVIDERS.md §4).
 * PATCH applies the fields named by `updateMask` (or `update_mask`, as firebase-tools sends it);
 * without a mask every field sent. No etag, no precondition: the last write wins.
 * Storage keys: `project:<id>` → IdentityProject; `revokedBefore:<email>` → epoch ms.
 */
import type { EmulatorState, ProviderEmulatorModule } from "../emulator";
import { provisionDemoIdentityProject } from "./demo";
import { googleError, RETRY_AFTER_SECONDS, UNAUTHENTICATED_MESSAGE } from "./google-errors";
import { CLOUD_PLATFORM, hasScope, verifyGoogleToken } from "./google-token";

export interface IdentityProject {
  /** Service accounts and their role on the project. */
  members: Record<string, "editor" | "viewer">;
  /** The Config resource; absent when Identity Platform was never set up on the project. */
  config?: { authorizedDomains: string[]; [field: string]: unknown };
}

export const identityKeys = {
  project: (id: string) => `project:${id}`,
  revokedBefore: (email: string) => `revokedBefore:${email}`,
} as const;

const CONFIG_PATH = /^\/admin\/v2\/projects\/([^/]+)\/config$/;
const SCOPES = [
  CLOUD_PLATFORM,
  "https://www.googleapis.com/auth/firebase",
  "https://www.googleapis.com/auth/identitytoolkit",
];
const DOMAIN = /^[a-z0-9.-]+$/i;

export function configResource(project: string, config: NonNullable<IdentityProject["config"]>) {
  return { name: `projects/${project}/config`, ...config };
}

async function patch(request: Request, state: EmulatorState, project: string, record: IdentityProject) {
  const mask = new URL(request.url).searchParams;
  const fields = (mask.get("updateMask") ?? mask.get("update_mask"))?.split(",").map((f) => f.trim());
  let body: Record<string, unknown>;
  try {
    body = (await request.json()) as Record<string, unknown>;
  } catch {
    return googleError(400, "Invalid JSON payload received.");
  }
  const domains = body.authorizedDomains;
  if (
    domains !== undefined &&
    (!Array.isArray(domains) || domains.some((d) => typeof d !== "string" || !DOMAIN.test(d)))
  ) {
    return googleError(400, "INVALID_AUTHORIZED_DOMAIN");
  }
  const current = state.get<IdentityProject>(identityKeys.project(project)) ?? record;
  const config = { ...current.config } as NonNullable<IdentityProject["config"]>;
  for (const field of fields ?? Object.keys(body)) {
    if (field !== "authorizedDomains")
      return googleError(400, `INVALID_CONFIG : Invalid update mask field: ${field}`);
    config.authorizedDomains = (domains as string[] | undefined) ?? [];
  }
  state.put(identityKeys.project(project), { ...current, config });
  return new Response(JSON.stringify(configResource(project, config)), {
    headers: { "content-type": "application/json; charset=UTF-8" },
  });
}

export const identityToolkitEmulator: ProviderEmulatorModule = {
  provider: "firebase",
  matches: (host) => host === "identitytoolkit.googleapis.com",
  isRead: (request) => request.method === "GET" && CONFIG_PATH.test(new URL(request.url).pathname),
  isWrite: (request) => request.method === "PATCH" && CONFIG_PATH.test(new URL(request.url).pathname),

  async handle(request, state) {
    const nowMs = Date.now();
    provisionDemoIdentityProject(new URL(request.url).pathname, state);
    const claims = await verifyGoogleToken(request.headers.get("authorization"), nowMs);
    const revokedBefore = claims ? state.get<number>(identityKeys.revokedBefore(claims.sub)) : undefined;
    if (!claims || (revokedBefore !== undefined && claims.iat < revokedBefore)) {
      return googleError(401, UNAUTHENTICATED_MESSAGE);
    }
    if (!hasScope(claims, SCOPES)) return googleError(403, "Request had insufficient authentication scopes.");
    const id = new URL(request.url).pathname.match(CONFIG_PATH)?.[1];
    if (id === undefined || !["GET", "PATCH"].includes(request.method)) return googleError(404, "Not Found");
    const project = decodeURIComponent(id);
    const record = state.get<IdentityProject>(identityKeys.project(project));
    const role = record?.members[claims.sub];
    if (!record || !role) return googleError(403, "The caller does not have permission");
    if (!record.config) return googleError(404, "CONFIGURATION_NOT_FOUND");
    if (request.method === "GET") {
      return new Response(JSON.stringify(configResource(project, record.config)), {
        headers: { "content-type": "application/json; charset=UTF-8" },
      });
    }
    if (role !== "editor") return googleError(403, "The caller does not have permission");
    return patch(request, state, project, record);
  },

  injectedError(status) {
    if (status === 429) {
      return googleError(
        429,
        "Quota exceeded for quota metric 'Admin API requests' and limit 'Admin API requests per minute' of service 'identitytoolkit.googleapis.com'.",
        undefined,
        { "retry-after": String(RETRY_AFTER_SECONDS) },
      );
    }
    return googleError(status, status >= 500 ? "Internal error encountered." : "Injected failure");
  },
};
