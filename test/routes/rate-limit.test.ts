/**
 * Fair use (docs/security.md, "Fair use"): runs and previews are limited per caller with
 * Cloudflare's Rate Limiting binding, refused 429 RATE_LIMITED with Retry-After, on by default in the
 * production entry and off in the dev entry unless SPONSON_RATE_LIMIT asks for it. The binding is
 * the runtime's own (wrangler.dev.toml); the tests lower its limit to 2 for their keys.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { emulatorTransport } from "../../dev/entry/dev-env";
import { createApp } from "../../workers/app";
import type { RateLimiter } from "../../workers/http/rate-limit";
import type { ProviderTransport } from "../../workers/wiring/wire";
import { call, type TestApp } from "../helpers/app";
import { testEnv } from "../helpers/connections";
import { freshAuth0Domain } from "../helpers/emulators";
import { freshPr, receipt } from "../helpers/engine";
import { previewPlan, seedTenant } from "../helpers/plans";
import { mintServiceToken, newServiceSigningKey } from "../helpers/tokens";

const hosts: string[] = [];
const recording =
  (inner: ProviderTransport): ProviderTransport =>
  (bindings) => {
    const f = inner(bindings);
    return (input, init) => {
      hosts.push(new URL(new Request(input, init).url).host);
      return f(input, init);
    };
  };
/** The dev entry's transport (emulated) and production's kind (not), both answered by the emulators. */
const devApp = createApp({
  transport: Object.assign(recording(emulatorTransport), { emulated: true as const }),
});
const productionLikeApp = createApp({ transport: recording(emulatorTransport) });

/** The real binding, with this test's limit of 2 per key and period (the local runtime takes both). */
const real = env.RUN_RATE_LIMITER as RateLimiter & {
  limit(o: { key: string; limit?: number; period?: number }): Promise<{ success: boolean }>;
};
const limiter: RateLimiter = { limit: ({ key }) => real.limit({ key, limit: 2, period: 60 }) };

async function run(
  app: TestApp,
  token: string,
  action: "preview" | "apply",
  extra: Record<string, unknown> = {},
) {
  const domain = freshAuth0Domain("rl");
  await seedTenant(domain);
  const scope = freshPr();
  // Shared on purpose: some tests configure a second repository (docs/design.md, "Objects belong to repositories").
  const plan = previewPlan(domain, "*");
  hosts.length = 0;
  const bindings = testEnv({ ...env, RUN_RATE_LIMITER: limiter, ...extra } as typeof env);
  const res = await call(
    app,
    "POST",
    `/v1/scopes/preview/${scope}/${action}`,
    { plan },
    { authorization: `Bearer ${token}` },
    bindings,
  );
  return { res, scope };
}

/** The production entry enforces a policy: this one admits the test plans' writes. */
const POLICY = JSON.stringify({
  version: 1,
  environments: {
    preview: {
      parents: ["auth0:*:client:*"],
      items: [
        "https://*.preview.example.com/*",
        "https://*.preview.example.com/",
        "https://*.preview.example.com",
      ],
    },
  },
});

const ciToken = (sub: string) => mintServiceToken({ role: "ci", scopes: ["preview/*"], sub });

describe("runs and previews per caller", () => {
  it("with SPONSON_RATE_LIMIT=on, a caller's third preview in a minute is refused 429 with Retry-After; nothing is read", async () => {
    const token = await ciToken(`rl-${crypto.randomUUID()}`);
    for (let i = 0; i < 2; i++) {
      expect((await run(devApp, token, "preview", { SPONSON_RATE_LIMIT: "on" })).res.status).toBe(200);
    }
    const { res } = await run(devApp, token, "preview", { SPONSON_RATE_LIMIT: "on" });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("60");
    const body = (await res.json()) as { code: string; rule: string; retriable: boolean };
    expect(body).toMatchObject({ code: "RATE_LIMITED", rule: "rate-limit.runs", retriable: true });
    expect(hosts).toEqual([]);
  });

  it("a refused apply writes nothing: no receipt, no provider request", async () => {
    const token = await ciToken(`rl-${crypto.randomUUID()}`);
    await run(devApp, token, "preview", { SPONSON_RATE_LIMIT: "on" });
    await run(devApp, token, "preview", { SPONSON_RATE_LIMIT: "on" });
    const { res, scope } = await run(devApp, token, "apply", { SPONSON_RATE_LIMIT: "on" });
    expect(res.status).toBe(429);
    expect(hosts).toEqual([]);
    const after = await receipt("preview", scope);
    expect(after.runs).toEqual([]);
    expect(after.ledger).toEqual([]);
  });

  it("control: another caller still runs", async () => {
    const spent = await ciToken(`rl-${crypto.randomUUID()}`);
    for (let i = 0; i < 3; i++) await run(devApp, spent, "preview", { SPONSON_RATE_LIMIT: "on" });
    const other = await ciToken(`rl-${crypto.randomUUID()}`);
    expect((await run(devApp, other, "preview", { SPONSON_RATE_LIMIT: "on" })).res.status).toBe(200);
  });

  it("the dev entry does not limit unless asked: three previews all run", async () => {
    const token = await ciToken(`rl-${crypto.randomUUID()}`);
    for (let i = 0; i < 3; i++) expect((await run(devApp, token, "preview")).res.status).toBe(200);
  });

  it("the production entry limits by default", async () => {
    const token = await ciToken(`rl-${crypto.randomUUID()}`);
    for (let i = 0; i < 2; i++) {
      expect((await run(productionLikeApp, token, "preview", { SPONSON_POLICY: POLICY })).res.status).toBe(
        200,
      );
    }
    expect((await run(productionLikeApp, token, "preview", { SPONSON_POLICY: POLICY })).res.status).toBe(429);
  });

  it("SPONSON_RATE_LIMIT=off turns it off in the production entry", async () => {
    const token = await ciToken(`rl-${crypto.randomUUID()}`);
    for (let i = 0; i < 3; i++) {
      const { res } = await run(productionLikeApp, token, "preview", {
        SPONSON_RATE_LIMIT: "off",
        SPONSON_POLICY: POLICY,
      });
      expect(res.status).toBe(200);
    }
  });
});

describe('whose budget a run spends: the repository and the subject (docs/security.md, "Fair use")', () => {
  const HELLO = { name: "Codertocat/Hello-World", id: 186853002 };
  const OTHER = { name: "acme/rate-other", id: 7_700_001 };
  const TWO_REPOSITORIES = { SPONSON_RATE_LIMIT: "on", SPONSON_REPOSITORIES: JSON.stringify([HELLO, OTHER]) };

  it("two repositories' tokens sharing a subject have a budget each: one spent, the other still runs", async () => {
    const sub = `rl-shared-${crypto.randomUUID()}`;
    const first = await mintServiceToken({ role: "ci", scopes: ["preview/*"], sub, repository: HELLO.name });
    const second = await mintServiceToken({ role: "ci", scopes: ["preview/*"], sub, repository: OTHER.name });
    for (let i = 0; i < 2; i++)
      expect((await run(devApp, first, "preview", TWO_REPOSITORIES)).res.status).toBe(200);
    expect((await run(devApp, first, "preview", TWO_REPOSITORIES)).res.status).toBe(429);
    const { res } = await run(devApp, second, "preview", TWO_REPOSITORIES);
    expect(res.status, await res.clone().text()).toBe(200);
  });

  it("a ci token minted with an admin's subject does not spend the admin's budget", async () => {
    const sub = `rl-admin-${crypto.randomUUID()}`;
    const ci = await mintServiceToken({ role: "ci", scopes: ["preview/*"], sub });
    const admin = await mintServiceToken({ role: "admin", sub });
    for (let i = 0; i < 3; i++) await run(devApp, ci, "preview", { SPONSON_RATE_LIMIT: "on" });
    expect((await run(devApp, admin, "preview", { SPONSON_RATE_LIMIT: "on" })).res.status).toBe(200);
  });

  it("an unbound token's budget is its subject's under its signing key: the same subject under another key runs", async () => {
    const sub = `rl-key-${crypto.randomUUID()}`;
    const otherKey = await newServiceSigningKey();
    const { d: _private, ...otherPublic } = JSON.parse(otherKey) as Record<string, string>;
    const keys = { SPONSON_RATE_LIMIT: "on", SERVICE_PUBLIC_KEY: JSON.stringify(otherPublic) };
    const current = await mintServiceToken({ role: "admin", sub });
    const next = await mintServiceToken({ role: "admin", sub, signingKey: otherKey });
    for (let i = 0; i < 2; i++) expect((await run(devApp, current, "preview", keys)).res.status).toBe(200);
    expect((await run(devApp, current, "preview", keys)).res.status).toBe(429);
    const { res } = await run(devApp, next, "preview", keys);
    expect(res.status, await res.clone().text()).toBe(200);
  });

  it("control: the same repository, subject and key share one budget", async () => {
    const sub = `rl-same-${crypto.randomUUID()}`;
    const a = await mintServiceToken({ role: "ci", scopes: ["preview/*"], sub, repository: OTHER.name });
    const b = await mintServiceToken({ role: "ci", scopes: ["preview/*"], sub, repository: OTHER.name });
    for (let i = 0; i < 2; i++) await run(devApp, a, "preview", TWO_REPOSITORIES);
    expect((await run(devApp, b, "preview", TWO_REPOSITORIES)).res.status).toBe(429);
  });
});
