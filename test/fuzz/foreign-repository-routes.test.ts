/**
 * Every route, asked by a foreign repository's callers about another repository's things
 * (docs/security.md, "Repository isolation" and "What a repository sees of another"). Hello-World
 * applies a scope; acme/other's bound viewer, bound ci token and pull-request job (GitHub OIDC)
 * then ask every route of the app's own table for Hello-World's scope, receipt, run, scope lock,
 * provider object (by key, identity and hash), and the admin routes. Each route that names one of
 * them answers 403 or 404; the few that name none (public routes, and collections a bound caller
 * sees filtered to its own repository) answer without it. No answer carries anything of
 * Hello-World's the request did not already say: its run id, its entry, its object's identity or
 * key, its actor. A route added to the app without a line here fails the first test.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { parentLockKey, scopeLockKey } from "../../shared/lock-keys";
import type { RunResult } from "../../shared/schemas/run";
import { SecretRegistry } from "../../shared/secrets";
import { call } from "../helpers/app";
import { freshAuth0Domain } from "../helpers/emulators";
import { appIdentity, freshPr } from "../helpers/engine";
import { auth0Plan, seedTenant } from "../helpers/plans";
import {
  CALLER_KINDS,
  type CallerKind,
  FOREIGN,
  OWNING,
  type TwoRepositories,
  twoRepositories,
  twoRepositoryEnv,
} from "../helpers/two-repositories";

/** What a route is to a foreign caller: it names Hello-World's things (refused), or it names none. */
type Kind = "refused" | "own-view" | "public";

interface Ask {
  method: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
}

let t: TwoRepositories;
const scope = freshPr();
const domain = freshAuth0Domain("xrepo");
const identity = appIdentity(domain);
const entry = `https://${scope}.preview.example.com/callback`;
const actor = `actor-${crypto.randomUUID().slice(0, 8)}`;
let runId: string;
let parentKey: string;
const scopeKey = scopeLockKey(OWNING.id, "preview", scope);
const repo = `repository=${encodeURIComponent(OWNING.name)}`;
const enc = encodeURIComponent;
const plan = () => auth0Plan(domain, [{ id: "callback", op: "auth0.callbackUrl", url: entry }], "*");

/**
 * Each route of the app's table, with what a foreign caller asks of it about Hello-World. A route
 * that takes a path parameter is asked once per thing of Hello-World's that parameter can name.
 */
function asks(): Record<string, { kind: Kind; asks: () => Ask[] }> {
  const hash = parentKey.slice("_locks/".length);
  const runs = ["apply", "preview", "destroy", "rollback"] as const;
  const lockKeys = [scopeKey, parentKey, identity];
  const scopeRoute = (action: string) => ({
    kind: "refused" as const,
    asks: () => [
      {
        method: "POST",
        path: `/v1/scopes/preview/${scope}/${action}?${repo}`,
        body: { plan: plan(), runId },
      },
    ],
  });
  return {
    "GET /healthz": { kind: "public", asks: () => [{ method: "GET", path: "/healthz" }] },
    "GET /.well-known/openid-configuration": {
      kind: "public",
      asks: () => [{ method: "GET", path: "/.well-known/openid-configuration" }],
    },
    "GET /.well-known/jwks.json": {
      kind: "public",
      asks: () => [{ method: "GET", path: "/.well-known/jwks.json" }],
    },
    "GET /v1/openapi.json": { kind: "public", asks: () => [{ method: "GET", path: "/v1/openapi.json" }] },
    "GET /v1/locks": { kind: "own-view", asks: () => [{ method: "GET", path: `/v1/locks?${repo}` }] },
    "GET /v1/locks/:key": {
      kind: "refused",
      asks: () => lockKeys.map((k) => ({ method: "GET", path: `/v1/locks/${enc(k)}` })),
    },
    "DELETE /v1/locks/:key": {
      kind: "refused",
      asks: () =>
        lockKeys.map((k) => ({ method: "DELETE", path: `/v1/locks/${enc(k)}`, body: { reason: "x" } })),
    },
    "POST /v1/locks/:key/hold": {
      kind: "refused",
      asks: () =>
        lockKeys.map((k) => ({
          method: "POST",
          path: `/v1/locks/${enc(k)}/hold`,
          body: { reason: "x", ttlSeconds: 3600 },
        })),
    },
    "DELETE /v1/locks/:key/hold": {
      kind: "refused",
      asks: () => lockKeys.map((k) => ({ method: "DELETE", path: `/v1/locks/${enc(k)}/hold` })),
    },
    ...Object.fromEntries(runs.map((a) => [`POST /v1/scopes/:environment/:scope/${a}`, scopeRoute(a)])),
    "GET /v1/scopes/:environment/:scope/ledger": {
      kind: "refused",
      asks: () => [{ method: "GET", path: `/v1/scopes/preview/${scope}/ledger?${repo}` }],
    },
    "GET /v1/scopes": { kind: "refused", asks: () => [{ method: "GET", path: `/v1/scopes?${repo}` }] },
    "GET /v1/orphans": {
      kind: "refused",
      asks: () => [{ method: "GET", path: `/v1/orphans?identity=${enc(identity)}` }],
    },
    "POST /v1/orphans/remove": {
      kind: "refused",
      asks: () => [
        {
          method: "POST",
          path: "/v1/orphans/remove",
          body: { identity, op: "auth0.callbackUrl", key: entry, reason: "x" },
        },
      ],
    },
    "POST /v1/adopt": {
      kind: "refused",
      asks: () => [{ method: "POST", path: "/v1/adopt", body: { repository: OWNING.name, plan: plan() } }],
    },
    "GET /v1/config/status": { kind: "refused", asks: () => [{ method: "GET", path: "/v1/config/status" }] },
    "POST /v1/tokens": {
      kind: "refused",
      asks: () => [
        {
          method: "POST",
          path: "/v1/tokens",
          body: { role: "ci", repository: OWNING.name, scopes: ["*/*"] },
        },
      ],
    },
    "GET /v1/tokens/revoked": {
      kind: "refused",
      asks: () => [{ method: "GET", path: "/v1/tokens/revoked" }],
    },
    "POST /v1/tokens/revoked": {
      kind: "refused",
      asks: () => [{ method: "POST", path: "/v1/tokens/revoked", body: { jti: "x", reason: "x" } }],
    },
    "POST /v1/admin/upgrade": {
      kind: "refused",
      asks: () => [{ method: "POST", path: "/v1/admin/upgrade", body: {} }],
    },
    "GET /v1/audit": { kind: "own-view", asks: () => [{ method: "GET", path: `/v1/audit?${repo}` }] },
    "POST /v1/webhooks/github": {
      kind: "public",
      asks: () => [{ method: "POST", path: "/v1/webhooks/github", body: { action: "closed" } }],
    },
    // Signed by the platform, not by a bearer: an unsigned ask names no connection it may act for.
    "POST /v1/webhooks/vercel": {
      kind: "public",
      asks: () => [{ method: "POST", path: "/v1/webhooks/vercel", body: { type: "deployment.created" } }],
    },
    "POST /v1/webhooks/netlify": {
      kind: "public",
      asks: () => [{ method: "POST", path: "/v1/webhooks/netlify", body: { context: "deploy-preview" } }],
    },
    "GET /dashboard": {
      kind: "own-view",
      asks: () => [{ method: "GET", path: `/dashboard?${repo}&scope=${scope}` }],
    },
    "GET /dashboard/live": {
      kind: "own-view",
      asks: () => [{ method: "GET", path: `/dashboard/live?${repo}&scope=${scope}` }],
    },
    "GET /dashboard/feed": {
      kind: "own-view",
      asks: () => [{ method: "GET", path: "/dashboard/feed", headers: { upgrade: "websocket" } }],
    },
    "GET /dashboard/sign-in": { kind: "public", asks: () => [{ method: "GET", path: "/dashboard/sign-in" }] },
    "POST /dashboard/sign-in": {
      kind: "public",
      asks: () => [{ method: "POST", path: "/dashboard/sign-in", body: "token=x" }],
    },
    "POST /dashboard/sign-out": {
      kind: "public",
      asks: () => [{ method: "POST", path: "/dashboard/sign-out" }],
    },
    ...Object.fromEntries(
      ["release", "hold", "unhold"].map((form) => [
        `POST /dashboard/locks/${form}`,
        {
          kind: "refused" as const,
          asks: () =>
            lockKeys.map((k) => ({
              method: "POST",
              path: `/dashboard/locks/${form}`,
              body: new URLSearchParams({ key: k, reason: "x", ttlSeconds: "3600" }).toString(),
              headers: { "content-type": "application/x-www-form-urlencoded" },
            })),
        },
      ]),
    ),
    "GET /dashboard/runs/:id": {
      kind: "refused",
      asks: () => [
        { method: "GET", path: `/dashboard/runs/${runId}?environment=preview&scope=${scope}&${repo}` },
      ],
    },
    "GET /dashboard/objects/:hash": {
      kind: "refused",
      asks: () => [{ method: "GET", path: `/dashboard/objects/${hash}` }],
    },
  };
}

/** The dev entry's own routes (emulator control): never in the production app. */
const DEV_ONLY = new Set([
  "GET /v1/emulators/notifications",
  "GET /v1/emulators/:host",
  "POST /v1/emulators/:host/seed",
]);

beforeAll(async () => {
  t = await twoRepositories();
  await seedTenant(domain);
  parentKey = await parentLockKey(identity, new SecretRegistry());
  const res = await call(
    t.app,
    "POST",
    `/v1/scopes/preview/${scope}/apply?${repo}`,
    { plan: plan(), provenance: { actor } },
    {},
    twoRepositoryEnv(),
  );
  if (res.status !== 200) throw new Error(`apply: ${res.status} ${await res.text()}`);
  runId = ((await res.json()) as RunResult).run.id;
});

async function send(token: string, ask: Ask): Promise<Response> {
  const ctx = createExecutionContext();
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, ...ask.headers };
  let body: string | undefined;
  if (ask.body !== undefined) {
    body = typeof ask.body === "string" ? ask.body : JSON.stringify(ask.body);
    headers["content-type"] ??= "application/json";
  }
  const res = await t.app.request(
    `http://sponson.test${ask.path}`,
    { method: ask.method, headers, ...(body === undefined ? {} : { body }) },
    twoRepositoryEnv(),
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}

/** Hello-World's things a foreign caller must not learn, less what its own request said. */
function unsaid(ask: Ask): string[] {
  const said = `${decodeURIComponent(ask.path)} ${typeof ask.body === "string" ? decodeURIComponent(ask.body) : JSON.stringify(ask.body ?? "")}`;
  // An object's key is a hash of its identity: whoever names the identity has named the key.
  const derived = said.includes(identity) ? [parentKey] : [];
  return [runId, entry, identity, domain, parentKey, parentKey.slice("_locks/".length), actor].filter(
    (secret) => !said.includes(secret) && !derived.some((d) => d.includes(secret)),
  );
}

const tally = { requests: 0, refused: 0, otherAnswers: 0 };

describe("every route, asked by acme/other about Hello-World", () => {
  it("the table here names every route the app has", () => {
    const routes = new Set(
      t.app.routes
        .filter((r) => r.method !== "ALL" && !r.path.includes("*"))
        .map((r) => `${r.method} ${r.path}`),
    );
    expect([...routes].filter((r) => !DEV_ONLY.has(r)).sort()).toEqual(Object.keys(asks()).sort());
  });

  it.each(CALLER_KINDS)(
    "a %s caller: each route naming Hello-World's things is 403 or 404, and no answer says what it was not told",
    async (kind: CallerKind) => {
      const token = await t.token(FOREIGN, kind, 701);
      const seen: string[] = [];
      for (const [route, { kind: what, asks: of }] of Object.entries(asks())) {
        for (const ask of of()) {
          const res = await send(token, ask);
          const text = await res.text();
          tally.requests += 1;
          const where = `${kind} ${ask.method} ${ask.path} → ${res.status}`;
          seen.push(where);
          if (what === "refused") {
            expect([403, 404], `${where}: ${text.slice(0, 300)}`).toContain(res.status);
            tally.refused += 1;
          } else {
            expect(res.status, where).toBeLessThan(500);
            tally.otherAnswers += 1;
          }
          for (const secret of unsaid(ask))
            expect(text, `${where} (${route}) told ${secret}`).not.toContain(secret);
        }
      }
      expect(seen.length).toBeGreaterThan(40);
    },
  );

  it("the count: every request made, and none of those naming Hello-World's things succeeded", () => {
    console.log(`foreign-repository routes: ${JSON.stringify(tally)}`);
    expect(tally.requests).toBe(tally.refused + tally.otherAnswers);
    expect(tally.refused).toBeGreaterThan(0);
  });
});
