/**
 * The Kinde Management API emulator: /oauth2/token (client credentials, form body, JWT access
 * tokens) and the item-level URL endpoints of an application (./urls-endpoint.ts). Errors are
 * `{errors:[{code, message}]}`; a 429 carries only RateLimit-Reset (seconds). State: ./state.ts.
 */
import type { ProviderEmulatorModule } from "../emulator";
import { provisionDemoBusiness } from "./demo";
import { kindeError } from "./responses";
import { type IssuedToken, kindeKeys } from "./state";
import { issueToken } from "./token-endpoint";
import { handleList, LIST_PATH } from "./urls-endpoint";

const VERBS: Record<string, string> = { GET: "read", POST: "create", PUT: "update", DELETE: "delete" };

export const kindeEmulator: ProviderEmulatorModule = {
  provider: "kinde",
  matches: (host) => /^[a-z0-9-]+\.kinde\.com$/i.test(host),
  isRead: (request) => request.method === "GET" && LIST_PATH.test(new URL(request.url).pathname),
  isWrite: (request) => request.method !== "GET" && LIST_PATH.test(new URL(request.url).pathname),

  async handle(request, state) {
    const url = new URL(request.url);
    provisionDemoBusiness(url.host, state);
    if (url.pathname === "/oauth2/token" && request.method === "POST") return issueToken(request, state);
    const match = url.pathname.match(LIST_PATH);
    const verb = VERBS[request.method];
    if (!match?.[1] || !match[2] || !verb)
      return kindeError(404, "ROUTE_NOT_FOUND", "The requested API route does not exist");
    const bearer = request.headers.get("authorization")?.match(/^Bearer (\S+)$/i)?.[1];
    const token = bearer ? state.get<IssuedToken>(kindeKeys.token(bearer)) : undefined;
    if (!token || token.expiresAt <= Date.now()) {
      return kindeError(403, "INVALID_CREDENTIALS", "Invalid credentials used to access API");
    }
    const scope = `${verb}:${match[2] === "auth_redirect_urls" ? "applications_redirect_uris" : "application_logout_uris"}`;
    if (!token.scopes.includes(scope))
      return kindeError(403, "FORBIDDEN", `Missing required scope: ${scope}`);
    return handleList(request, state, decodeURIComponent(match[1]), match[2]);
  },

  injectedError(status) {
    if (status === 429)
      return kindeError(429, "TOO_MANY_REQUESTS", "Too many requests", { "ratelimit-reset": "3" });
    return kindeError(status, "INTERNAL_SERVER_ERROR", "Internal server error");
  },
};

export { DEMO_KINDE } from "./demo";
export { kindeError } from "./responses";
export { KINDE_ALL_SCOPES, type KindeApp, type KindeM2m, kindeKeys } from "./state";
