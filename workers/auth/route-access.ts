/**
 * Which caller may reach which route (docs/design.md, "Security model"), in one table a reviewer can read.
 * Public: liveness, the OpenAPI document and the webhook receiver (it has its own signature). Scope actions
 * go through authorizeScope with the environment and scope from the path, then resolveRepository
 * decides which repository's scope it is (`?repository=owner/name`, the token's, or the only one
 * configured) and puts it on the context; everything else needs a role.
 * A route missing from the table is fail-closed: reads need viewer, anything else admin.
 */
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { SponsonError } from "../../shared/errors";
import type { AppEnv } from "../app-env";
import { configFromEnv } from "../config/config";
import { authorizeScope, type ScopeAction } from "./authorize-scope";
import { type Role, roleAtLeast } from "./caller";
import { resolveRepository } from "./resolve-repository";

const PUBLIC_ROUTES: ReadonlyArray<readonly [method: string, path: string]> = [
  ["GET", "/healthz"],
  ["HEAD", "/healthz"],
  ["POST", "/v1/webhooks/github"],
  // Platform deploy events: each checks its platform's own signature (workers/platforms/).
  ["POST", "/v1/webhooks/vercel"],
  ["POST", "/v1/webhooks/netlify"],
  // API tooling (code generators, gateways, linters) fetches the document without credentials.
  ["GET", "/v1/openapi.json"],
  // The dashboard's sign-in form and sign-out: same-origin checked in workers/routes/dashboard-sign-in.ts.
  ["GET", "/dashboard/sign-in"],
  ["POST", "/dashboard/sign-in"],
  ["POST", "/dashboard/sign-out"],
  // The OIDC issuer's documents: the clouds fetch them without credentials (routes/well-known.ts).
  ["GET", "/.well-known/openid-configuration"],
  ["GET", "/.well-known/jwks.json"],
];

export function isPublicRoute(method: string, path: string): boolean {
  return PUBLIC_ROUTES.some(([m, p]) => m === method && p === path);
}

/**
 * POST /v1/scopes/{environment}/{scope}/{action} and GET …/ledger, on the path the router matched
 * (canonical, workers/http/canonical-path.ts), with each segment decoded as the router's params are.
 */
function scopeRoute(
  method: string,
  path: string,
): { environment: string; scope: string; action: ScopeAction } | null {
  const m = /^\/v1\/scopes\/([^/]+)\/([^/]+)\/([a-z]+)$/.exec(path);
  if (!m?.[1] || !m[2] || !m[3]) return null;
  let environment: string;
  let scope: string;
  try {
    environment = decodeURIComponent(m[1]);
    scope = decodeURIComponent(m[2]);
  } catch {
    throw new SponsonError("VALIDATION", "the scope path is not valid percent-encoding");
  }
  // HEAD is served by the GET handler (Hono), so it is authorized as the read it is.
  if ((method === "GET" || method === "HEAD") && m[3] === "ledger") {
    return { environment, scope, action: "read" };
  }
  if (method === "POST" && ["apply", "preview", "destroy", "rollback"].includes(m[3])) {
    return { environment, scope, action: m[3] as ScopeAction };
  }
  return null;
}

/** The minimum role for a route that is neither public nor a scope action. */
function minimumRole(method: string, path: string): Role {
  if (method === "DELETE" && path.startsWith("/v1/locks/")) return "admin";
  // Holds (POST and DELETE /v1/locks/{key}/hold) stop every run that needs the lock.
  if (path.startsWith("/v1/locks/") && path.endsWith("/hold")) return "admin";
  // Listing orphans reads every owned object's lists with the service's credentials.
  if (path === "/v1/orphans" || path.startsWith("/v1/orphans/")) return "admin";
  // The deny list and the audit trail name actors, reasons and token ids.
  if (path === "/v1/tokens" || path.startsWith("/v1/tokens/")) return "admin";
  // The audit trail: a repository-bound viewer may read its own repository's records, so the
  // listing lets viewers in and refuses every unbound caller below admin itself (routes/audit.ts).
  if (path === "/v1/audit" && (method === "GET" || method === "HEAD")) return "viewer";
  if (path === "/v1/audit" || path.startsWith("/v1/audit/")) return "admin";
  // Operations on the service itself (the upgrade pass: docs/upgrading.md), reads too.
  if (path.startsWith("/v1/admin/")) return "admin";
  if (method === "GET" || method === "HEAD") return "viewer";
  return "admin";
}

export function callerOf(c: Context<AppEnv>) {
  const caller = c.get("caller");
  // Authentication runs first; a missing caller here is a wiring bug, so refuse.
  if (caller === undefined) throw new SponsonError("UNAUTHENTICATED", "authentication is required");
  return caller;
}

/** The table above as middleware; mount after `authenticate`. */
export function routeAccess() {
  return createMiddleware<AppEnv>(async function routeAccess(c, next) {
    const method = c.req.method;
    // The path the router matches: never the raw URL, which may spell the same route differently.
    const path = c.req.path;
    if (isPublicRoute(method, path)) return next();
    const caller = callerOf(c);
    const scoped = scopeRoute(method, path);
    if (scoped) {
      authorizeScope(caller, scoped.environment, scoped.scope, scoped.action);
      const requested = c.req.query("repository");
      c.set(
        "repository",
        resolveRepository({ caller, requested, repositories: configFromEnv(c.env).repositories }),
      );
    } else {
      assertRole(caller.role, minimumRole(method, path), `${method} ${path}`);
    }
    await next();
  });
}

export function assertRole(role: Role, minimum: Role, what: string): void {
  if (!roleAtLeast(role, minimum)) {
    throw new SponsonError("FORBIDDEN", `role ${role} may not ${what}; it needs ${minimum}`, {
      rule: `role.${minimum}`,
      role,
    });
  }
}

/** Per-route guard for handlers that want it explicit: `requireRole("admin")` = admin only. */
export function requireRole(minimum: Role) {
  return createMiddleware<AppEnv>(async function requireRole(c, next) {
    assertRole(callerOf(c).role, minimum, `${c.req.method} ${c.req.path}`);
    await next();
  });
}
