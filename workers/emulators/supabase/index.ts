/**
 * The Supabase Management API emulator: GET/PATCH /v1/projects/{ref}/config/auth with Supabase's
 * shapes (PROVIDERS.md §5). PATCH is a partial update with no precondition (last write wins).
 * Errors are `{ message }`; every answer carries X-RateLimit-* where Reset counts seconds until the
 * 60 s window ends, and 120 requests per minute per token and project are allowed.
 */
import type { EmulatorState, ProviderEmulatorModule } from "../emulator";
import { provisionDemoProject } from "./demo";
import { authConfig, type SupabaseAuthConfig, type SupabaseToken, supabaseKeys } from "./state";

const CONFIG_PATH = /^\/v1\/projects\/([^/]+)\/config\/auth$/;
export const SUPABASE_RATE_LIMIT = 120;
const WINDOW_MS = 60_000;
const windows = new Map<string, { start: number; used: number }>();

type Headers = Record<string, string>;

/** An injected 429 says the window has this many seconds left. */
const INJECTED_RESET_SECONDS = 5;

function rateLimit(key: string, nowMs: number, exhausted = false): { headers: Headers; over: boolean } {
  let window = windows.get(key);
  if (!window || nowMs - window.start >= WINDOW_MS) window = { start: nowMs, used: 0 };
  if (!exhausted) window.used += 1;
  windows.set(key, window);
  const remaining = exhausted ? 0 : Math.max(0, SUPABASE_RATE_LIMIT - window.used);
  const reset = Math.ceil((window.start + WINDOW_MS - nowMs) / 1000);
  return {
    headers: {
      "x-ratelimit-limit": String(SUPABASE_RATE_LIMIT),
      "x-ratelimit-remaining": String(remaining),
      "x-ratelimit-reset": String(exhausted ? INJECTED_RESET_SECONDS : reset),
    },
    over: exhausted || window.used > SUPABASE_RATE_LIMIT,
  };
}

function reply(status: number, body: unknown, headers: Headers = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

const message = (status: number, text: string, headers: Headers = {}) =>
  reply(status, { message: text }, headers);

const FORBIDDEN =
  "Your account does not have the necessary privileges to access this endpoint. For more details, refer to our documentation https://supabase.com/docs/guides/platform/access-control";

const STRING_OR_NULL = new Set(["site_url", "uri_allow_list"]);

/** The PATCH checks the emulator models; null when the body is acceptable. */
function invalid(body: unknown): string | null {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return "Invalid request body";
  for (const [field, value] of Object.entries(body)) {
    if (STRING_OR_NULL.has(field) && value !== null && typeof value !== "string") {
      return `${field} must be a string`;
    }
  }
  return null;
}

async function handleConfig(
  request: Request,
  state: EmulatorState,
  ref: string,
  token: SupabaseToken,
  headers: Headers,
): Promise<Response> {
  const config = state.get<SupabaseAuthConfig>(supabaseKeys.project(ref));
  if (!config || !token.projects.includes(ref)) return message(404, "Project not found", headers);
  if (request.method === "GET") return reply(200, config, headers);
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
  return reply(200, updated, headers);
}

export const supabaseEmulator: ProviderEmulatorModule = {
  provider: "supabase",
  matches: (host) => host === "api.supabase.com",
  isRead: (request) => request.method === "GET" && CONFIG_PATH.test(new URL(request.url).pathname),
  isWrite: (request) => request.method === "PATCH" && CONFIG_PATH.test(new URL(request.url).pathname),

  async handle(request, state) {
    const url = new URL(request.url);
    provisionDemoProject(url.pathname, state);
    const bearer = request.headers.get("authorization")?.match(/^Bearer (\S+)$/i)?.[1];
    const token = bearer ? state.get<SupabaseToken>(supabaseKeys.token(bearer)) : undefined;
    if (!token) return message(401, "Unauthorized");
    const ref = url.pathname.match(CONFIG_PATH)?.[1];
    const limit = rateLimit(`${bearer}:${ref ?? ""}`, Date.now());
    if (limit.over) return message(429, "Too many requests", limit.headers);
    if (ref === undefined || !["GET", "PATCH"].includes(request.method)) {
      return message(404, "Cannot " + request.method + " " + url.pathname, limit.headers);
    }
    return handleConfig(request, state, decodeURIComponent(ref), token, limit.headers);
  },

  injectedError(status, nowMs) {
    const headers = status === 429 ? rateLimit("injected", nowMs, true).headers : {};
    const text = status === 429 ? "Too many requests" : status >= 500 ? "Internal server error" : "Error";
    return message(status, text, headers);
  },
};

export { authConfig };
