/**
 * The admin REST API's clients of a realm (Keycloak 26 Admin REST API, ClientResource):
 * `GET /admin/realms/{realm}/clients?clientId=` (exact match: 0 or 1 element), `GET` and `PUT
 * /admin/realms/{realm}/clients/{id}` on the internal id. PUT answers 204 and merges like
 * RepresentationToModel.updateClient: an omitted or null scalar is kept, a list sent replaces the
 * stored one, `attributes` merge per key — and Authorization Services are switched off, their
 * settings deleted, unless `authorizationServicesEnabled` is `true`. No precondition: the last
 * write wins. Redirect URIs take `*` only as the last character (no host wildcard since 26.6.3).
 */
import type { EmulatorState } from "../emulator";
import { kcError, kcErrorMessage, kcJson, kcNoContent } from "./responses";
import {
  type ClientRepresentation,
  type KeycloakClientRecord,
  type KeycloakToken,
  keycloakKeys,
  POST_LOGOUT_ATTRIBUTE,
} from "./state";

// JAX-RS takes `clients/` (what the admin client sends for a lookup) as `clients`.
export const CLIENTS_PATH = /^\/admin\/realms\/([^/]+)\/clients(?:\/([^/]*))?$/;
const REPLACED_LISTS = [
  "redirectUris",
  "webOrigins",
  "protocolMappers",
  "defaultClientScopes",
  "optionalClientScopes",
];

const canList = (t: KeycloakToken) => t.roles.length > 0;
const canView = (t: KeycloakToken) => t.roles.includes("manage-clients") || t.roles.includes("view-clients");
const forbidden = () => kcError(403, "HTTP 403 Forbidden");

function clientsOf(state: EmulatorState, realm: string): Map<string, KeycloakClientRecord> {
  return state.list<KeycloakClientRecord>(`client:${realm}:`);
}

export function lookup(state: EmulatorState, token: KeycloakToken, realm: string, url: URL): Response {
  if (!canList(token)) return forbidden();
  const wanted = url.searchParams.get("clientId");
  const search = url.searchParams.get("search") === "true";
  const reps = [...clientsOf(state, realm).values()]
    .map((r) => r.rep)
    .filter((rep) => wanted === null || (search ? rep.clientId.includes(wanted) : rep.clientId === wanted));
  return kcJson(200, reps);
}

export function getClient(state: EmulatorState, token: KeycloakToken, realm: string, id: string): Response {
  const record = state.get<KeycloakClientRecord>(keycloakKeys.client(realm, id));
  // A caller that may not list clients learns nothing from a 404 ("so somebody can't phish ids").
  if (!record) return canList(token) ? kcError(404, "Could not find client") : forbidden();
  if (!canView(token)) return forbidden();
  return kcJson(200, record.rep);
}

/** `*` is a path wildcard, allowed only as the last character. */
function badRedirect(uris: unknown): boolean {
  if (uris === undefined || uris === null) return false;
  if (!Array.isArray(uris) || uris.some((u) => typeof u !== "string")) return true;
  return (uris as string[]).some((u) => {
    const star = u.indexOf("*");
    return star >= 0 && star !== u.length - 1 && u !== "*";
  });
}

export async function putClient(
  request: Request,
  state: EmulatorState,
  token: KeycloakToken,
  realm: string,
  id: string,
): Promise<Response> {
  const key = keycloakKeys.client(realm, id);
  const record = state.get<KeycloakClientRecord>(key);
  if (!record) return canList(token) ? kcError(404, "Could not find client") : forbidden();
  if (!token.roles.includes("manage-clients")) return forbidden();
  let body: Record<string, unknown>;
  try {
    body = (await request.json()) as Record<string, unknown>;
    if (typeof body !== "object" || body === null || Array.isArray(body)) throw new Error("not an object");
  } catch {
    return kcError(400, "unknown_error", "Cannot parse the JSON");
  }
  const attributes = (body.attributes ?? {}) as Record<string, unknown>;
  const postLogout = attributes[POST_LOGOUT_ATTRIBUTE];
  if (
    badRedirect(body.redirectUris) ||
    (typeof postLogout === "string" && badRedirect(postLogout.split("##").filter(Boolean)))
  ) {
    return kcError(400, "invalid_input", "A redirect URI is not a valid URI");
  }
  const clientId = typeof body.clientId === "string" ? body.clientId : record.rep.clientId;
  const taken = [...clientsOf(state, realm).values()].some(
    (r) => r.rep.id !== id && r.rep.clientId === clientId,
  );
  if (taken) return kcErrorMessage(409, "Client already exists");

  const rep: ClientRepresentation = { ...record.rep };
  for (const [field, value] of Object.entries(body)) {
    if (field === "id" || field === "attributes" || value === null || value === undefined) continue;
    // Lists are stored as sets: duplicates collapse.
    rep[field] = REPLACED_LISTS.includes(field) && Array.isArray(value) ? [...new Set(value)] : value;
  }
  rep.attributes = { ...record.rep.attributes };
  for (const [k, v] of Object.entries(attributes)) if (typeof v === "string") rep.attributes[k] = v;
  // updateAuthorizationSettings: enable() only on TRUE, otherwise disable() — settings deleted.
  const authz = body.authorizationServicesEnabled === true;
  rep.authorizationServicesEnabled = authz;
  state.put<KeycloakClientRecord>(key, {
    rep,
    authz: authz ? (record.authz ?? { resources: [], policies: [] }) : undefined,
  });
  return kcNoContent();
}
