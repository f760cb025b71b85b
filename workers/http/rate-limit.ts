/**
 * Fair use (docs/security.md, "Fair use"): each caller has two budgets, so one token (a pull
 * request's job, a leaked ci token) can neither spend a tenant's management-API quota nor keep
 * every lock object busy answering it. Runs and previews spend one (`RUN_RATE_LIMITER`); the
 * dashboard's pages and the lock reads (`GET /v1/locks…`, `GET /dashboard…`, each of which reads
 * lock objects, the listing every held one) the other (`READ_RATE_LIMITER`). Each is counted by one
 * of Cloudflare's Rate Limiting bindings (wrangler.toml: the limit and period are its `simple`
 * settings); refused `429 RATE_LIMITED` with `Retry-After`.
 *
 * `SPONSON_RATE_LIMIT`: `on` or `off`, for both; unset means on in the production entry and off
 * in the dev entry (`npm start`, the tests), whose transport is the emulators'.
 */
import { createMiddleware } from "hono/factory";
import { SponsonError } from "../../shared/errors";
import type { AppEnv } from "../app-env";
import type { Caller } from "../auth/caller";
import { callerOf } from "../auth/route-access";
import { configFromEnv } from "../config/config";
import type { ProviderTransport } from "../wiring/wire";

/** Both bindings' period in wrangler.toml (Cloudflare allows 10 or 60 seconds). */
export const RATE_LIMIT_PERIOD_SECONDS = 60;

/** Cloudflare's Rate Limiting binding, as far as this service uses it. */
export interface RateLimiter {
  limit(options: { key: string }): Promise<{ success: boolean }>;
}

const RUN_PATH = /^\/v1\/scopes\/[^/]+\/[^/]+\/(apply|preview|destroy|rollback)$/;
const READ_PATH = /^\/(v1\/locks|dashboard)(\/.*)?$/;

/** One budget: the requests that spend it, the binding that counts them, and the refusal's words. */
interface Budget {
  binding: "RUN_RATE_LIMITER" | "READ_RATE_LIMITER";
  rule: string;
  spends(method: string, path: string): boolean;
  refusal: string;
}

const BUDGETS: readonly Budget[] = [
  {
    binding: "RUN_RATE_LIMITER",
    rule: "rate-limit.runs",
    spends: (method, path) => method === "POST" && RUN_PATH.test(path),
    refusal: "this caller started too many runs and previews",
  },
  {
    binding: "READ_RATE_LIMITER",
    rule: "rate-limit.reads",
    spends: (method, path) => (method === "GET" || method === "HEAD") && READ_PATH.test(path),
    refusal: "this caller read the dashboard and the locks too often",
  },
];

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

const warned = new Set<string>();

export function rateLimit(transport: ProviderTransport) {
  return createMiddleware<AppEnv>(async function rateLimit(c, next) {
    const budget = BUDGETS.find((b) => b.spends(c.req.method, c.req.path));
    // Public routes (the dashboard's sign-in form) have no caller and spend nothing.
    if (budget === undefined || c.get("caller") === undefined) return next();
    const setting = configFromEnv(c.env).rateLimit;
    const enabled = setting === null ? transport.emulated !== true : setting === "on";
    if (!enabled) return next();
    const limiter = c.env[budget.binding] as RateLimiter | undefined;
    if (limiter === undefined) {
      if (!warned.has(budget.binding))
        console.warn(
          `SPONSON_RATE_LIMIT is on but ${budget.binding} is not bound: ${budget.rule} is not limited`,
        );
      warned.add(budget.binding);
      return next();
    }
    const { success } = await limiter.limit({ key: rateLimitKey(callerOf(c)) });
    if (!success) {
      throw new SponsonError(
        "RATE_LIMITED",
        `${budget.refusal}; retry after ${RATE_LIMIT_PERIOD_SECONDS} seconds`,
        {
          rule: budget.rule,
          retryAfterSeconds: RATE_LIMIT_PERIOD_SECONDS,
        },
      );
    }
    await next();
  });
}
