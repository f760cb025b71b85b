/**
 * Two configured repositories both have pull request #5: `pr-5` of each is its own scope. A close
 * in A destroys A's entries through the real queue and leaves B's entries, receipt and scope state
 * untouched; B's credentials are refused on A's scope before anything reaches a provider; the
 * ledger, the scope list and the dashboard say which repository a scope belongs to.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { RepositoryConfig } from "../../shared/schemas/repository";
import type { RunResult } from "../../shared/schemas/run";
import { R2ReceiptStore } from "../../workers/receipts/r2-receipt-store";
import { scopeStateClient } from "../../workers/scope-state/scope-state-client";
import { call, type TestApp, testApp } from "../helpers/app";
import { auth0Client } from "../helpers/emulators";
import { signGithubPayload } from "../helpers/github-signature";
import { APP_CLIENT, auth0Plan, BACKGROUND_DOMAIN, seedTenant } from "../helpers/plans";
import {
  bearer,
  githubIssuer,
  mintServiceToken,
  pullRequestClaims,
  TEST_AUDIENCE,
  type TestGithubIssuer,
} from "../helpers/tokens";
import { pullRequestPayload, signedRequest } from "../webhooks/github-delivery";

// Fresh ids per run: scope state objects and receipts outlive one test file.
const base = 500_000_000 + Math.floor(Math.random() * 1_000_000) * 100;
// With two repositories each signs its webhooks with its own secret (docs/webhooks.md, "Secrets").
const A: RepositoryConfig = {
  name: "octo-a/web",
  id: base + 1,
  defaultBranch: "main",
  webhookSecret: "WEBHOOK_SECRET_OCTO_A",
};
const B: RepositoryConfig = {
  name: "octo-b/web",
  id: base + 2,
  defaultBranch: "main",
  webhookSecret: "WEBHOOK_SECRET_OCTO_B",
};
const A_WEBHOOK_SECRET = "test-only-octo-a-web-webhook-secret";
const ref = (r: RepositoryConfig) => ({ id: r.id, name: r.name });

/**
 * The service configured for both repositories (the destroy queue is the real binding). Both write
 * to one application on purpose: its connection names them both (docs/design.md, "Objects belong
 * to repositories").
 */
const workerConnections = JSON.parse(String(env.SPONSON_CONNECTIONS)) as Record<string, object>;
const twoRepositories = {
  ...env,
  SPONSON_REPOSITORIES: JSON.stringify([A, B]),
  SPONSON_AUDIENCE: TEST_AUDIENCE,
  SPONSON_CONNECTIONS: JSON.stringify(
    Object.fromEntries(
      Object.entries(workerConnections).map(([name, c]) => [name, { ...c, repositories: [A.name, B.name] }]),
    ),
  ),
  WEBHOOK_SECRET_OCTO_A: A_WEBHOOK_SECRET,
  WEBHOOK_SECRET_OCTO_B: "test-only-octo-b-web-webhook-secret",
} as typeof env;

// A's destroy runs in the Worker's queue consumer, which knows only the Worker's own connections.
const domain = BACKGROUND_DOMAIN;
/** Each repository's pr-5 adds its own URL to the same Auth0 application. */
const planOf = (label: string) =>
  auth0Plan(domain, [
    { id: "callback", op: "auth0.callbackUrl", url: `https://{scope}.${label}.example.com/cb` },
  ]);
const A_URL = "https://pr-5.a.example.com/cb";
const B_URL = "https://pr-5.b.example.com/cb";

let issuer: TestGithubIssuer;
let app: TestApp;
/** Every provider request the app's engine sends. */
const outbound: string[] = [];

const store = () => new R2ReceiptStore(env.RECEIPTS);
const receiptOf = (repository: RepositoryConfig, environment = "preview") =>
  store().read({ repository: ref(repository), environment, scope: "pr-5" });

async function send(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  return call(app, method, path, body, headers, twoRepositories);
}

async function applyIn(repository: RepositoryConfig, label: string): Promise<RunResult> {
  const res = await send("POST", `/v1/scopes/preview/pr-5/apply?repository=${repository.name}`, {
    plan: planOf(label),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as RunResult;
}

/** Waits (reading state, no fixed sleep) until the queue consumer has removed A's receipt. */
async function untilDestroyed(repository: RepositoryConfig): Promise<void> {
  for (let i = 0; i < 3000; i++) {
    if ((await receiptOf(repository)).etag === null) return;
    await scheduler.wait(5);
  }
  throw new Error(`the queued destroy of ${repository.name} pr-5 never ran`);
}

beforeAll(async () => {
  issuer = await githubIssuer();
  app = testApp({
    auth: { fetch: issuer.fetch },
    engine: {
      wrapFetch: (inner) => async (input, init) => {
        outbound.push(new Request(input, init).url);
        return inner(input, init);
      },
    },
  });
  await seedTenant(domain);
});

describe("two repositories that both have pull request #5", () => {
  it("apply pr-5 in A and in B: two scopes, two receipts, two entries on the shared application", async () => {
    const a = await applyIn(A, "a");
    const b = await applyIn(B, "b");
    expect(a.run).toMatchObject({ status: "succeeded", repository: ref(A), scope: "pr-5" });
    expect(b.run).toMatchObject({ status: "succeeded", repository: ref(B), scope: "pr-5" });
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual([A_URL, B_URL]);
    expect((await receiptOf(A)).receipt.ledger.map((e) => e.key)).toEqual([A_URL]);
    expect((await receiptOf(B)).receipt.ledger.map((e) => e.key)).toEqual([B_URL]);
  });

  it("the ledger and the scope list say which repository each pr-5 belongs to", async () => {
    const ledger = await send("GET", `/v1/scopes/preview/pr-5/ledger?repository=${B.name}`);
    expect(await ledger.json()).toMatchObject({ repository: ref(B), ledger: [{ key: B_URL }] });

    const listed = await send("GET", "/v1/scopes?environment=preview");
    const { scopes } = (await listed.json()) as {
      scopes: Array<{ repository: { id: number }; scope: string }>;
    };
    const ours = scopes.filter((s) => s.repository.id === A.id || s.repository.id === B.id);
    expect(ours).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ repository: ref(A), scope: "pr-5", entries: 1 }),
        expect.objectContaining({ repository: ref(B), scope: "pr-5", entries: 1 }),
      ]),
    );
    const onlyB = await send("GET", `/v1/scopes?environment=preview&repository=${B.name}`);
    const listedB = ((await onlyB.json()) as { scopes: Array<{ repository: { id: number } }> }).scopes;
    expect(listedB.length).toBeGreaterThan(0);
    expect(listedB.every((s) => s.repository.id === B.id)).toBe(true);
  });

  it("without ?repository= a scope request is 400 VALIDATION naming the fix, and reaches no provider", async () => {
    const before = outbound.length;
    const res = await send("POST", "/v1/scopes/preview/pr-5/destroy", {});
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      code: "VALIDATION",
      detail: `name the repository with ?repository=owner/name (configured: ${A.name}, ${B.name})`,
    });
    expect(outbound.length).toBe(before);
  });

  it("B's GitHub OIDC token is refused 403 on A's pr-5, and nothing reaches a provider", async () => {
    const token = await issuer.mint(pullRequestClaims(5, B));
    const before = outbound.length;
    for (const [method, action, body] of [
      ["POST", "destroy", {}],
      ["POST", "apply", { plan: planOf("b") }],
      ["POST", "rollback", {}],
      ["GET", "ledger", undefined],
    ] as const) {
      const res = await send(method, `/v1/scopes/preview/pr-5/${action}?repository=${A.name}`, body, {
        authorization: `Bearer ${token}`,
      });
      expect(res.status, action).toBe(403);
      expect(await res.json()).toMatchObject({ code: "FORBIDDEN", rule: "github.repository" });
    }
    expect(outbound.length).toBe(before);
    expect((await receiptOf(A)).receipt.ledger.map((e) => e.key)).toEqual([A_URL]);
    // Control: the same token reads its own repository's pr-5 without naming it.
    const own = await send("GET", "/v1/scopes/preview/pr-5/ledger", undefined, {
      authorization: `Bearer ${token}`,
    });
    expect(own.status).toBe(200);
    expect(await own.json()).toMatchObject({ repository: ref(B), ledger: [{ key: B_URL }] });
  });

  it("a ci service token bound to B is refused 403 on A's pr-5, and nothing reaches a provider", async () => {
    const token = await mintServiceToken({ role: "ci", scopes: ["preview/pr-5"], repository: B.name });
    const before = outbound.length;
    const res = await send(
      "POST",
      `/v1/scopes/preview/pr-5/apply?repository=${A.name}`,
      { plan: planOf("b") },
      { authorization: `Bearer ${token}` },
    );
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ code: "FORBIDDEN", rule: "service.repository" });
    expect(outbound.length).toBe(before);
    // Control: without a query it acts on B's pr-5 (an unchanged re-apply).
    const own = await send(
      "POST",
      "/v1/scopes/preview/pr-5/apply",
      { plan: planOf("b") },
      {
        authorization: `Bearer ${token}`,
      },
    );
    expect(own.status).toBe(200);
    expect(((await own.json()) as RunResult).run).toMatchObject({ status: "succeeded", repository: ref(B) });
  });

  it("the dashboard names each scope's repository", async () => {
    const page = await send("GET", "/dashboard", undefined, await bearer("viewer"));
    const html = await page.text();
    expect(html).toContain(`data-repository="${A.name}"`);
    expect(html).toContain(`data-repository="${B.name}"`);
  });

  it("a close of A's pull request #5 destroys A's pr-5 through the queue; B's entries, receipt and state are untouched", async () => {
    const bBefore = await receiptOf(B);
    const payload = pullRequestPayload("closed", 5, new Date().toISOString()) as Record<string, unknown> & {
      repository: Record<string, unknown> & { owner: Record<string, unknown> };
    };
    payload.repository.id = A.id;
    payload.repository.full_name = A.name;
    payload.repository.name = "web";
    payload.repository.owner.login = "octo-a";
    const body = JSON.stringify(payload);
    const signature = await signGithubPayload(A_WEBHOOK_SECRET, body);
    const response = await app.fetch(await signedRequest({ body, signature }), twoRepositories);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      repository: ref(A),
      scope: "pr-5",
      applied: true,
      status: "closed",
      destroysEnqueued: 2,
    });

    await untilDestroyed(A);
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual([B_URL]);
    expect(await scopeStateClient(env, A.id, "pr-5").read()).toMatchObject({ status: "closed" });
    expect(await scopeStateClient(env, B.id, "pr-5").read()).toMatchObject({ status: "open", revision: 0 });
    const bAfter = await receiptOf(B);
    expect(bAfter.etag).toBe(bBefore.etag);
    expect(bAfter.receipt).toEqual(bBefore.receipt);

    // B's pr-5 is still open: B may apply to it again (A's close did not close it).
    const again = await applyIn(B, "b");
    expect(again.run.status).toBe("succeeded");
  });
});
