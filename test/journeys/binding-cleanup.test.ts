/**
 * A scope cleans up its own entries whatever its connection's binding says now (docs/design.md,
 * "Objects belong to repositories"): entries written through a connection while one repository was
 * configured are still removed by that repository's destroy, rollback and stale-line removal once a
 * second repository is configured and the connection names none — or names only the other one.
 * Removals touch only what the scope's own receipt records, so refusing them would strand entries
 * no other scope may remove. Writes through the same connection are refused meanwhile.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { Plan } from "../../shared/schemas/plan";
import type { RepositoryConfig } from "../../shared/schemas/repository";
import type { RunResult } from "../../shared/schemas/run";
import { R2ReceiptStore } from "../../workers/receipts/r2-receipt-store";
import { call, type TestApp, testApp } from "../helpers/app";
import { auth0Client, freshAuth0Domain, seedAuth0Tenant } from "../helpers/emulators";
import { SECRET_NAME, TEST_M2M } from "../helpers/plans";
import {
  githubIssuer,
  mintServiceToken,
  pullRequestClaims,
  TEST_AUDIENCE,
  type TestGithubIssuer,
} from "../helpers/tokens";

const base = 700_000_000 + Math.floor(Math.random() * 1_000_000) * 100;
const A: RepositoryConfig = { name: "acme/web", id: base + 1, defaultBranch: "main" };
const B: RepositoryConfig = { name: "acme/api", id: base + 2, defaultBranch: "main" };

const domain = freshAuth0Domain("unbind");
const APP = "web-app";

const auth0 = (extra: Record<string, unknown> = {}) => ({
  type: "auth0",
  environments: ["preview"],
  config: { domain, clientId: TEST_M2M.clientId },
  secrets: { clientSecret: SECRET_NAME },
  ...extra,
});

/** The service as configured at each step: `legacy` is the connection the scopes first wrote through. */
const bindings = (repositories: RepositoryConfig[], legacy: Record<string, unknown> = {}) =>
  ({
    ...env,
    SPONSON_REPOSITORIES: JSON.stringify(repositories),
    SPONSON_AUDIENCE: TEST_AUDIENCE,
    SPONSON_CONNECTIONS: JSON.stringify({
      "auth0-legacy": auth0(legacy),
      "auth0-web": auth0({ repositories: [A.name] }),
    }),
  }) as typeof env;
const ALONE = bindings([A]);

const plan = (connection: string, url: string, id = "callback"): Plan => ({
  version: 2,
  lines: [{ id, op: "auth0.callbackUrl", connection, params: { client: APP, url } }],
});

let issuer: TestGithubIssuer;
let app: TestApp;

beforeAll(async () => {
  issuer = await githubIssuer();
  app = testApp({ auth: { fetch: issuer.fetch } });
  const empty = { callbacks: [], allowed_logout_urls: [], web_origins: [], allowed_origins: [] };
  await seedAuth0Tenant(domain, { m2m: TEST_M2M, clients: { [APP]: empty } });
});

type TokenKind = "service token" | "GitHub pull-request token";

async function tokenOf(kind: TokenKind, pr: number): Promise<string> {
  return kind === "service token"
    ? mintServiceToken({ role: "ci", scopes: [`preview/pr-${pr}`], repository: A.name })
    : issuer.mint(pullRequestClaims(pr, A));
}

async function send(kind: TokenKind, pr: number, action: string, body: object, bound: typeof env) {
  const token = await tokenOf(kind, pr);
  return call(
    app,
    "POST",
    `/v1/scopes/preview/pr-${pr}/${action}`,
    body,
    { authorization: `Bearer ${token}` },
    bound,
  );
}

async function succeeded(res: Response): Promise<RunResult> {
  const text = await res.text();
  expect(res.status, text).toBe(200);
  const result = JSON.parse(text) as RunResult;
  expect(result.run.status).toBe("succeeded");
  return result;
}

const callbacks = async () => (await auth0Client(domain, APP))?.callbacks ?? [];
const receiptOf = (pr: number) =>
  new R2ReceiptStore(env.RECEIPTS).read({
    repository: { id: A.id, name: A.name },
    environment: "preview",
    scope: `pr-${pr}`,
  });

describe.each([
  { kind: "service token" as const, pr: 10 },
  { kind: "GitHub pull-request token" as const, pr: 20 },
])("entries written before the binding, with a $kind", ({ kind, pr }) => {
  it("destroy: writes through the now unbound connection are refused, the destroy removes the scope's entry", async () => {
    const url = `https://pr-${pr}.preview.example.com/cb`;
    await succeeded(await send(kind, pr, "apply", { plan: plan("auth0-legacy", url) }, ALONE));
    expect(await callbacks()).toContain(url);

    const two = bindings([A, B]);
    const refused = await send(kind, pr, "apply", { plan: plan("auth0-legacy", url) }, two);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ code: "CONNECTION_NOT_BOUND", reason: "unbound" });

    const destroyed = await succeeded(await send(kind, pr, "destroy", {}, two));
    expect(destroyed.lines).toEqual([expect.objectContaining({ key: url, result: "removed" })]);
    expect(await callbacks()).not.toContain(url);
    expect((await receiptOf(pr)).etag).toBeNull();
  });

  it("rollback: the connection since bound to the other repository alone; the scope's last run is undone", async () => {
    const scope = pr + 1;
    const url = `https://pr-${scope}.preview.example.com/cb`;
    await succeeded(await send(kind, scope, "apply", { plan: plan("auth0-legacy", url) }, ALONE));
    expect(await callbacks()).toContain(url);

    const rolled = await succeeded(
      await send(kind, scope, "rollback", {}, bindings([A, B], { repositories: [B.name] })),
    );
    expect(rolled.lines).toEqual([expect.objectContaining({ key: url, result: "removed" })]);
    expect(await callbacks()).not.toContain(url);
  });

  it("a line dropped from the plan: its entry is removed through the old connection while the new line is written through A's own", async () => {
    const scope = pr + 2;
    const old = `https://pr-${scope}.old.preview.example.com/cb`;
    const now = `https://pr-${scope}.new.preview.example.com/cb`;
    await succeeded(await send(kind, scope, "apply", { plan: plan("auth0-legacy", old, "old") }, ALONE));

    const moved = await succeeded(
      await send(kind, scope, "apply", { plan: plan("auth0-web", now, "new") }, bindings([A, B])),
    );
    expect(moved.lines).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: "old", result: "removed" }),
        expect.objectContaining({ id: "new", result: "created" }),
      ]),
    );
    expect(await callbacks()).toContain(now);
    expect(await callbacks()).not.toContain(old);
  });
});
