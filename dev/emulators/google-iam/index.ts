/**
 * The IAM API emulator (iam.googleapis.com), the OAuth clients of Workforce Identity Federation
 * (./oauth-clients-endpoint.ts). Bearer: an access token from the Google token host with scope
 * cloud-platform or iam, or a service account's self-signed JWT (../google/access-token.ts).
 * Errors are Google's envelope; a caller without access to the project is refused 403 whether the
 * client exists or not, as IAM does. State: ./state.ts.
 */
import type { ProviderEmulatorModule } from "../emulator";
import { CLOUD_PLATFORM, hasScope, verifyGoogleToken } from "../google/access-token";
import { googleError, googleJson, RETRY_AFTER_SECONDS, UNAUTHENTICATED_MESSAGE } from "../google/responses";
import { provisionDemoIamProject } from "./demo";
import { CLIENT_PATH, patchClient } from "./oauth-clients-endpoint";
import { type IamOAuthClient, type IamProject, iamKeys } from "./state";

const SCOPES = [CLOUD_PLATFORM, "https://www.googleapis.com/auth/iam"];

const denied = (permission: string, name: string) =>
  googleError(
    403,
    `Permission '${permission}' denied on resource '//iam.googleapis.com/${name}' (or it may not exist).`,
  );

export const iamEmulator: ProviderEmulatorModule = {
  provider: "google",
  matches: (host) => host === "iam.googleapis.com",
  isRead: (request) => request.method === "GET" && CLIENT_PATH.test(new URL(request.url).pathname),
  isWrite: (request) => request.method === "PATCH" && CLIENT_PATH.test(new URL(request.url).pathname),

  async handle(request, state) {
    const url = new URL(request.url);
    const at = url.pathname.match(CLIENT_PATH);
    if (at?.[1]) provisionDemoIamProject(decodeURIComponent(at[1]), state);
    const claims = await verifyGoogleToken(request.headers.get("authorization"), Date.now(), {
      host: url.host,
      state,
    });
    if (!claims) return googleError(401, UNAUTHENTICATED_MESSAGE);
    if (!hasScope(claims, SCOPES)) return googleError(403, "Request had insufficient authentication scopes.");
    if (!at?.[1] || !at[2] || !at[3] || !["GET", "PATCH"].includes(request.method)) {
      return googleError(404, "Not Found");
    }
    const [project, location, id] = [at[1], at[2], at[3]].map(decodeURIComponent) as [string, string, string];
    const name = `projects/${project}/locations/${location}/oauthClients/${id}`;
    const role = state.get<IamProject>(iamKeys.project(project))?.members[claims.sub];
    const verb = request.method === "GET" ? "get" : "update";
    if (!role) return denied(`iam.oauthClients.${verb}`, name);
    const key = iamKeys.client(project, location, id);
    const stored = state.get<IamOAuthClient>(key);
    if (!stored || stored.state === "DELETED") return googleError(404, "Requested entity was not found.");
    if (request.method === "GET") return googleJson(200, stored);
    if (role !== "editor") return denied("iam.oauthClients.update", name);
    return patchClient(request, state, key, stored);
  },

  injectedError(status) {
    if (status === 429) {
      return googleError(
        429,
        "Quota exceeded for quota metric 'Write requests' and limit 'Write requests per minute' of service 'iam.googleapis.com'.",
        undefined,
        { "retry-after": String(RETRY_AFTER_SECONDS) },
      );
    }
    return googleError(status, status >= 500 ? "Internal error encountered." : "Injected failure");
  },
};

export { DEMO_IAM } from "./demo";
export { type IamOAuthClient, type IamProject, iamKeys, iamOAuthClient } from "./state";
