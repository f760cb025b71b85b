/**
 * GET and PUT /api/v1/apps/{appId}. PUT is a full replace: a body missing a required property is
 * refused 400 E0000001, and any optional property left out (e.g. post_logout_redirect_uris) is gone
 * afterwards. Read-only properties in the body are ignored. No precondition: last write wins.
 */
import type { EmulatorState } from "../emulator";
import { oktaError, reply } from "./responses";
import { oktaKeys } from "./state";

export const APP_PATH = /^\/api\/v1\/apps\/([^/]+)$/;
const READ_ONLY = ["id", "status", "created", "lastUpdated", "_links", "_embedded"];

export type Json = Record<string, unknown>;
const obj = (v: unknown): Json | undefined =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Json) : undefined;

/** The properties an OIDC app's PUT must carry; missing ones are named like Okta does. */
function missingFields(body: Json): string[] {
  const missing: string[] = [];
  for (const field of ["name", "label", "signOnMode"])
    if (typeof body[field] !== "string") missing.push(field);
  if (!obj(obj(body.credentials)?.oauthClient)) missing.push("credentials.oauthClient");
  const client = obj(obj(body.settings)?.oauthClient);
  if (!client) return [...missing, "settings.oauthClient"];
  for (const field of ["grant_types", "response_types"]) {
    if (!Array.isArray(client[field])) missing.push(`settings.oauthClient.${field}`);
  }
  if (typeof client.application_type !== "string") missing.push("settings.oauthClient.application_type");
  for (const field of ["redirect_uris", "post_logout_redirect_uris"]) {
    const list = client[field];
    if (list !== undefined && (!Array.isArray(list) || list.some((u) => typeof u !== "string"))) {
      missing.push(`settings.oauthClient.${field}`);
    }
  }
  return missing;
}

export async function putApp(
  request: Request,
  state: EmulatorState,
  id: string,
  stored: Json,
  headers: Record<string, string>,
) {
  let body: Json | undefined;
  try {
    body = obj(await request.json());
  } catch {
    body = undefined;
  }
  if (!body) return oktaError(400, "E0000003", "The request body was not well-formed.", headers);
  const missing = missingFields(body);
  if (missing.length > 0) {
    return oktaError(
      400,
      "E0000001",
      `Api validation failed: ${missing[0]}`,
      headers,
      missing.map((f) => `${f}: The field cannot be left blank.`),
    );
  }
  const replaced: Json = Object.fromEntries(Object.entries(body).filter(([k]) => !READ_ONLY.includes(k)));
  for (const k of READ_ONLY) if (k in stored) replaced[k] = stored[k];
  replaced.lastUpdated = new Date().toISOString();
  state.put(oktaKeys.app(id), replaced);
  return reply(200, replaced, headers);
}
