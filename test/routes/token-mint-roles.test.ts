/**
 * POST /v1/tokens mints every role (docs/security.md, "Service tokens"): an admin token needs a
 * reason and is audited as a `token-mint` entry; viewer tokens bind to a repository like ci ones;
 * every `ttlSeconds` is bounded by SERVICE_TOKEN_MAX_LIFETIME_SECONDS, refused at the mint (never a
 * token the service would then refuse).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { TOKEN_AUDIT_PREFIX } from "../../workers/routes/tokens";
import { call, testApp } from "../helpers/app";
import { testEnv } from "../helpers/connections";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";

const app = testApp();
const TWO_REPOSITORIES = JSON.stringify([DEFAULT_REPOSITORY, { name: "acme/api", id: 5151 }]);

interface Minted {
  token: string;
  id: string;
  role: string;
  expiresAt: number;
  code?: string;
}

async function mint(body: object, extra: Record<string, string> = {}) {
  const bindings = testEnv({ ...env, ...extra } as typeof env);
  const res = await call(app, "POST", "/v1/tokens", body, {}, bindings);
  return { res, body: (await res.json()) as Minted };
}

async function mintRecords(): Promise<string[]> {
  return (await env.RECEIPTS.list({ prefix: TOKEN_AUDIT_PREFIX })).objects.map((o) => o.key);
}

describe("viewer tokens bound to a repository (finding 6)", () => {
  it("a viewer minted for one repository reads its ledger and is refused another's", async () => {
    const extra = { SPONSON_REPOSITORIES: TWO_REPOSITORIES };
    const { res, body } = await mint(
      { role: "viewer", subject: "viewer:web-team", repository: DEFAULT_REPOSITORY.name, ttlSeconds: 600 },
      extra,
    );
    expect(res.status).toBe(201);
    const auth = { authorization: `Bearer ${body.token}` };
    const bindings = testEnv({ ...env, ...extra } as typeof env);
    const own = await call(
      app,
      "GET",
      `/v1/scopes/preview/pr-1/ledger?repository=${DEFAULT_REPOSITORY.name}`,
      undefined,
      auth,
      bindings,
    );
    expect(own.status).not.toBe(403);
    const other = await call(
      app,
      "GET",
      "/v1/scopes/preview/pr-1/ledger?repository=acme/api",
      undefined,
      auth,
      bindings,
    );
    expect(other.status).toBe(403);
    expect(((await other.json()) as { rule: string }).rule).toBe("service.repository");
  });
});

describe("ttlSeconds bounded by SERVICE_TOKEN_MAX_LIFETIME_SECONDS (finding 6)", () => {
  it("a ci token longer than the configured ci maximum is refused 400 at the mint; nothing audited", async () => {
    const before = await mintRecords();
    const { res, body } = await mint(
      { role: "ci", subject: "ci:acme/web", scopes: ["preview/*"], ttlSeconds: 3600 },
      { SERVICE_TOKEN_MAX_LIFETIME_SECONDS: '{"ci":600}' },
    );
    expect(res.status).toBe(400);
    expect(body.code).toBe("VALIDATION");
    expect(body.token).toBeUndefined();
    expect(await mintRecords()).toEqual(before);
  });

  it("control: within the configured maximum it is minted", async () => {
    const { res } = await mint(
      { role: "ci", subject: "ci:acme/web", scopes: ["preview/*"], ttlSeconds: 600 },
      { SERVICE_TOKEN_MAX_LIFETIME_SECONDS: '{"ci":600}' },
    );
    expect(res.status).toBe(201);
  });
});

describe("admin tokens minted by an admin (issue 30, item 2)", () => {
  it("role admin with a reason is minted, acts as admin, and is listed in the audit as token-mint", async () => {
    const { res, body } = await mint({
      role: "admin",
      subject: "admin:on-call",
      reason: "on-call rotation week 49",
      ttlSeconds: 3600,
    });
    expect(res.status).toBe(201);
    expect(body.role).toBe("admin");
    const audit = await call(app, "GET", "/v1/audit", undefined, { authorization: `Bearer ${body.token}` });
    expect(audit.status).toBe(200);
    const text = await audit.text();
    expect(text).not.toContain(body.token);
    const entries = (JSON.parse(text) as { entries: Array<Record<string, unknown>> }).entries;
    expect(entries).toContainEqual(
      expect.objectContaining({
        kind: "token-mint",
        jti: body.id,
        subject: "admin:on-call",
        role: "admin",
        reason: "on-call rotation week 49",
        ttlSeconds: 3600,
        actor: "test-admin",
      }),
    );
  });

  it("role admin without a reason is refused 400; nothing audited", async () => {
    const before = await mintRecords();
    const { res, body } = await mint({ role: "admin", subject: "admin:x", ttlSeconds: 600 });
    expect(res.status).toBe(400);
    expect(body.code).toBe("VALIDATION");
    expect(await mintRecords()).toEqual(before);
  });

  it("an admin token longer than the admin maximum (one day by default) is refused 400", async () => {
    const { res } = await mint({ role: "admin", subject: "admin:x", reason: "r", ttlSeconds: 2 * 86_400 });
    expect(res.status).toBe(400);
  });

  it("an admin token cannot be bound to a repository or scopes: 400", async () => {
    const { res } = await mint({
      role: "admin",
      subject: "admin:x",
      reason: "r",
      repository: DEFAULT_REPOSITORY.name,
      ttlSeconds: 600,
    });
    expect(res.status).toBe(400);
  });
});
