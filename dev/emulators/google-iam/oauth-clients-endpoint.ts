/**
 * GET and PATCH projects/{project}/locations/{location}/oauthClients/{id} (IAM API v1 reference).
 * PATCH requires `updateMask`; each field it names is replaced whole by the body's value (a list
 * sent replaces the list, AIP-161), a named field missing from the body is cleared; output-only
 * and immutable fields may not be named. No etag: the last write wins. The answer is the client.
 */
import type { EmulatorState } from "../emulator";
import { googleError, googleJson } from "../google/responses";
import type { IamOAuthClient } from "./state";

export const CLIENT_PATH = /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/oauthClients\/([^/]+)$/;
const UPDATABLE = new Set([
  "displayName",
  "description",
  "disabled",
  "allowedGrantTypes",
  "allowedScopes",
  "allowedRedirectUris",
]);
const camel = (path: string) => path.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
const isStringList = (v: unknown) => Array.isArray(v) && v.every((e) => typeof e === "string");

export async function patchClient(
  request: Request,
  state: EmulatorState,
  key: string,
  stored: IamOAuthClient,
): Promise<Response> {
  const params = new URL(request.url).searchParams;
  const mask = params.get("updateMask") ?? params.get("update_mask");
  if (!mask) return googleError(400, "Field 'update_mask' is required.");
  let body: Record<string, unknown>;
  try {
    body = (await request.json()) as Record<string, unknown>;
  } catch {
    return googleError(400, "Invalid JSON payload received.");
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return googleError(400, "Invalid JSON payload received.");
  }
  const fields = mask.split(",").map((f) => camel(f.trim()));
  const bad = fields.find((f) => !UPDATABLE.has(f));
  if (bad) return googleError(400, `Invalid update mask path: ${bad}`);
  for (const list of ["allowedRedirectUris", "allowedScopes", "allowedGrantTypes"]) {
    if (fields.includes(list) && body[list] !== undefined && !isStringList(body[list])) {
      return googleError(400, `Invalid value at '${list}'`);
    }
  }
  const uris = body.allowedRedirectUris;
  if (fields.includes("allowedRedirectUris") && Array.isArray(uris)) {
    const invalid = (uris as string[]).find((u) => !/^(https:\/\/|http:\/\/localhost)[^\s]*$/.test(u));
    if (invalid) return googleError(400, `Invalid redirect URI: ${invalid}`);
  }
  const next: Record<string, unknown> = { ...stored };
  for (const field of fields) {
    if (body[field] === undefined) delete next[field];
    else next[field] = body[field];
  }
  state.put(key, next);
  return googleJson(200, next);
}
