/**
 * Each provider's documented management-API budget per tenant, the default a connection's `budget`
 * replaces (docs/adapters.md, "Write budgets"; docs/design.md, "Write budgets"). The numbers are
 * a token bucket (`burst` at once, `perSecond` after that). Where a provider counts per fixed
 * window instead, `burst + perSecond × window` stays under its limit, so no window can be
 * exceeded. Where a provider's plans differ, the strictest documented plan is the default: a
 * tenant on a larger plan is only slower than it could be until its connection says so.
 * Providers with no documented budget (Kinde, Keycloak, Cognito's is uncertain, S3, R2, Google's
 * OAuth clients, Firebase) declare none: their calls go as they come and a 429 is retried.
 */
import { canonicalHost } from "../../shared/canonical-identity";
import type { ProviderBudget } from "./http/provider-budget";

const host = (config: Record<string, unknown>) => canonicalHost(String(config.domain ?? ""));

/** The path segment after `/<marker>/` (a bucket, a project ref), else the whole path. */
function segmentAfter(url: URL, marker: string): string {
  const parts = url.pathname.split("/");
  const at = parts.indexOf(marker);
  return at >= 0 && parts[at + 1] ? decodeURIComponent(parts[at + 1] as string) : url.pathname;
}

/**
 * Auth0 Free: Management API burst 2, 2 per second, token bucket (auth0 docs "Rate limit
 * configurations: Free"); the paid self-service plan's "all other endpoints combined" is 10 and
 * 150 per minute. Reads count as well as writes; /oauth/token is the Authentication API's.
 */
export const AUTH0_BUDGET: ProviderBudget = {
  rate: { burst: 2, perSecond: 2 },
  counts: "calls",
  api: (url) => url.pathname.startsWith("/api/v2/"),
  tenant: (config) => host(config),
  source: "Auth0 Free plan (Management API: burst 2, 2/s)",
};

/**
 * Okta: `/api/v1/apps/{id}` 100 per minute on the smallest plan, and one token may use at most
 * half of it by default (Okta "Rate limits: management"): 50 per minute, as 5 + 0.75/s.
 */
export const OKTA_BUDGET: ProviderBudget = {
  rate: { burst: 5, perSecond: 0.75 },
  counts: "calls",
  api: (url) => url.pathname.startsWith("/api/v1/apps"),
  tenant: (config) => host(config),
  source: "Okta /api/v1/apps/{id}: 100/min, half per token (50/min)",
};

/**
 * Microsoft Graph, identity and access: writes 3,000 per 150 s per app and tenant (Graph
 * "Throttling limits"); reads are counted in resource units with far more room.
 */
export const GRAPH_BUDGET: ProviderBudget = {
  rate: { burst: 20, perSecond: 19 },
  counts: "writes",
  api: (url) => url.host === "graph.microsoft.com",
  source: "Microsoft Graph applications: 3,000 writes per 150 s per app and tenant",
};

/** GCS: one bucket metadata update per second per bucket (Cloud Storage "Quotas and limits"). */
export const GCS_BUDGET: ProviderBudget = {
  rate: { burst: 1, perSecond: 1 },
  counts: "writes",
  api: (url) => url.host === "storage.googleapis.com",
  tenant: (_config, url) => `bucket:${segmentAfter(url, "b")}`,
  source: "Cloud Storage: 1 bucket metadata update per second per bucket",
};

/**
 * Supabase Management API: 120 per minute per user or app, per project, per endpoint (Supabase
 * "API rate limits"): 10 + 1.8/s, counted per project.
 */
export const SUPABASE_BUDGET: ProviderBudget = {
  rate: { burst: 10, perSecond: 1.8 },
  counts: "calls",
  api: (url) => url.host === "api.supabase.com",
  tenant: (_config, url) => `project:${segmentAfter(url, "projects")}`,
  source: "Supabase Management API: 120/min per project and endpoint",
};

/** Clerk Backend API, development instances: 100 per 10 s per instance (Clerk "System limits"). */
export const CLERK_BUDGET: ProviderBudget = {
  rate: { burst: 10, perSecond: 9 },
  counts: "calls",
  api: (url) => url.host === "api.clerk.com",
  source: "Clerk Backend API, development instance: 100 per 10 s",
};
