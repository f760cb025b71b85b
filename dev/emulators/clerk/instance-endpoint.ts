/**
 * `GET /v1/instance` and `PATCH /v1/instance` (Clerk Backend API 2026-05-12). The PATCH takes a
 * closed set of fields (`additionalProperties: false`: anything else is 422), replaces
 * `allowed_origins` with the array sent and answers 204 with no body. No precondition: the last
 * write wins.
 */
import type { EmulatorState } from "../emulator";
import { clerkError, clerkJson } from "./responses";
import { type ClerkInstanceRecord, clerkKeys } from "./state";

/** The fields the spec's UpdateInstance body takes; the emulator stores only allowed_origins. */
const PATCHABLE = new Set([
  "test_mode",
  "hibp",
  "support_email",
  "clerk_js_version",
  "development_origin",
  "allowed_origins",
  "cookieless_dev",
  "url_based_session_syncing",
]);
const ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/[^\s/?#]+$/i;

const invalid = (name: string, detail: string) =>
  clerkError(422, "form_param_format_invalid", "is invalid", `${name} ${detail}`, { param_name: name });

export function getInstance(state: EmulatorState, instance: ClerkInstanceRecord): Response {
  const stored = state.get<ClerkInstanceRecord>(clerkKeys.instance(instance.id)) ?? instance;
  return clerkJson(200, { object: "instance", ...stored, workspace_id: `ws_${stored.id.slice(4)}` });
}

export async function patchInstance(
  request: Request,
  state: EmulatorState,
  instance: ClerkInstanceRecord,
): Promise<Response> {
  let body: Record<string, unknown>;
  try {
    body = (await request.json()) as Record<string, unknown>;
    if (typeof body !== "object" || body === null || Array.isArray(body)) throw new Error("not an object");
  } catch {
    return clerkError(400, "malformed_request", "malformed request", "The request body is not valid JSON.");
  }
  for (const name of Object.keys(body)) {
    if (!PATCHABLE.has(name))
      return clerkError(422, "form_param_unknown", "is unknown", `${name} is not a known parameter`, {
        param_name: name,
      });
  }
  const origins = body.allowed_origins;
  if (origins !== undefined) {
    if (!Array.isArray(origins) || origins.some((o) => typeof o !== "string" || !ORIGIN.test(o)))
      return invalid("allowed_origins", "must be a list of origins such as https://example.com");
    state.put<ClerkInstanceRecord>(clerkKeys.instance(instance.id), {
      ...instance,
      allowed_origins: [...(origins as string[])],
    });
  }
  return new Response(null, { status: 204 });
}
