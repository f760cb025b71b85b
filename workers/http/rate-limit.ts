/**
 * Fair use (docs/security.md, "Fair use"): runs and previews are limited per caller, so one token
 * (a pull request's job, a leaked ci token) cannot spend a tenant's management-API quota. Counted by
 * Cloudflare's Rate Limiting binding (`RUN_RATE_LIMITER` in wrangler.toml: the limit and period
 * are its `simple` settings); refused `429 RATE_LIMITED` with `Retry-After`.
 *
 * `SPONSON_RATE_LIMIT`: `on` or `off`; unset means on in the production entry and off in the dev
 * entry (`npm start`, the tests), whose transport is the emulators'.
 */
import { createMiddleware } from "hono/factory";
import { SponsonError } from "../../shared/errors";
import type { AppEnv } from "../app-env";
import type { Caller } from "../auth/caller";
import { callerOf } from "../auth/route-access";
import { configFromEnv } from "../config/config";
import type { ProviderTransport } from "../wiring/wire";

/** The binding's period in wrangler.toml (Cloudflare allows 10 or 60 seconds). */
export const RATE_LIMIT_PERIOD_SECONDS = 60;

/** Cloudflare's Rate Limiting binding, as far as this service uses it. */
export interface RateLimiter {
  limit(options: { key: string }): Promise<{ success: boolean }>;
}

const RUN_PATH = /^\/v1\/scopes\/[^/]+\/[^/]+\/(apply|preview|destroy|rollback)$/;

/**
 * Whose allowance a request spends (docs/security.md, "Fair use"): one repository's pull request's
 * or branch's job; a service token bound to a repository, that repository's subject and role; an
 * unbound one, its subject and role under the key that signed it. A subject alone let tokens of
 * different repositories (or a ci token minted with an admin's subject) spend one another's budget.
 * Every part is JSON-quoted so no subject can spell another caller's key.
 */
export function rateLimitKey(caller: Caller): string {
  if (caller.kind === "github") return `github:${caller.repositoryId}:${caller.ref}`;
  // An Access identity is one person: their email (the subject) is the whole key.
  if (caller.kind === "access") return `access:${JSON.stringify([caller.role, caller.subject])}`;
  const owner =
    caller.repository === undefined
      ? ["key", caller.keyId ?? null]
      : ["repository", caller.repository.toLowerCase()];
  return `service:${JSON.stringify([...owner, caller.role, caller.subject])}`;
}

let warned = false;

export function rateLimit(transport: ProviderTransport) {
  return createMiddleware<AppEnv>(async function rateLimit(c, next) {
    if (c.req.method !== "POST" || !RUN_PATH.test(c.req.path)) return next();
    const setting = configFromEnv(c.env).rateLimit;
    const enabled = setting === null ? transport.emulated !== true : setting === "on";
    if (!enabled) return next();
    const limiter = c.env.RUN_RATE_LIMITER as RateLimiter | undefined;
    if (limiter === undefined) {
      if (!warned)
        console.warn("SPONSON_RATE_LIMIT is on but RUN_RATE_LIMITER is not bound: runs are not limited");
      warned = true;
      return next();
    }
    const { success } = await limiter.limit({ key: rateLimitKey(callerOf(c)) });
    if (!success) {
      throw new SponsonError(
        "RATE_LIMITED",
        `this caller started too many runs and previews; retry after ${RATE_LIMIT_PERIOD_SECONDS} seconds`,
        { rule: "rate-limit.runs", retryAfterSeconds: RATE_LIMIT_PERIOD_SECONDS },
      );
    }
    await next();
  });
}
