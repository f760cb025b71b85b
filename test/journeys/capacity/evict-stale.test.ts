/**
 * Eviction (docs/design.md, "Evicting stale scopes"): with `evictStale`, a write that would take a
 * list past its cap first removes the entries of this repository's stalest stale scopes, only as
 * many as needed, under the same parent lease and fence; each evicted scope's receipt and the audit
 * trail record it. Live scopes', other repositories' and foreign entries are never removed.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { scopeLockKey } from "../../../shared/lock-keys";
import type { Plan } from "../../../shared/schemas/plan";
import type { RepositoryRef } from "../../../shared/schemas/repository";
import { lockTarget } from "../../../workers/locks/lock-target";
import { ScopeLease } from "../../../workers/locks/scope-lock";
import { R2ReceiptStore } from "../../../workers/receipts/r2-receipt-store";
import { scopeStateClient } from "../../../workers/scope-state/scope-state-client";
import { call, observedApp } from "../../helpers/app";
import { registerConnection } from "../../helpers/connections";
import { auth0Client, freshAuth0Domain, seedAuth0Tenant } from "../../helpers/emulators";
import { freshPr } from "../../helpers/engine";
import { APP_CLIENT, SECRET_NAME, TEST_M2M } from "../../helpers/plans";
import { DEFAULT_REPOSITORY, scopeAddress } from "../../helpers/repositories";
import { testEngine } from "../../helpers/test-engine";

const OTHER: RepositoryRef = { id: 918_273_646, name: "acme/other-evict" };
const DAY = 24 * 60 * 60 * 1000;
const EVICTING = JSON.stringify([{ name: "preview", staleAfterDays: 7, evictStale: true }]);
const { app } = observedApp();

function engine(requests?: string[]) {
  return testEngine({ bindings: { SPONSON_ENVIRONMENTS: EVICTING }, ...(requests ? { requests } : {}) });
}

async function apply(plan: Plan, scope: string, repository = DEFAULT_REPOSITORY, requests?: string[]) {
  return engine(requests).apply({
    repository,
    environment: "preview",
    scope,
    plan,
    wait: true,
    waitTimeoutMs: 30_000,
  });
}

async function ageRuns(scope: string, days: number, repository = DEFAULT_REPOSITORY) {
  const store = new R2ReceiptStore(env.RECEIPTS);
  const address = { ...scopeAddress("preview", scope), repository };
  const { receipt, etag } = await store.read(address);
  const at = Date.now() - days * DAY;
  await store.write(
    { ...receipt, runs: receipt.runs.map((r) => ({ ...r, startedAt: at, finishedAt: at })) },
    etag,
  );
}

async function close(scope: string, repository = DEFAULT_REPOSITORY) {
  await scopeStateClient(env, repository.id, scope).applyEvent({
    status: "closed",
    revision: Date.now(),
    deliveryId: crypto.randomUUID(),
  });
}

async function fullList(name: string, cap: number, foreign: string[]) {
  const domain = freshAuth0Domain(name);
  await seedAuth0Tenant(domain, { m2m: TEST_M2M, clients: { [APP_CLIENT]: { web_origins: foreign } } });
  const connection = registerConnection(`auth0-${name}-${domain}`, {
    type: "auth0",
    config: { domain, clientId: TEST_M2M.clientId },
    secrets: { clientSecret: SECRET_NAME },
    capacity: { "auth0.webOrigin": cap },
  });
  const plan: Plan = {
    version: 2,
    lines: [
      {
        id: "origin",
        op: "auth0.webOrigin",
        connection,
        params: { client: APP_CLIENT, url: "https://{scope}.preview.example.com" },
      },
    ],
  };
  return { domain, plan };
}

const origin = (scope: string) => `https://${scope}.preview.example.com`;

describe("evictStale makes room from stale scopes", () => {
  it("evicts only the stalest stale scope needed, records it in its receipt and the audit trail; its destroy is a no-op", async () => {
    const foreign = "https://kept.example.com";
    const { domain, plan } = await fullList("evict", 6, [foreign]);
    const [closed, idle, older, live, theirs, next] = [
      freshPr(),
      freshPr(),
      freshPr(),
      freshPr(),
      freshPr(),
      freshPr(),
    ];
    for (const scope of [closed, idle, older, live])
      expect((await apply(plan, scope)).run.status).toBe("succeeded");
    expect((await apply(plan, theirs, OTHER)).run.status).toBe("succeeded");
    await close(closed);
    await close(theirs, OTHER);
    await ageRuns(closed, 1);
    await ageRuns(idle, 10);
    await ageRuns(older, 20);
    await ageRuns(theirs, 30, OTHER);
    expect((await auth0Client(domain, APP_CLIENT))?.web_origins).toHaveLength(6);

    // One slot needed: the closed scope goes first (the stalest), nothing else.
    const result = await apply(plan, next);
    expect(result.run.status).toBe("succeeded");
    const after = (await auth0Client(domain, APP_CLIENT))?.web_origins ?? [];
    expect([...after].sort()).toEqual(
      [foreign, origin(idle), origin(older), origin(live), origin(theirs), origin(next)].sort(),
    );

    // A second one: the idle scope idle longest (20 days) before the one idle 10.
    const second = freshPr();
    expect((await apply(plan, second)).run.status).toBe("succeeded");
    const after2 = (await auth0Client(domain, APP_CLIENT))?.web_origins ?? [];
    expect([...after2].sort()).toEqual(
      [foreign, origin(idle), origin(live), origin(theirs), origin(next), origin(second)].sort(),
    );

    // The evicted scope's receipt: its entry gone from the ledger, the eviction recorded.
    const store = new R2ReceiptStore(env.RECEIPTS);
    const { receipt } = await store.read(scopeAddress("preview", closed));
    expect(receipt.ledger).toEqual([]);
    expect(receipt.evictions).toMatchObject([
      { runId: result.run.id, reason: "closed", keys: [origin(closed)], object: expect.any(String) },
    ]);
    const olderReceipt = (await store.read(scopeAddress("preview", older))).receipt;
    expect(olderReceipt.evictions).toMatchObject([{ reason: "idle", idleDays: 20, keys: [origin(older)] }]);

    // The audit trail lists both evictions.
    const res = await call(app, "GET", "/v1/audit");
    expect(res.status).toBe(200);
    const entries = ((await res.json()) as { entries: Array<Record<string, unknown>> }).entries;
    const evictions = entries.filter((e) => e.kind === "eviction" && e.runId === result.run.id);
    expect(evictions).toMatchObject([
      {
        kind: "eviction",
        actor: `run ${result.run.id}`,
        repository: DEFAULT_REPOSITORY,
        environment: "preview",
        scope: closed,
        reason: "closed",
        keys: [origin(closed)],
      },
    ]);

    // The evicted scope's destroy removes nothing it no longer owns: nothing lost, nothing leaked.
    const requests: string[] = [];
    const destroyed = await engine(requests).destroy({
      repository: DEFAULT_REPOSITORY,
      environment: "preview",
      scope: closed,
      wait: true,
      waitTimeoutMs: 30_000,
    });
    expect(destroyed.run.status).toBe("succeeded");
    expect(requests.filter((r) => r.startsWith("PATCH "))).toEqual([]);
    expect((await auth0Client(domain, APP_CLIENT))?.web_origins).toEqual(after2);
  });

  it("control: only live scopes (and foreign, other repositories' stale ones): LIST_FULL, nothing removed", async () => {
    const foreign = "https://kept2.example.com";
    const { domain, plan } = await fullList("evict-live", 3, [foreign]);
    const [live, theirs, next] = [freshPr(), freshPr(), freshPr()];
    expect((await apply(plan, live)).run.status).toBe("succeeded");
    expect((await apply(plan, theirs, OTHER)).run.status).toBe("succeeded");
    await close(theirs, OTHER);
    const before = (await auth0Client(domain, APP_CLIENT))?.web_origins;
    expect(before).toHaveLength(3);
    const requests: string[] = [];
    const result = await apply(plan, next, DEFAULT_REPOSITORY, requests);
    expect(result.run.error?.code).toBe("LIST_FULL");
    expect(requests.filter((r) => r.startsWith("PATCH "))).toEqual([]);
    expect((await auth0Client(domain, APP_CLIENT))?.web_origins).toEqual(before);
  });

  it("control: not enough stale entries for the write: LIST_FULL, nothing evicted", async () => {
    const { domain, plan } = await fullList("evict-short", 3, ["https://kept3.example.com"]);
    const [closed, live, next] = [freshPr(), freshPr(), freshPr()];
    for (const scope of [closed, live]) expect((await apply(plan, scope)).run.status).toBe("succeeded");
    await close(closed);
    const before = (await auth0Client(domain, APP_CLIENT))?.web_origins;
    expect(before).toHaveLength(3);
    // Two new entries need two slots; one stale entry makes one.
    const two: Plan = {
      ...plan,
      lines: [
        ...plan.lines,
        {
          ...(plan.lines[0] as Plan["lines"][number]),
          id: "origin2",
          params: { client: APP_CLIENT, url: "https://{scope}.two.example.com" },
        },
      ],
    };
    const requests: string[] = [];
    const result = await apply(two, next, DEFAULT_REPOSITORY, requests);
    expect(result.run.error?.code).toBe("LIST_FULL");
    expect(result.run.error?.detail).toMatchObject({ entries: 3, after: 5 });
    expect(requests.filter((r) => r.startsWith("PATCH "))).toEqual([]);
    expect((await auth0Client(domain, APP_CLIENT))?.web_origins).toEqual(before);
    const { receipt } = await new R2ReceiptStore(env.RECEIPTS).read(scopeAddress("preview", closed));
    expect(receipt.ledger.map((e) => e.key)).toEqual([origin(closed)]);
    expect(receipt.evictions).toBeUndefined();
  });

  it("a stale scope busy with a run of its own is skipped: the next stalest one is evicted", async () => {
    const { domain, plan } = await fullList("evict-busy", 2, []);
    const [closed, idle, next] = [freshPr(), freshPr(), freshPr()];
    for (const scope of [closed, idle]) expect((await apply(plan, scope)).run.status).toBe("succeeded");
    await close(closed);
    await ageRuns(idle, 10);
    // The closed scope's destroy holds its scope lock: never waited for under the parent lease.
    const busy = await ScopeLease.acquire(
      lockTarget(env, scopeLockKey(DEFAULT_REPOSITORY.id, "preview", closed)),
      "run-busy-destroy",
      { ttlMs: 60_000 },
    );
    try {
      expect((await apply(plan, next)).run.status).toBe("succeeded");
    } finally {
      await busy.release();
    }
    const after = (await auth0Client(domain, APP_CLIENT))?.web_origins ?? [];
    expect([...after].sort()).toEqual([origin(closed), origin(next)].sort());
    const store = new R2ReceiptStore(env.RECEIPTS);
    expect((await store.read(scopeAddress("preview", closed))).receipt.evictions).toBeUndefined();
    expect((await store.read(scopeAddress("preview", idle))).receipt.ledger).toEqual([]);
  });
});
