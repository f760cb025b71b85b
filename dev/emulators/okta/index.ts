/**
 * The Okta apps API emulator: GET and PUT /api/v1/apps/{appId} (./apps-endpoint.ts) with SSWS
 * tokens, Okta's error body and rate-limit headers (./responses.ts). State: ./state.ts.
 */
import type { ProviderEmulatorModule } from "../emulator";
import { APP_PATH, type Json, putApp } from "./apps-endpoint";
import { provisionDemoOrg } from "./demo";
import { oktaError, rateHeaders, reply } from "./responses";
import { type OktaAccessToken, type OktaToken, oktaKeys } from "./state";
import { issueOktaToken, TOKEN_PATH } from "./token-endpoint";

/**
 * Who calls: an SSWS API token, or a service app's bearer token (its scopes decide: GET needs
 * okta.apps.read or okta.apps.manage, PUT okta.apps.manage).
 */
function callerOf(request: Request, state: Parameters<typeof provisionDemoOrg>[1]) {
  const header = request.headers.get("authorization") ?? "";
  const ssws = header.match(/^SSWS (\S+)$/)?.[1];
  if (ssws) {
    const token = state.get<OktaToken>(oktaKeys.token(ssws));
    return token ? { readOnly: token.readOnly === true, scopes: undefined } : undefined;
  }
  const bearer = header.match(/^Bearer (\S+)$/)?.[1];
  const issued = bearer ? state.get<OktaAccessToken>(oktaKeys.accessToken(bearer)) : undefined;
  if (!issued || issued.expiresAt <= Date.now()) return undefined;
  const canRead = issued.scopes.some((s) => s === "okta.apps.read" || s === "okta.apps.manage");
  return canRead ? { readOnly: false, scopes: issued.scopes } : undefined;
}

export const oktaEmulator: ProviderEmulatorModule = {
  provider: "okta",
  matches: (host) => /^[a-z0-9-]+\.(okta|oktapreview|okta-emea)\.com$/i.test(host),
  isRead: (request) => request.method === "GET" && APP_PATH.test(new URL(request.url).pathname),
  isWrite: (request) => request.method === "PUT" && APP_PATH.test(new URL(request.url).pathname),

  async handle(request, state, outbound) {
    const url = new URL(request.url);
    provisionDemoOrg(url.host, state);
    const headers = rateHeaders(url.host, Date.now());
    if (url.pathname === TOKEN_PATH && request.method === "POST") {
      return issueOktaToken(request, state, outbound, headers);
    }
    const token = callerOf(request, state);
    if (!token) return oktaError(401, "E0000011", "Invalid token provided", headers);
    const id = url.pathname.match(APP_PATH)?.[1];
    if (id === undefined || !["GET", "PUT"].includes(request.method)) {
      return oktaError(404, "E0000022", "The endpoint does not support the provided HTTP method", headers);
    }
    const appId = decodeURIComponent(id);
    const stored = state.get<Json>(oktaKeys.app(appId));
    if (!stored)
      return oktaError(404, "E0000007", `Not found: Resource not found: ${appId} (AppInstance)`, headers);
    if (request.method === "GET") return reply(200, stored, headers);
    if (token.readOnly || token.scopes?.includes("okta.apps.manage") === false) {
      return oktaError(
        403,
        "E0000006",
        "You do not have permission to perform the requested action",
        headers,
      );
    }
    return putApp(request, state, appId, stored, headers);
  },

  injectedError(status, nowMs) {
    const headers = rateHeaders("", nowMs, status === 429);
    if (status === 429) {
      return oktaError(429, "E0000047", "API call exceeded rate limit due to too many requests.", headers);
    }
    return oktaError(status, "E0000009", "Internal Server Error", headers);
  },
};

export { DEMO_OKTA } from "./demo";
export { oktaError } from "./responses";
export { type OktaServiceApp, type OktaToken, oktaKeys, oktaOidcApp } from "./state";
