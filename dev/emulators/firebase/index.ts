/**
 * The Identity Platform admin API emulator (identitytoolkit.googleapis.com): the project Config
 * resource (./config-endpoint.ts). Bearer: an access token from the Google token host, or a
 * service account's self-signed JWT (../google/access-token.ts). State: ./state.ts.
 */
import type { ProviderEmulatorModule } from "../emulator";
import { CLOUD_PLATFORM, hasScope, verifyGoogleToken } from "../google/access-token";
import { googleError, googleJson, RETRY_AFTER_SECONDS, UNAUTHENTICATED_MESSAGE } from "../google/responses";
import { CONFIG_PATH, patchConfig } from "./config-endpoint";
import { provisionDemoIdentityProject } from "./demo";
import { configResource, type IdentityProject, identityKeys } from "./state";

const SCOPES = [
  CLOUD_PLATFORM,
  "https://www.googleapis.com/auth/firebase",
  "https://www.googleapis.com/auth/identitytoolkit",
];

export const identityToolkitEmulator: ProviderEmulatorModule = {
  provider: "firebase",
  matches: (host) => host === "identitytoolkit.googleapis.com",
  isRead: (request) => request.method === "GET" && CONFIG_PATH.test(new URL(request.url).pathname),
  isWrite: (request) => request.method === "PATCH" && CONFIG_PATH.test(new URL(request.url).pathname),

  async handle(request, state) {
    const nowMs = Date.now();
    const url = new URL(request.url);
    const id = url.pathname.match(CONFIG_PATH)?.[1];
    if (id !== undefined) provisionDemoIdentityProject(decodeURIComponent(id), state);
    const claims = await verifyGoogleToken(request.headers.get("authorization"), nowMs, {
      host: url.host,
      state,
    });
    const revokedBefore = claims ? state.get<number>(identityKeys.revokedBefore(claims.sub)) : undefined;
    if (!claims || (revokedBefore !== undefined && claims.iat < revokedBefore)) {
      return googleError(401, UNAUTHENTICATED_MESSAGE);
    }
    if (!hasScope(claims, SCOPES)) return googleError(403, "Request had insufficient authentication scopes.");
    if (id === undefined || !["GET", "PATCH"].includes(request.method)) return googleError(404, "Not Found");
    const project = decodeURIComponent(id);
    const record = state.get<IdentityProject>(identityKeys.project(project));
    const role = record?.members[claims.sub];
    if (!record || !role) return googleError(403, "The caller does not have permission");
    if (!record.config) return googleError(404, "CONFIGURATION_NOT_FOUND");
    if (request.method === "GET") return googleJson(200, configResource(project, record.config));
    if (role !== "editor") return googleError(403, "The caller does not have permission");
    return patchConfig(request, state, project, record);
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

// The token host is its own emulator (../google); re-exported for callers that set both up.
export { type GoogleServiceAccount, googleKeys, googleOAuthEmulator } from "../google";
export { DEMO_FIREBASE_PROJECT } from "./demo";
export { type IdentityProject, identityKeys } from "./state";
