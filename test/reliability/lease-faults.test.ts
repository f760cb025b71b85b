/**
 * Fault matrix, lease side: a lease that runs out while its run is about to write (the clock is the
 * test's), and alarms that fire late or twice (docs/design.md, "Lease protocol": every path checks the clock
 * itself).
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { lockTarget } from "../../workers/locks/lock-target";
import { apply, testApp } from "../helpers/app";
import { appIdentity, appLockKey, providerWrites, receipt } from "../helpers/engine";
import { armedAlarm, expireLeaseNow, freshScopeKey, granted, rawStub, stub } from "../helpers/locks";
import { entriesOf, expectSettled, freshWorld, providerItems, StepClock, UNOWNED } from "./harness";

const TTL_MS = 30_000;

describe("reliability: lease faults", () => {
  it("the lease expires during a write (clock jumps past the deadline, another run takes the lock over): LOCK_LOST, nothing written after", async ({
    expect,
  }) => {
    const { domain, scope, plan } = await freshWorld();
    const clock = new StepClock();
    const parentKey = await appLockKey(domain);
    let other: { token: number } | null = null;
    const app = testApp({
      engine: {
        clock,
        faults: async (point) => {
          if (point !== "after-intent" || other) return;
          // The run stalls past its deadline; meanwhile the server expires its lease and hands it on.
          clock.jump(TTL_MS + 1);
          await expireLeaseNow(parentKey);
          other = granted(
            await lockTarget(env, parentKey, appIdentity(domain)).acquire({
              holder: "run-other",
              ttlMs: TTL_MS,
              wait: false,
              waitTimeoutMs: 0,
            }),
          );
        },
      },
    });
    const result = await apply(app, "preview", scope, plan);
    expect(result.run.status).toBe("failed");
    expect(result.lines[0]).toMatchObject({ id: "callback", result: "failed", error: { code: "LOCK_LOST" } });
    expect(await providerWrites(domain)).toBe(0);
    const parent = await stub(parentKey).read({ key: parentKey });
    expect(parent).toMatchObject({ holder: "run-other", token: 2 });
    expect(parent.history.map((h) => h.transition)).toContain("taken-over");

    // The other run finishes; the intent the stalled run left is resolved by the next run.
    const otherToken = (other as { token: number } | null)?.token ?? -1;
    await stub(parentKey).release({ key: parentKey, holder: "run-other", token: otherToken });
    const next = await apply(testApp(), "preview", scope, plan);
    expect(next.run.status).toBe("succeeded");
    expect((await receipt("preview", scope)).runs.map((r) => r.status)).toEqual(["failed", "succeeded"]);
    expect(await providerItems(domain)).toEqual([`callbacks ${UNOWNED}`, ...entriesOf(scope)].sort());
    await expectSettled(expect, domain, [scope]);
  });

  it("an alarm that fires twice grants the waiter once; the second changes nothing", async ({ expect }) => {
    const key = freshScopeKey("alarm2");
    const lock = stub(key);
    granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const waiting = lock.acquire({ key, holder: "run-b", ttlMs: TTL_MS, wait: true, waitTimeoutMs: 60_000 });
    await expireLeaseNow(key);
    expect(await runDurableObjectAlarm(rawStub(key))).toBe(true);
    const b = granted(await waiting);
    const before = await lock.read({ key });
    expect(await runDurableObjectAlarm(rawStub(key))).toBe(true);
    const after = await lock.read({ key });
    expect(after).toMatchObject({ holder: "run-b", token: b.token, expiresAt: b.expiresAt, lastToken: 2 });
    expect(after.history).toEqual(before.history);
    expect(await armedAlarm(key)).toBe(b.expiresAt);
    granted(await lock.release({ key, holder: "run-b", token: b.token }));
    expect(await lock.read({ key })).toMatchObject({ held: false, waiters: [] });
  });

  it("a late alarm after a takeover does not expire the new holder; after release no alarm is left", async ({
    expect,
  }) => {
    const key = freshScopeKey("late");
    const lock = stub(key);
    granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    await expireLeaseNow(key);
    // run-c takes the expired lease over before the alarm got to run.
    const c = granted(await lock.acquire({ key, holder: "run-c", ttlMs: TTL_MS }));
    expect(c.token).toBe(2);
    await runDurableObjectAlarm(rawStub(key));
    expect(await lock.read({ key })).toMatchObject({ held: true, holder: "run-c", token: 2 });
    expect(granted(await lock.renew({ key, holder: "run-c", token: 2 })).token).toBe(2);
    // run-a's stale token cannot release run-c's lease.
    expect(granted(await lock.release({ key, holder: "run-a", token: 1 }))).toMatchObject({
      released: false,
      reason: "stale-token",
    });
    granted(await lock.release({ key, holder: "run-c", token: 2 }));
    await runDurableObjectAlarm(rawStub(key));
    expect(await lock.read({ key })).toMatchObject({ held: false, waiters: [], lastToken: 2 });
    expect(await armedAlarm(key)).toBeNull();
  });

  it("a stale alarm firing twice in the middle of a run (after a takeover of the dead run's scope lease) does not disturb it", async ({
    expect,
  }) => {
    const { domain, scope, plan } = await freshWorld();
    const scopeKey = `scope:186853002/preview/${scope}`;
    granted(
      await lockTarget(env, scopeKey).acquire({
        holder: "run-dead",
        ttlMs: TTL_MS,
        wait: false,
        waitTimeoutMs: 0,
      }),
    );
    await expireLeaseNow(scopeKey);
    let fired = 0;
    const app = testApp({
      engine: {
        faults: async (point) => {
          if (point !== "after-intent" || fired > 0) return;
          fired += 1;
          await runDurableObjectAlarm(rawStub(scopeKey));
          await runDurableObjectAlarm(rawStub(scopeKey));
        },
      },
    });
    const result = await apply(app, "preview", scope, plan);
    expect(fired).toBe(1);
    expect(result.run.status).toBe("succeeded");
    const history = (await stub(scopeKey).read({ key: scopeKey })).history.map((h) => [
      h.transition,
      h.holder,
    ]);
    expect(history.slice(0, 3)).toEqual([
      ["acquired", "run-dead"],
      ["expired", "run-dead"],
      ["taken-over", result.run.id],
    ]);
    expect(history.filter(([t]) => t === "expired")).toHaveLength(1);
    await expectSettled(expect, domain, [scope]);
  });
});
