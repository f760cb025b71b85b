/**
 * The Keycloak emulator: a self-hosted server on any host with a `keycloak` label
 * (keycloak.acme.com). The token endpoint (./token-endpoint.ts) and the admin API's clients
 * (./clients-endpoint.ts); bearer tokens checked against the realm that issued them (master
 * reaches every realm). Errors in both of Keycloak's shapes (./responses.ts). State: ./state.ts.
 */
import type { ProviderEmulatorModule } from "../emulator";
import { CLIENTS_PATH, getClient, lookup, putClient } from "./clients-endpoint";
import { provisionDemoRealm } from "./demo";
import { kcError, kcServerError } from "./responses";
import { type KeycloakToken, keycloakKeys } from "./state";
import { issueToken } from "./token-endpoint";

const HOST = /^(?:[a-z0-9-]+\.)*keycloak\.[a-z0-9-]+(?:\.[a-z0-9-]+)*(?::\d+)?$/i;
const TOKEN_PATH = /^\/realms\/([^/]+)\/protocol\/openid-connect\/token$/;
const isClients = (request: Request) => CLIENTS_PATH.test(new URL(request.url).pathname);

export const keycloakEmulator: ProviderEmulatorModule = {
  provider: "keycloak",
  matches: (host) => HOST.test(host),
  isRead: (request) => request.method === "GET" && isClients(request),
  isWrite: (request) => request.method === "PUT" && isClients(request),

  async handle(request, state) {
    const url = new URL(request.url);
    provisionDemoRealm(url.host, state);
    const tokenPath = url.pathname.match(TOKEN_PATH);
    if (tokenPath && request.method === "POST")
      return issueToken(request, state, decodeURIComponent(tokenPath[1] ?? ""));
    const match = url.pathname.match(CLIENTS_PATH);
    if (!match) return kcError(404, "Unable to find matching target resource method");
    const realm = decodeURIComponent(match[1] ?? "");
    const bearer = request.headers.get("authorization")?.match(/^Bearer (\S+)$/i)?.[1];
    const token = bearer ? state.get<KeycloakToken>(keycloakKeys.token(bearer)) : undefined;
    if (!token || token.expiresAt <= Date.now() || (token.realm !== "master" && token.realm !== realm)) {
      return kcError(401, "HTTP 401 Unauthorized");
    }
    if (!state.get<boolean>(keycloakKeys.realm(realm))) return kcError(404, "Realm not found.");
    const id = match[2] ? decodeURIComponent(match[2]) : undefined; // "" (a trailing slash): the collection
    if (id === undefined && request.method === "GET") return lookup(state, token, realm, url);
    if (id !== undefined && request.method === "GET") return getClient(state, token, realm, id);
    if (id !== undefined && request.method === "PUT") return putClient(request, state, token, realm, id);
    return kcError(405, "HTTP 405 Method Not Allowed");
  },

  injectedError(status) {
    // Keycloak has no limiter of its own; a proxy in front answers 429 with no body convention.
    if (status === 429) return kcError(429, "Too Many Requests");
    if (status >= 500) return kcServerError(status);
    return kcError(status, "unknown_error");
  },
};

export { DEMO_KEYCLOAK } from "./demo";
export {
  type ClientRepresentation,
  type KeycloakClientRecord,
  type KeycloakServiceAccount,
  keycloakClient,
  keycloakKeys,
  POST_LOGOUT_ATTRIBUTE,
} from "./state";
