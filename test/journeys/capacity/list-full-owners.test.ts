/**
 * What a LIST_FULL answer says about who holds the list (docs/design.md, "Lists at their cap"):
 * each owning scope of the caller's repository with its pull request, last run and staleness
 * (closed pull request; last run older than the environment's `staleAfterDays`), other
 * repositories' scopes counted but never named, the foreign entries, and the destroy command per
 * stale scope. Read under the lease; nothing is written.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Plan } from "../../../shared/schemas/plan";
import type { RepositoryRef } from "../../../shared/schemas/repository";
import { R2ReceiptStore } from "../../../workers/receipts/r2-receipt-store";
import { scopeStateClient } from "../../../workers/scope-state/scope-state-client";
import { registerConnection } from "../../helpers/connections";
import { auth0Client, freshAuth0Domain, seedAuth0Tenant } from "../../helpers/emulators";
import { freshPr } from "../../helpers/engine";
import { APP_CLIENT, SECRET_NAME, TEST_M2M } from "../../helpers/plans";
import { DEFAULT_REPOSITORY, scopeAddress } from "../../helpers/repositories";
import { testEngine } from "../../helpers/test-engine";

const OTHER: RepositoryRef = { id: 918_273_645, name: "acme/other" };
const DAY = 24 * 60 * 60 * 1000;
const ENVIRONMENTS = JSON.stringify([{ name: "preview", staleAfterDays: 7 }]);

async function apply(plan: Plan, scope: string, repository = DEFAULT_REPOSITORY, requests?: string[]) {
  return testEngine({
    bindings: { SPONSON_ENVIRONMENTS: ENVIRONMENTS },
    ...(requests ? { requests } : {}),
  }).apply({
    repository,
    environment: "preview",
    scope,
    plan,
    wait: true,
    waitTimeoutMs: 30_000,
  });
}

/** The scope's runs as if they finished `days` ago (its last run is what idleness is measured by). */
async function ageRuns(scope: string, days: number) {
  const store = new R2ReceiptStore(env.RECEIPTS);
  const { receipt, etag } = await store.read(scopeAddress("preview", scope));
  const at = Date.now() - days * DAY;
  await store.write(
    { ...receipt, runs: receipt.runs.map((r) => ({ ...r, startedAt: at, finishedAt: at })) },
    etag,
  );
}

describe("LIST_FULL names who holds the list", () => {
  it("owners per scope, stale ones with their destroy command, other repositories counted, foreign counted", async () => {
    const domain = freshAuth0Domain("owners");
    await seedAuth0Tenant(domain, {
      m2m: TEST_M2M,
      clients: { [APP_CLIENT]: { web_origins: ["https://kept.example.com"] } },
    });
    const connection = registerConnection(`auth0-owners-${domain}`, {
      type: "auth0",
      config: { domain, clientId: TEST_M2M.clientId },
      secrets: { clientSecret: SECRET_NAME },
      capacity: { "auth0.webOrigin": 5 },
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
    const [closed, idle, live, theirs, next] = [freshPr(), freshPr(), freshPr(), freshPr(), freshPr()];
    for (const scope of [closed, idle, live]) expect((await apply(plan, scope)).run.status).toBe("succeeded");
    expect((await apply(plan, theirs, OTHER)).run.status).toBe("succeeded");
    await scopeStateClient(env, DEFAULT_REPOSITORY.id, closed).applyEvent({
      status: "closed",
      revision: Date.now(),
      deliveryId: crypto.randomUUID(),
    });
    await ageRuns(idle, 10);
    const before = (await auth0Client(domain, APP_CLIENT))?.web_origins;
    expect(before).toHaveLength(5);

    const requests: string[] = [];
    const result = await apply(plan, next, DEFAULT_REPOSITORY, requests);
    expect(result.run.error?.code).toBe("LIST_FULL");
    const pr = (scope: string) => Number(scope.slice(3));
    expect(result.run.error?.detail).toMatchObject({
      cap: 5,
      entries: 5,
      after: 6,
      scopes: [
        { scope: closed, environment: "preview", pullRequest: pr(closed), entries: 1, stale: "closed" },
        { scope: idle, environment: "preview", pullRequest: pr(idle), entries: 1, stale: "idle" },
        { scope: live, environment: "preview", pullRequest: pr(live), entries: 1, stale: null },
      ],
      // Counted from the lock's ownership; their staleness is not read (null).
      otherRepositories: { scopes: 1, entries: 1, stale: null },
      // Each repository's share (docs/design.md, "A share of each list"): only the caller's named.
      repositories: [
        { name: DEFAULT_REPOSITORY.name, scopes: 3, entries: 3 },
        { name: null, scopes: 1, entries: 1 },
      ],
      foreign: 1,
      unowned: 0,
      freeRoom: [
        `sponson destroy --env preview --scope ${closed}`,
        `sponson destroy --env preview --scope ${idle}`,
      ],
    });
    const detail = result.run.error?.detail as { scopes: Array<{ lastRunAt: number }> };
    expect(detail.scopes[1]?.lastRunAt).toBeLessThan(Date.now() - 9 * DAY);
    expect(result.run.error?.message).toContain(`sponson destroy --env preview --scope ${closed}`);
    // Repository isolation: the other repository's scope is never named.
    expect(JSON.stringify(result.run.error)).not.toContain(theirs);
    expect(requests.filter((r) => r.startsWith("PATCH "))).toEqual([]);
    expect((await auth0Client(domain, APP_CLIENT))?.web_origins).toEqual(before);
  });

  it("without staleAfterDays an old run is not stale; a live list names no command", async () => {
    const domain = freshAuth0Domain("owners2");
    await seedAuth0Tenant(domain, { m2m: TEST_M2M, clients: { [APP_CLIENT]: { web_origins: [] } } });
    const connection = registerConnection(`auth0-owners2-${domain}`, {
      type: "auth0",
      config: { domain, clientId: TEST_M2M.clientId },
      secrets: { clientSecret: SECRET_NAME },
      capacity: { "auth0.webOrigin": 1 },
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
    const [old, next] = [freshPr(), freshPr()];
    expect((await apply(plan, old)).run.status).toBe("succeeded");
    await ageRuns(old, 400);
    const result = await testEngine().apply({
      repository: DEFAULT_REPOSITORY,
      environment: "preview",
      scope: next,
      plan,
      wait: true,
      waitTimeoutMs: 30_000,
    });
    expect(result.run.error?.code).toBe("LIST_FULL");
    expect(result.run.error?.detail).toMatchObject({
      scopes: [{ scope: old, entries: 1, stale: null }],
      freeRoom: [],
    });
  });
});
