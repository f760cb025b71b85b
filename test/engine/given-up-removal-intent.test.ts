/**
 * A failed run's rollback removal that could not be finished, and the same run's recovery of the
 * remove intent it left (docs/design.md, "Intent recovery": an intent is never dropped while its
 * outcome is unknown; "Lease protocol": the ask guard). Resolving the intent adds the run's remove
 * intent of the item again, in place of the one left; a recovery that then fails before touching
 * anything drops only what it added, never the intent it was resolving.
 *
 * The run applies `first` (one Auth0 application) and `second` (another); the provider refuses
 * `second`, so the run rolls `first` back. A ManualClock runs the engine, so the run's wait
 * deadline passes when the test says.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Plan } from "../../shared/schemas/plan";
import type { LockProvider } from "../../workers/engine/deps";
import { lockStub } from "../../workers/locks/lock-target";
import { ManualClock } from "../helpers/clock";
import { freshAuth0Domain, seedAuth0Tenant } from "../helpers/emulators";
import { appLockKey, durableIntents, freshPr, holdAppLock, untilWaiters } from "../helpers/engine";
import { overriding } from "../helpers/lock-overrides";
import { APP_CLIENT, auth0Connection, TEST_M2M } from "../helpers/plans";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { testEngine } from "../helpers/test-engine";

const BUDGET_MS = 60_000;
const OTHER_CLIENT = "other-app";
const refused = () =>
  Response.json({ statusCode: 400, error: "Bad Request", message: "refused" }, { status: 400 });

async function world(prefix: string) {
  const domain = freshAuth0Domain(prefix);
  const lists = { callbacks: [], allowed_logout_urls: [], web_origins: [], allowed_origins: [] };
  await seedAuth0Tenant(domain, { m2m: TEST_M2M, clients: { [APP_CLIENT]: lists, [OTHER_CLIENT]: lists } });
  const connection = auth0Connection(domain);
  const line = (id: string, client: string) => ({
    id,
    op: "auth0.callbackUrl",
    connection,
    params: { client, url: `https://{scope}.preview.example.com/${id}` },
  });
  const plan: Plan = { version: 2, lines: [line("first", APP_CLIENT), line("second", OTHER_CLIENT)] };
  const scope = freshPr();
  const request = {
    repository: DEFAULT_REPOSITORY,
    environment: "preview",
    scope,
    plan,
    wait: true,
    waitTimeoutMs: BUDGET_MS,
  };
  return { domain, scope, request, first: `https://${scope}.preview.example.com/first` };
}

const removeIntents = async (scope: string) =>
  (await durableIntents("preview", scope)).filter((i) => i.action === "remove").map((i) => i.key);
const staysWarning = (warnings: readonly string[], key: string) =>
  warnings.some((w) => w.includes(`remove intent of ${key}`) && w.includes("stays in the receipt"));

describe("a rollback removal left in doubt, and the run's recovery of its intent", () => {
  it("given up at the deadline while its call is still queued with its change: the recovery's ask is refused before the object, and the remove intent stays", async () => {
    const w = await world("gaveup");
    let held: { key: string; release: () => Promise<unknown> } | null = null;
    // `second` is refused; meanwhile another run takes the lock of `first`'s application.
    const wrapFetch =
      (inner: typeof fetch): typeof fetch =>
      async (input, init) => {
        const req = new Request(input, init);
        if (req.method !== "PATCH" || !req.url.includes(OTHER_CLIENT) || held) return inner(input, init);
        held = await holdAppLock(w.domain, "run-a-holder", APP_CLIENT);
        return refused();
      };
    const clock = new ManualClock();
    const engine = testEngine({ clock, wrapFetch, bindings: { LEASE_TTL_SECONDS: "600" } });
    const start = clock.now();
    const running = engine.apply(w.request);
    const key = await appLockKey(w.domain, APP_CLIENT);
    // The rollback's removal of `first` queues at that lock with its change (write combining).
    await untilWaiters(key, 1);
    clock.advance(start + BUDGET_MS - clock.now());
    const result = await running;

    expect(result.run.status).toBe("failed");
    // Its call is still queued with its change, untaken: any holder may take it and write it.
    const waiters = (await lockStub(env, key).read({ key })).waiters;
    expect(waiters.map((q) => [q.holder, q.changes])).toEqual([[result.run.id, 1]]);
    expect(staysWarning(result.warnings, w.first)).toBe(true);
    expect(await removeIntents(w.scope), "the warning is true: the intent stays").toEqual([w.first]);
    await (held as { release: () => Promise<unknown> } | null)?.release();
  });

  it("without write combining: the recovery's removal, refused at the lock, puts back the remove intent it replaced", async () => {
    const w = await world("putback");
    const clock = new ManualClock();
    let refusals = 0;
    // `second` is refused, then the rollback's removal of `first` too.
    const wrapFetch =
      (inner: typeof fetch): typeof fetch =>
      async (input, init) => {
        const req = new Request(input, init);
        const client = refusals === 0 ? OTHER_CLIENT : APP_CLIENT;
        if (req.method !== "PATCH" || !req.url.includes(client) || refusals >= 2) return inner(input, init);
        refusals += 1;
        return refused();
      };
    // Once the rollback has released `first`'s lock, an admin puts it on hold, and the run's wait
    // deadline passes: the recovery's removal asks once, and is refused.
    const key = await appLockKey(w.domain, APP_CLIENT);
    const holdAfterRollback = (inner: LockProvider): LockProvider => ({
      ...inner,
      parent: async (identity) => {
        const target = await inner.parent(identity);
        return overriding(target, {
          release: async (req) => {
            const answer = await target.release(req);
            if (refusals === 2 && target.key === key) {
              await lockStub(env, key).hold({
                key,
                reason: "maintenance",
                by: "alice-admin",
                ttlMs: 3_600_000,
              });
              clock.advance(BUDGET_MS);
            }
            return answer;
          },
        });
      },
    });
    const engine = testEngine({
      clock,
      wrapFetch,
      wrapLocks: holdAfterRollback,
      combining: false,
      bindings: { LEASE_TTL_SECONDS: "600" },
    });
    const result = await engine.apply(w.request);

    expect(refusals).toBe(2);
    expect(result.run.status).toBe("failed");
    expect(staysWarning(result.warnings, w.first)).toBe(true);
    expect(await removeIntents(w.scope), "the warning is true: the intent stays").toEqual([w.first]);
    await lockStub(env, key).unhold({ key, actor: "alice-admin" });
  });
});
