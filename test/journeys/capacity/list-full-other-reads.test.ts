/**
 * Who holds a full list reads only the caller's repository's scopes (docs/design.md, "Who holds a
 * full list"): other repositories' scopes are counted from the lock's ownership view, so a refusal
 * under the shared parent lease costs no read of another repository's scope state or receipt, however
 * many scopes it has on the object. The caller's own scopes are still read, ranked and evicted.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Plan } from "../../../shared/schemas/plan";
import type { RepositoryRef } from "../../../shared/schemas/repository";
import type { ScopeGate } from "../../../workers/engine/deps";
import type { ReceiptStore } from "../../../workers/receipts/receipt-store";
import { scopeStateClient } from "../../../workers/scope-state/scope-state-client";
import { registerConnection } from "../../helpers/connections";
import { auth0Client, freshAuth0Domain, seedAuth0Tenant } from "../../helpers/emulators";
import { freshPr } from "../../helpers/engine";
import { APP_CLIENT, SECRET_NAME, TEST_M2M } from "../../helpers/plans";
import { DEFAULT_REPOSITORY } from "../../helpers/repositories";
import { testEngine } from "../../helpers/test-engine";

const OTHER: RepositoryRef = { id: 918_273_647, name: "acme/other-reads" };
const THEIRS = 6;
const origin = (scope: string) => `https://${scope}.preview.example.com`;

/** Each scope-state and receipt read the engine makes, as `<kind> <repositoryId> <scope>`. */
function recordingReads(reads: string[]) {
  const gate: ScopeGate = {
    read: (repositoryId, scope) => {
      reads.push(`state ${repositoryId} ${scope}`);
      return scopeStateClient(env, repositoryId, scope).read();
    },
  };
  const wrapStore = (inner: ReceiptStore): ReceiptStore =>
    new Proxy(inner, {
      get(t, prop) {
        const value: unknown = Reflect.get(t, prop, t);
        if (typeof value !== "function") return value;
        // Bound to the store itself: its private fields are not the proxy's.
        if (prop !== "read") return value.bind(t);
        return (address: { repository: { id: number }; scope: string }) => {
          reads.push(`receipt ${address.repository.id} ${address.scope}`);
          return value.call(t, address);
        };
      },
    });
  return { gate, wrapStore };
}

async function crowdedList(environments: string) {
  const domain = freshAuth0Domain("other-reads");
  await seedAuth0Tenant(domain, { m2m: TEST_M2M, clients: { [APP_CLIENT]: { web_origins: [] } } });
  const connection = registerConnection(`auth0-other-reads-${domain}`, {
    type: "auth0",
    config: { domain, clientId: TEST_M2M.clientId },
    secrets: { clientSecret: SECRET_NAME },
    // Another repository's scopes, then the caller's closed and live ones: full.
    capacity: { "auth0.webOrigin": THEIRS + 2 },
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
  const request = (scope: string, repository = DEFAULT_REPOSITORY) => ({
    repository,
    environment: "preview",
    scope,
    plan,
    wait: true,
    waitTimeoutMs: 30_000,
  });
  const quiet = testEngine({ bindings: { SPONSON_ENVIRONMENTS: environments } });
  for (let i = 0; i < THEIRS; i += 1)
    expect((await quiet.apply(request(freshPr(), OTHER))).run.status).toBe("succeeded");
  const [closed, live] = [freshPr(), freshPr()];
  for (const scope of [closed, live])
    expect((await quiet.apply(request(scope))).run.status).toBe("succeeded");
  await scopeStateClient(env, DEFAULT_REPOSITORY.id, closed).applyEvent({
    status: "closed",
    revision: Date.now(),
    deliveryId: crypto.randomUUID(),
  });
  expect((await auth0Client(domain, APP_CLIENT))?.web_origins).toHaveLength(THEIRS + 2);

  const reads: string[] = [];
  const engine = testEngine({ bindings: { SPONSON_ENVIRONMENTS: environments }, ...recordingReads(reads) });
  const next = freshPr();
  const result = await engine.apply(request(next));
  return { domain, closed, live, next, reads, result };
}

const readsOf = (reads: string[], repositoryId: number) =>
  reads.filter((r) => r.split(" ")[1] === String(repositoryId));

describe("a full list's owners read only the caller's repository's scopes", () => {
  it("a LIST_FULL refusal counts another repository's scopes without reading any of them", async () => {
    const environments = JSON.stringify([{ name: "preview", staleAfterDays: 7 }]);
    const { closed, live, reads, result } = await crowdedList(environments);
    expect(result.run.error?.code).toBe("LIST_FULL");
    expect(result.run.error?.detail).toMatchObject({
      scopes: [
        { scope: closed, stale: "closed" },
        { scope: live, stale: null },
      ],
      // Counted from the lock's ownership view; whether they are stale is not read.
      otherRepositories: { scopes: THEIRS, entries: THEIRS, stale: null },
      repositories: [
        { name: null, scopes: THEIRS, entries: THEIRS },
        { name: DEFAULT_REPOSITORY.name, scopes: 2, entries: 2 },
      ],
    });
    // Before: a state and a receipt read per scope of the other repository (2 × THEIRS).
    expect(readsOf(reads, OTHER.id)).toEqual([]);
    // Control: the caller's own owning scopes are still read, state and receipt each.
    for (const scope of [closed, live])
      for (const kind of ["state", "receipt"])
        expect(reads).toContain(`${kind} ${DEFAULT_REPOSITORY.id} ${scope}`);
  });

  it("eviction still reads and evicts the caller's stale scope, and reads none of the other repository's", async () => {
    const environments = JSON.stringify([{ name: "preview", staleAfterDays: 7, evictStale: true }]);
    const { domain, closed, live, next, reads, result } = await crowdedList(environments);
    expect(result.run.status).toBe("succeeded");
    const after = (await auth0Client(domain, APP_CLIENT))?.web_origins ?? [];
    expect(after).not.toContain(origin(closed));
    expect(after).toContain(origin(live));
    expect(after).toContain(origin(next));
    expect(after).toHaveLength(THEIRS + 2);
    expect(reads).toContain(`state ${DEFAULT_REPOSITORY.id} ${closed}`);
    expect(reads).toContain(`receipt ${DEFAULT_REPOSITORY.id} ${closed}`);
    expect(readsOf(reads, OTHER.id)).toEqual([]);
  });
});
