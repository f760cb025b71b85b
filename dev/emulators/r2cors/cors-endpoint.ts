/**
 * GET/PUT/DELETE /client/v4/accounts/{account}/r2/buckets/{bucket}/cors. No policy: 404 with code
 * 10059. PUT replaces the whole policy, no precondition (last write wins); malformed: 10040.
 */

import { cfEnvelope, cfError } from "../cloudflare/responses";
import type { EmulatorState } from "../emulator";
import type { R2Bucket } from "./state";

export const CORS_PATH = /^\/client\/v4\/accounts\/([^/]+)\/r2\/buckets\/([^/]+)\/cors$/;
const METHODS = new Set(["GET", "PUT", "POST", "DELETE", "HEAD"]);

function malformed(body: unknown): boolean {
  const rules = (body as { rules?: unknown } | null)?.rules;
  if (!Array.isArray(rules)) return true;
  return rules.some((r) => {
    const allowed = (r as { allowed?: { origins?: unknown; methods?: unknown } } | null)?.allowed;
    return (
      !Array.isArray(allowed?.origins) ||
      allowed.origins.length === 0 ||
      !Array.isArray(allowed.methods) ||
      allowed.methods.some((m) => !METHODS.has(m as string))
    );
  });
}

export async function handleCors(
  request: Request,
  state: EmulatorState,
  key: string,
  bucket: R2Bucket,
): Promise<Response> {
  if (request.method === "GET") {
    if (!bucket.rules || bucket.rules.length === 0)
      return cfError(404, 10059, "The CORS configuration does not exist.");
    return cfEnvelope(200, { rules: bucket.rules });
  }
  if (request.method === "DELETE") {
    state.put(key, { ...bucket, rules: [] });
    return cfEnvelope(200, null);
  }
  let body: unknown;
  try {
    body = await request.json();
  } catch {
    body = null;
  }
  if (malformed(body)) return cfError(400, 10040, "The CORS configuration is malformed.");
  state.put(key, { ...(state.get<R2Bucket>(key) ?? bucket), rules: (body as { rules: unknown[] }).rules });
  return cfEnvelope(200, null);
}
