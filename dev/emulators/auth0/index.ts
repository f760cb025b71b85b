/**
 * The Auth0 emulator module: `/oauth/token` and `/api/v2/clients/{id}` with Auth0's paths, shapes,
 * status codes, error bodies and rate-limit headers (./responses.ts). State lives in the host's
 * emulator object (see ./state.ts for the keys); knobs (latency, barrier, failures) are applied by
 * that object before `handle` is called.
 */
import type { ProviderEmulatorModule } from "../emulator";
import { CLIENT_PATH, getClient, patchClient } from "./clients-endpoint";
import { provisionDemoTenant } from "./demo";
import { apiError, budgetHeaders, budgetRefusal, rateLimitHeaders, TOO_MANY_REQUESTS } from "./responses";
import { issueToken } from "./token-endpoint";

const INJECTED_MESSAGES: Record<number, [string, string | undefined]> = {
  429: [TOO_MANY_REQUESTS, "too_many_requests"],
  500: ["Internal Server Error", undefined],
  502: ["Bad Gateway", undefined],
  503: ["Service Unavailable", undefined],
  504: ["Gateway Timeout", undefined],
};

function isClientCall(request: Request, method: string): boolean {
  return request.method === method && CLIENT_PATH.test(new URL(request.url).pathname);
}

export const auth0Emulator: ProviderEmulatorModule = {
  provider: "auth0",
  // Tenant hosts: acme.auth0.com, acme.us.auth0.com, acme.eu.auth0.com, …
  matches: (host) => /^[a-z0-9-]+(\.[a-z0-9-]+)*\.auth0\.com$/i.test(host),
  isRead: (request) => isClientCall(request, "GET"),
  isWrite: (request) => isClientCall(request, "PATCH"),
  // The Management API's budget is the tenant's; /oauth/token is the Authentication API's.
  budgetKey: (request) => {
    const url = new URL(request.url);
    return url.pathname.startsWith("/api/v2/") ? url.host.toLowerCase() : null;
  },
  budgetRefusal,
  budgetHeaders,

  async handle(request, state, outbound) {
    const nowMs = Date.now();
    const url = new URL(request.url);
    provisionDemoTenant(url.host, state);
    const headers = rateLimitHeaders(url.host, nowMs);
    if (url.pathname === "/oauth/token" && request.method === "POST") {
      return issueToken(request, state, headers, nowMs, outbound);
    }
    const id = url.pathname.match(CLIENT_PATH)?.[1];
    if (id !== undefined) {
      const clientId = decodeURIComponent(id);
      if (request.method === "GET") return getClient(request, state, clientId, headers, nowMs);
      if (request.method === "PATCH") return patchClient(request, state, clientId, headers, nowMs);
    }
    return apiError(404, "Not Found", undefined, headers);
  },

  injectedError(status, nowMs) {
    const [message, errorCode] = INJECTED_MESSAGES[status] ?? [`Injected failure ${status}`, undefined];
    return apiError(status, message, errorCode, rateLimitHeaders("", nowMs, status === 429));
  },
};

export { DEMO_APPLICATION_ID, DEMO_FEDERATED, DEMO_HOST_PREFIX, DEMO_M2M } from "./demo";
export { type Auth0ClientRecord, auth0Keys, clientRecord, DEFAULT_M2M_SCOPES, type M2mClient } from "./state";
