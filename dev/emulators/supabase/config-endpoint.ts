/**
 * GET/PATCH /v1/projects/{ref}/config/auth. PATCH is a partial update with no precondition (last
 * write wins): the fields sent replace theirs, every other field stays as it was.
 */
import type { EmulatorState } from "../emulator";
import { FORBIDDEN, type Headers, message, reply } from "./responses";
import {
  AUTH_CONFIG_DEFAULTS,
  authConfigView,
  type SupabaseAuthConfig,
  type SupabaseToken,
  supabaseKeys,
} from "./state";

export const CONFIG_PATH = /^\/v1\/projects\/([^/]+)\/config\/auth$/;

/** The PATCH checks the emulator models: a known field keeps its JSON type (or null); null when fine. */
function invalid(body: unknown): string | null {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return "Invalid request body";
  for (const [field, value] of Object.entries(body)) {
    if (!Object.hasOwn(AUTH_CONFIG_DEFAULTS, field) || value === null) continue;
    const wanted = AUTH_CONFIG_DEFAULTS[field];
    // A field whose default is null takes a string (URLs, ids, templates, secrets).
    const type = wanted === null ? "string" : typeof wanted;
    if (typeof value !== type) return `${field} must be a ${type}`;
  }
  return null;
}

export async function handleConfig(
  request: Request,
  state: EmulatorState,
  ref: string,
  token: SupabaseToken,
  headers: Headers,
): Promise<Response> {
  const config = state.get<SupabaseAuthConfig>(supabaseKeys.project(ref));
  if (!config || !token.projects.includes(ref)) return message(404, "Project not found", headers);
  if (request.method === "GET") return reply(200, authConfigView(config), headers);
  if (token.readOnly) return message(403, FORBIDDEN, headers);
  let body: unknown;
  try {
    body = await request.json();
  } catch {
    return message(400, "Invalid JSON body", headers);
  }
  const problem = invalid(body);
  if (problem) return message(400, problem, headers);
  // Partial update, read and written with no await in between (one PATCH is atomic).
  const current = state.get<SupabaseAuthConfig>(supabaseKeys.project(ref)) ?? config;
  const updated = { ...current, ...(body as Record<string, unknown>) };
  state.put(supabaseKeys.project(ref), updated);
  return reply(200, authConfigView(updated), headers);
}
