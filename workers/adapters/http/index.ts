/**
 * Shared provider HTTP utilities. Every adapter uses these three things:
 *
 * 1. A `ProviderHttpSpec` per provider: `provider` (name in messages), `retryAfterMs(res, nowMs)`
 *    (how long a 429 asks us to wait, e.g. Auth0's `x-ratelimit-reset` is epoch seconds → use
 *    `epochSecondsResetHeader("x-ratelimit-reset")`; Supabase/Kinde count seconds →
 *    `secondsResetHeader(...)`), and `describeError(body)` → `{ message, code }`.
 * 2. `providerRequest(ctx, spec, req)` / `providerJson(ctx, spec, req, schema)`: send through
 *    `ctx.fetch`, retry 429/5xx/network errors with exponential backoff (`DEFAULT_RETRY`: 4 attempts,
 *    500 ms base, 30 s total wait; override per call with `req.retry`), waiting via `ctx.clock.sleep`.
 *    Resolves with a 2xx (or a status listed in `req.accept`); providerJson validates the body with
 *    zod. Otherwise throws `SponsonError("PROVIDER_ERROR", "<provider>: <status> <message>",
 *    { provider, status, providerCode, attempts })` with every registered secret redacted.
 * 3. `withAccessToken(ctx, source, call)`: client-credentials tokens keyed by a fingerprint of
 *    (endpoint, client id, secret), cached per isolate and, when `ctx.tokens` is set, shared by the
 *    fleet through the connection's token object (./shared-tokens.ts: one exchange per lifetime for
 *    every isolate); reuses a token until shortly before `expires_in`, and after a 401 from `call`
 *    drops it from both levels, gets a fresh one once and calls again. Tokens are registered as secrets.
 */
export { type FormClientCredentials, formClientCredentials } from "./client-credentials";
export { providerError, providerStatus } from "./provider-error";
export {
  DEFAULT_RETRY,
  type HttpContext,
  type ProviderHttpSpec,
  type ProviderRequest,
  providerJson,
  providerRequest,
  type RetryPolicy,
} from "./provider-request";
export { epochSecondsResetHeader, secondsResetHeader } from "./reset-headers";
export type { SharedTokens } from "./shared-tokens";
export {
  type AccessToken,
  clearTokenCache,
  IsolateTokenCache,
  type TokenSource,
  withAccessToken,
} from "./token-cache";
