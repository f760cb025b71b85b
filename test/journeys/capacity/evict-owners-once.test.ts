/**
 * Eviction reads who owns the full list once under the parent lease (docs/design.md, "Evicting
 * stale scopes"): the answer that ranks the stale scopes also says which of their entries they
 * alone own, so taking a second stale scope costs no further ownership read of the lock.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Plan } from "../../../shared/schemas/plan";
import type { LockProvider } from "../../../workers/engine/deps";
import type { LockTarget } from "../../../workers/locks/lock-target";
import { scopeStateClient } from "../../../workers/scope-state/scope-state-client";
import { registerConnection } from "../../helpers/connections";
import { auth0Client, freshAuth0Domain, seedAuth0Tenant } from "../../helpers/emulators";
import { freshPr } from "../../helpers/engine";
import { APP_CLIENT, SECRET_NAME, TEST_M2M } from "../../helpers/plans";
import { DEFAULT_REPOSITORY } from "../../helpers/repositories";
import { testEngine } from "../../helpers/test-engine";

const EVICTING = JSON.stringify([{ name: "preview", staleAfterDays: 7, evictStale: true }]);
const origin = (scope: string, list = "preview") => `https://${scope}.${list}.example.com`;

/** The parent lock's calls, by method, as the run makes them. */
function recordingParents(calls: string[]) {
  const recorded = (target: LockTarget): LockTarget =>
    new Proxy(target, {
      get(t, prop) {
        const value: unknown = Reflect.get(t, prop, t);
        if (typeof value !== "function" || typeof prop !== "string") return value;
        return (...args: unknown[]) => {
          calls.push(prop);
          return value.apply(t, args);
        };
      },
    });
  return (inner: LockProvider): LockProvider => ({
    ...inner,
    parent: async (identity) => recorded(await inner.parent(identity)),
  });
}

async function fullList(cap: number) {
  const domain = freshAuth0Domain("evict-once");
  await seedAuth0Tenant(domain, { m2m: TEST_M2M, clients: { [APP_CLIENT]: { web_origins: [] } } });
  const connection = registerConnection(`auth0-evict-once-${domain}`, {
    type: "auth0",
    config: { domain, clientId: TEST_M2M.clientId },
    secrets: { clientSecret: SECRET_NAME },
    capacity: { "auth0.webOrigin": cap },
  });
  const line = (id: string, list: string) => ({
    id,
    op: "auth0.webOrigin",
    connection,
    params: { client: APP_CLIENT, url: `https://{scope}.${list}.example.com` },
  });
  const one: Plan = { version: 2, lines: [line("origin", "preview")] };
  const two: Plan = { version: 2, lines: [line("origin", "preview"), line("origin2", "two")] };
  return { domain, one, two };
}

describe("eviction reads the list's ownership once", () => {
  it("two stale scopes evicted for a two-entry write: one ownership read of the parent lock, not one per scope", async () => {
    const { domain, one, two } = await fullList(3);
    const [a, b, live, next] = [freshPr(), freshPr(), freshPr(), freshPr()];
    const request = (scope: string, plan: Plan) => ({
      repository: DEFAULT_REPOSITORY,
      environment: "preview",
      scope,
      plan,
      wait: true,
      waitTimeoutMs: 30_000,
    });
    const quiet = testEngine({ bindings: { SPONSON_ENVIRONMENTS: EVICTING } });
    for (const scope of [a, b, live])
      expect((await quiet.apply(request(scope, one))).run.status).toBe("succeeded");
    for (const scope of [a, b])
      await scopeStateClient(env, DEFAULT_REPOSITORY.id, scope).applyEvent({
        status: "closed",
        revision: Date.now(),
        deliveryId: crypto.randomUUID(),
      });

    const calls: string[] = [];
    const engine = testEngine({
      bindings: { SPONSON_ENVIRONMENTS: EVICTING },
      wrapLocks: recordingParents(calls),
    });
    const result = await engine.apply(request(next, two));
    expect(result.run.status).toBe("succeeded");
    const after = (await auth0Client(domain, APP_CLIENT))?.web_origins ?? [];
    expect([...after].sort()).toEqual([origin(live), origin(next), origin(next, "two")].sort());
    // The grant carried the group's own items' ownership; the list's owners are read once, for
    // the choice of stale scopes and their entries both (it was 3 when each scope was read again).
    expect(calls.filter((c) => c === "owners")).toHaveLength(1);
    // The run's lock calls, with the two evicted scopes' leases: 16 with a read per scope, 14 with
    // the one read, 18 with each evicted lease checked before the claims and before its leave (two
    // round trips per scope: docs/design.md, "Evicting stale scopes"), 17 since the grant takes the
    // queue (no takeQueued), 18 with the parent checked again after the evicted leases' check
    // (it comes between the claims and the write). A slow machine may add one timed renewal of a
    // lease held that long; a read per scope again would add two.
    expect(result.counts?.lockOps).toBeGreaterThanOrEqual(18);
    expect(result.counts?.lockOps).toBeLessThanOrEqual(19);
  });
});
