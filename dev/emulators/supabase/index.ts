/**
 * The Supabase Management API emulator: GET/PATCH /v1/projects/{ref}/config/auth with Supabase's
 * shapes (./config-endpoint.ts), `{ message }` errors and X-RateLimit-* (./responses.ts).
 * State: ./state.ts.
 */
import type { ProviderEmulatorModule } from "../emulator";
import { CONFIG_PATH, handleConfig } from "./config-endpoint";
import { provisionDemoProject } from "./demo";
import { message, rateLimit } from "./responses";
import { type SupabaseToken, supabaseKeys } from "./state";

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
      return message(404, `Cannot ${request.method} ${url.pathname}`, limit.headers);
    }
    return handleConfig(request, state, decodeURIComponent(ref), token, limit.headers);
  },

  injectedError(status, nowMs) {
    const headers = status === 429 ? rateLimit("injected", nowMs, true).headers : {};
    const text = status === 429 ? "Too many requests" : status >= 500 ? "Internal server error" : "Error";
    return message(status, text, headers);
  },
};

export { DEMO_SUPABASE } from "./demo";
export { SUPABASE_RATE_LIMIT } from "./responses";
export { authConfig, type SupabaseAuthConfig, type SupabaseToken, supabaseKeys } from "./state";
