/**
 * The Microsoft Entra ID emulators: the token endpoint at login.microsoftonline.com
 * (./token-endpoint.ts) and Graph's applications at graph.microsoft.com (./applications-endpoint.ts),
 * with Graph's OData envelope and error format (./responses.ts). State: ./state.ts.
 */
import type { ProviderEmulatorModule } from "../emulator";
import { APP_PATH, findApp, getApp, patchApp } from "./applications-endpoint";
import { provisionDemoGraph, provisionDemoTenant } from "./demo";
import { verifyGraphToken } from "./graph-token";
import { aadError, GRAPH_RETRY_AFTER_SECONDS, graphError } from "./responses";
import { GRAPH_READ } from "./state";
import { issueEntraToken, METADATA_PATH, openIdConfiguration, TOKEN_PATH } from "./token-endpoint";

export const entraLoginEmulator: ProviderEmulatorModule = {
  provider: "entra-login",
  matches: (host) => host === "login.microsoftonline.com",
  isRead: () => false,
  isWrite: () => false,

  async handle(request, state, outbound) {
    const metadata = new URL(request.url).pathname.match(METADATA_PATH)?.[1];
    if (metadata && request.method === "GET") {
      provisionDemoTenant(decodeURIComponent(metadata), state);
      return openIdConfiguration(state, decodeURIComponent(metadata));
    }
    const tenant = new URL(request.url).pathname.match(TOKEN_PATH)?.[1];
    if (!tenant || request.method !== "POST") {
      return aadError(404, "invalid_request", 90027, "The endpoint is not supported.");
    }
    provisionDemoTenant(decodeURIComponent(tenant), state);
    return issueEntraToken(request, state, decodeURIComponent(tenant), outbound);
  },

  injectedError(status) {
    return aadError(
      status,
      status === 429 ? "temporarily_unavailable" : "server_error",
      90033,
      "Injected failure.",
    );
  },
};

const denied = (request: Request) =>
  graphError(
    403,
    "Authorization_RequestDenied",
    "Insufficient privileges to complete the operation.",
    request,
  );

export const graphEmulator: ProviderEmulatorModule = {
  provider: "entra",
  matches: (host) => host === "graph.microsoft.com",
  isRead: (request) => request.method === "GET" && APP_PATH.test(new URL(request.url).pathname),
  isWrite: (request) => request.method === "PATCH" && APP_PATH.test(new URL(request.url).pathname),

  async handle(request, state) {
    const check = await verifyGraphToken(request.headers.get("authorization"), Date.now());
    if ("problem" in check) return graphError(401, "InvalidAuthenticationToken", check.problem, request);
    const { claims } = check;
    provisionDemoGraph(claims.tid, state);
    const match = new URL(request.url).pathname.match(APP_PATH);
    if (!match || !["GET", "PATCH"].includes(request.method)) {
      return graphError(400, "BadRequest", "Unsupported request", request);
    }
    if (!claims.roles.some((r) => GRAPH_READ.includes(r))) return denied(request);
    const found = findApp(state, claims.tid, match);
    if (!found) {
      const id = match[1] ?? `appId='${match[2]}'`;
      return graphError(
        404,
        "Request_ResourceNotFound",
        `Resource '${id}' does not exist or one of its queried reference-property objects are not present.`,
        request,
      );
    }
    if (request.method === "GET") return getApp(request, found.record);
    const mayWrite =
      claims.roles.includes("Application.ReadWrite.All") ||
      (claims.roles.includes("Application.ReadWrite.OwnedBy") && found.record.owners.includes(claims.appid));
    if (!mayWrite) return denied(request);
    return patchApp(request, state, found.key, found.record);
  },

  injectedError(status) {
    if (status === 429) {
      return graphError(429, "TooManyRequests", "Too many requests.", undefined, {
        "retry-after": String(GRAPH_RETRY_AFTER_SECONDS),
      });
    }
    return graphError(
      status,
      status >= 500 ? "serviceNotAvailable" : "BadRequest",
      status >= 500 ? "The service is temporarily unavailable." : "Injected failure",
    );
  },
};

export { DEMO_ENTRA } from "./demo";
export {
  type EntraAppRecord,
  type EntraTenant,
  entraKeys,
  type GraphApplication,
  graphApplication,
} from "./state";
