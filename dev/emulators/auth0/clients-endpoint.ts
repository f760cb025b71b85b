/**
 * GET and PATCH /api/v2/clients/{id}. PATCH replaces each list sent, leaves the
 * others alone, and has no precondition: the last write wins, which is the race Sponson prevents.
 */
import type { EmulatorState } from "../emulator";
import { apiError, json } from "./responses";
import {
  type Auth0ClientRecord,
  auth0ClientView,
  auth0Keys,
  type IssuedToken,
  LIST_FIELDS,
  managementAudience,
} from "./state";

export const CLIENT_PATH = /^\/api\/v2\/clients\/([^/]+)$/;

/** Max entries Auth0 documents for these lists; callbacks has no confirmed limit. */
const MAX_ENTRIES: Partial<Record<string, number>> = { allowed_logout_urls: 100, web_origins: 100 };
type FieldType = "array" | "string" | "boolean" | "object" | "number";
/** Writable properties of a client (Auth0's PATCH schema, the common ones) and their JSON types. */
const PATCHABLE: Record<string, FieldType> = {
  ...Object.fromEntries(LIST_FIELDS.map((f) => [f, "array"])),
  client_aliases: "array",
  allowed_clients: "array",
  grant_types: "array",
  name: "string",
  description: "string",
  app_type: "string",
  logo_uri: "string",
  initiate_login_uri: "string",
  token_endpoint_auth_method: "string",
  organization_usage: "string",
  organization_require_behavior: "string",
  is_first_party: "boolean",
  oidc_conformant: "boolean",
  sso: "boolean",
  sso_disabled: "boolean",
  cross_origin_authentication: "boolean",
  custom_login_page_on: "boolean",
  is_token_endpoint_ip_header_trusted: "boolean",
  require_pushed_authorization_requests: "boolean",
  jwt_configuration: "object",
  refresh_token: "object",
  client_metadata: "object",
  native_social_login: "object",
};
/** Lists whose items must be strings. */
const STRING_LISTS = new Set<string>([...LIST_FIELDS, "client_aliases", "allowed_clients", "grant_types"]);

type Headers = Record<string, string>;

function invalidToken(message: string, headers: Headers): Response {
  return apiError(401, message, undefined, headers, { attributes: { error: message } });
}

/** Bearer check, then scope check; null when the caller may go on. */
function authorize(
  request: Request,
  state: EmulatorState,
  scope: string,
  headers: Headers,
  nowMs: number,
): Response | null {
  const header = request.headers.get("authorization");
  const match = header?.match(/^Bearer (\S+)$/i);
  if (!match?.[1]) return apiError(401, "Missing authentication", undefined, headers);
  const token = state.get<IssuedToken>(auth0Keys.token(match[1]));
  if (!token) return invalidToken("Invalid token", headers);
  if (token.expiresAt <= nowMs) {
    return invalidToken("Expired token received for JSON Web Token validation", headers);
  }
  // Inferred, not read in the docs: the Management API checks `aud` like any Auth0 API and
  // refuses another API's token with 401 "Bad audience".
  const host = new URL(request.url).host;
  if (token.audience !== undefined && token.audience !== managementAudience(host)) {
    return invalidToken(`Bad audience: ${token.audience}`, headers);
  }
  if (!token.scopes.includes(scope)) {
    return apiError(403, `Insufficient scope, expected any of: ${scope}`, "insufficient_scope", headers);
  }
  return null;
}

function notFound(headers: Headers): Response {
  return apiError(404, "The client does not exist", "inexistent_client", headers);
}

function typeName(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (value === null) return "null";
  return typeof value;
}

function invalidBody(message: string, headers: Headers): Response {
  return apiError(400, `Payload validation error: ${message}.`, "invalid_body", headers);
}

/** Auth0's own checks on a PATCH body, in its wording; null when valid. */
function validatePatch(body: unknown, headers: Headers): Response | null {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return invalidBody(`'Expected type object but found type ${typeName(body)}'`, headers);
  }
  const entries = Object.entries(body);
  if (entries.length === 0) return invalidBody("'Too few properties defined (0), minimum 1'", headers);
  const extra = entries.map(([k]) => k).filter((k) => !Object.hasOwn(PATCHABLE, k));
  if (extra.length > 0)
    return invalidBody(`'Additional properties not allowed: ${extra.join(",")}'`, headers);
  for (const [field, value] of entries) {
    const wanted = PATCHABLE[field];
    if (typeName(value) !== wanted) {
      return invalidBody(
        `'Expected type ${wanted} but found type ${typeName(value)}' on property ${field}`,
        headers,
      );
    }
    if (!Array.isArray(value) || !STRING_LISTS.has(field)) continue;
    const bad = value.findIndex((item) => typeof item !== "string");
    if (bad >= 0) {
      return invalidBody(
        `'Expected type string but found type ${typeName(value[bad])}' on property ${field}[${bad}]`,
        headers,
      );
    }
    const max = MAX_ENTRIES[field];
    if (max !== undefined && value.length > max) {
      return invalidBody(
        `'Array is too long (${value.length}), maximum ${max}' on property ${field}`,
        headers,
      );
    }
  }
  return null;
}

/** `fields` + `include_fields` (default true) select what a GET returns. */
function project(client: Record<string, unknown>, url: URL): Record<string, unknown> {
  const fields = url.searchParams.get("fields");
  if (!fields) return client;
  const wanted = new Set(fields.split(",").map((f) => f.trim()));
  const include = url.searchParams.get("include_fields") !== "false";
  return Object.fromEntries(Object.entries(client).filter(([k]) => wanted.has(k) === include));
}

export function getClient(
  request: Request,
  state: EmulatorState,
  id: string,
  headers: Headers,
  nowMs: number,
): Response {
  const denied = authorize(request, state, "read:clients", headers, nowMs);
  if (denied) return denied;
  const client = state.get<Auth0ClientRecord>(auth0Keys.client(id));
  if (!client) return notFound(headers);
  const url = new URL(request.url);
  return json(200, project(auth0ClientView(client, url.host), url), headers);
}

export async function patchClient(
  request: Request,
  state: EmulatorState,
  id: string,
  headers: Headers,
  nowMs: number,
): Promise<Response> {
  const denied = authorize(request, state, "update:clients", headers, nowMs);
  if (denied) return denied;
  let body: unknown;
  try {
    body = await request.json();
  } catch {
    return apiError(400, "Invalid request payload JSON format", "invalid_body", headers);
  }
  const invalid = validatePatch(body, headers);
  if (invalid) return invalid;
  // Read and write with no await in between: one PATCH is atomic, two interleaved
  // read-modify-writes by clients are not (that is the provider's behaviour we reproduce).
  const client = state.get<Auth0ClientRecord>(auth0Keys.client(id));
  if (!client) return notFound(headers);
  const updated = { ...client, ...(body as Record<string, unknown>) };
  state.put(auth0Keys.client(id), updated);
  return json(200, auth0ClientView(updated, new URL(request.url).host), headers);
}
