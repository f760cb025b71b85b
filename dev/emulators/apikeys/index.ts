/**
 * The API Keys API emulator (apikeys.googleapis.com, v2): GET and PATCH of a key
 * (./keys-endpoint.ts) and the operations its updates return (./operations-endpoint.ts). Bearer: an
 * access token from the Google token host, or a service account's self-signed JWT
 * (../google/access-token.ts); GET takes the read-only scope, PATCH only cloud-platform. A caller
 * with no role on the project is refused 403 whether the key exists or not; a member asking for a
 * key the project does not have gets 404. Errors are Google's envelope. State: ./state.ts.
 */
import type { ProviderEmulatorModule } from "../emulator";
import { CLOUD_PLATFORM, hasScope, verifyGoogleToken } from "../google/access-token";
import { googleError, googleJson, RETRY_AFTER_SECONDS, UNAUTHENTICATED_MESSAGE } from "../google/responses";
import { provisionDemoApiKey } from "./demo";
import { KEY_PATH, patchKey } from "./keys-endpoint";
import { OPERATION_PATH, pollOperation, settleDueOperations } from "./operations-endpoint";
import { type ApiKeyRecord, type ApiKeysProject, apiKeysKeys } from "./state";

const READ_ONLY = "https://www.googleapis.com/auth/cloud-platform.read-only";
const insufficientScopes = () => googleError(403, "Request had insufficient authentication scopes.");

const denied = (permission: string, name: string) =>
  googleError(
    403,
    `Permission '${permission}' denied on resource '//apikeys.googleapis.com/${name}' (or it may not exist).`,
  );

export const apiKeysEmulator: ProviderEmulatorModule = {
  provider: "googleapikey",
  matches: (host) => host === "apikeys.googleapis.com",
  isRead: (request) => request.method === "GET" && KEY_PATH.test(new URL(request.url).pathname),
  isWrite: (request) => request.method === "PATCH" && KEY_PATH.test(new URL(request.url).pathname),

  async handle(request, state) {
    const url = new URL(request.url);
    const at = url.pathname.match(KEY_PATH);
    if (at?.[1]) provisionDemoApiKey(decodeURIComponent(at[1]), state);
    settleDueOperations(state);
    const claims = await verifyGoogleToken(request.headers.get("authorization"), Date.now(), {
      host: url.host,
      state,
    });
    if (!claims) return googleError(401, UNAUTHENTICATED_MESSAGE);
    const reading = request.method === "GET";
    if (!hasScope(claims, reading ? [CLOUD_PLATFORM, READ_ONLY] : [CLOUD_PLATFORM]))
      return insufficientScopes();
    const operation = url.pathname.match(OPERATION_PATH)?.[1];
    if (operation !== undefined && reading) return pollOperation(state, decodeURIComponent(operation));
    if (!at?.[1] || !at[2] || !at[3] || !["GET", "PATCH"].includes(request.method)) {
      return googleError(404, "Not Found");
    }
    const [project, location, id] = [at[1], at[2], at[3]].map(decodeURIComponent) as [string, string, string];
    const record = state.get<ApiKeysProject>(apiKeysKeys.project(project));
    const name = `projects/${record?.number ?? project}/locations/${location}/keys/${id}`;
    const role = record?.members[claims.sub];
    if (!role) return denied(`apikeys.keys.${reading ? "get" : "update"}`, name);
    // Keys are global resources (resources.proto): the only location there is.
    if (location !== "global") return googleError(400, `Location ${location} is not supported; use global.`);
    const storageKey = apiKeysKeys.key(project, id);
    const key = state.get<ApiKeyRecord>(storageKey);
    if (!key) return googleError(404, "Requested entity was not found.");
    if (reading) return googleJson(200, key.key);
    if (role !== "admin") return denied("apikeys.keys.update", name);
    return patchKey(request, state, { project, id, storageKey });
  },

  injectedError(status) {
    if (status === 429) {
      return googleError(
        429,
        "Quota exceeded for quota metric 'Write requests' and limit 'Write requests per minute' of service 'apikeys.googleapis.com'.",
        undefined,
        { "retry-after": String(RETRY_AFTER_SECONDS) },
      );
    }
    return googleError(status, status >= 500 ? "Internal error encountered." : "Injected failure");
  },
};

export { DEMO_API_KEY } from "./demo";
export {
  type ApiKeyRecord,
  type ApiKeyResource,
  type ApiKeysOperation,
  type ApiKeysProject,
  apiKeyRecord,
  apiKeysKeys,
  etagOf,
  type OperationsKnob,
} from "./state";
