/**
 * Fault matrix, provider side: rate limits, server errors, gateway timeouts and slow answers. Each
 * case states its expected outcome, then checks the world settled: nothing lost, nothing orphaned,
 * no lock held.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, it } from "vitest";
import { SimulatedCrash } from "../../workers/engine/simulated-crash";
import { configureHost } from "../helpers/emulators";
import { appLockKey, providerWrites } from "../helpers/engine";
import { endLockDelay, rawStub } from "../helpers/locks";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import {
  entriesOf,
  expectSettled,
  freshWorld,
  providerItems,
  reliabilityEngine,
  StepClock,
  UNOWNED,
} from "./harness";

/** A start time off the second boundary, so a wait that ends exactly on one came from the reset header. */
const offSecond = () => Math.floor(Date.now() / 1000) * 1000 + 123;

describe("reliability: provider faults", () => {
  it("a 429 on a write is retried after waiting until the x-ratelimit-reset it carried; the run succeeds", async ({
    expect,
  }) => {
    const { domain, scope, plan } = await freshWorld();
    const clock = new StepClock(offSecond());
    await configureHost(domain, { failures: [{ status: 429, count: 1, on: "write" }] });
    const result = await reliabilityEngine({ clock }).apply({
      repository: DEFAULT_REPOSITORY,
      environment: "preview",
      scope,
      plan,
    });
    expect(result.run.status).toBe("succeeded");
    // One wait, ending on the reset second (epoch seconds), not the 500 ms backoff.
    expect(clock.sleeps).toHaveLength(1);
    expect((clock.sleeps[0] as number) > 0 && (clock.sleeps[0] as number) <= 2_000).toBe(true);
    expect((123 + (clock.sleeps[0] as number)) % 1000).toBe(0);
    expect(await providerItems(domain)).toEqual([`callbacks ${UNOWNED}`, ...entriesOf(scope)].sort());
    await expectSettled(expect, domain, [scope]);
  });

  it("a 5xx that persists is retried with backoff, then fails the run as an unknown outcome; recovery leaves nothing behind", async ({
    expect,
  }) => {
    const { domain, scope, plan } = await freshWorld();
    const clock = new StepClock();
    // The run's one write to the application fails 500 on every attempt (four).
    await configureHost(domain, { failures: [{ status: 500, count: 4, on: "write" }] });
    const address = { repository: DEFAULT_REPOSITORY, environment: "preview", scope };
    const result = await reliabilityEngine({ clock }).apply({ ...address, plan });
    expect(result.run.status).toBe("failed");
    // A 5xx says nothing of whether the provider applied the write (docs/design.md, "Fencing
    // around a write"): the three lines were one write, and all three have an unknown outcome.
    expect(result.lines.map((l) => [l.id, l.result, l.error?.code, l.error?.detail?.outcome])).toEqual([
      ["callback", "failed", "LOCK_LOST", "unknown"],
      ["logout", "failed", "LOCK_LOST", "unknown"],
      ["origin", "failed", "LOCK_LOST", "unknown"],
    ]);
    expect(result.lines[0]?.error?.message).toMatch(/500/);
    expect(clock.sleeps).toEqual([500, 1_000, 2_000]);
    expect(await providerItems(domain)).toEqual([`callbacks ${UNOWNED}`]);
    // The lock is quiet for its lock-delay (time moved here, not slept); then recovery settles it.
    const key = await appLockKey(domain);
    await endLockDelay(key);
    await runDurableObjectAlarm(rawStub(key));
    expect((await reliabilityEngine().recover({ ...address, wait: true })).run.status).toBe("succeeded");
    await expectSettled(expect, domain, [scope]);
  });

  it("gateway timeouts (504) on reads and writes are retried and the run succeeds once", async ({
    expect,
  }) => {
    const { domain, scope, plan } = await freshWorld();
    const clock = new StepClock();
    await configureHost(domain, { failures: [{ status: 504, count: 2, on: "any" }] });
    const result = await reliabilityEngine({ clock }).apply({
      repository: DEFAULT_REPOSITORY,
      environment: "preview",
      scope,
      plan,
    });
    expect(result.run.status).toBe("succeeded");
    expect(clock.sleeps).toEqual([500, 1_000]);
    // One write carries the run's three entries on the application.
    expect(await providerWrites(domain)).toBe(1);
    await expectSettled(expect, domain, [scope]);
  });

  it("slow provider answers (emulated latency on every call) only slow the run: one write carries every entry", async ({
    expect,
  }) => {
    const { domain, scope, plan } = await freshWorld();
    await configureHost(domain, { latencyMs: 15 });
    const result = await reliabilityEngine().apply({
      repository: DEFAULT_REPOSITORY,
      environment: "preview",
      scope,
      plan,
    });
    await configureHost(domain, {});
    expect(result.run.status).toBe("succeeded");
    expect(await providerWrites(domain)).toBe(1);
    expect(await providerItems(domain)).toEqual([`callbacks ${UNOWNED}`, ...entriesOf(scope)].sort());
    await expectSettled(expect, domain, [scope]);
  });

  it("a read under the lease that answers after the holder's deadline: LOCK_LOST, no write is sent; the next run recovers", async ({
    expect,
  }) => {
    const { domain, scope, plan } = await freshWorld();
    const clock = new StepClock();
    let reads = 0;
    const engine = reliabilityEngine({
      clock,
      // The read of the application under its lease (the first: a new scope's lines are not read
      // before it) takes 31 s of clock time.
      wrapFetch: (inner) => async (input, init) => {
        const res = await inner(input, init);
        const method = (init?.method ?? "GET").toUpperCase();
        if (method === "GET" && String(input).includes("/api/v2/clients/")) {
          reads += 1;
          if (reads === 1) clock.jump(31_000);
        }
        return res;
      },
    });
    const result = await engine.apply({
      repository: DEFAULT_REPOSITORY,
      environment: "preview",
      scope,
      plan,
    });
    expect(result.run.status).toBe("failed");
    expect(result.lines[0]).toMatchObject({ id: "callback", result: "failed", error: { code: "LOCK_LOST" } });
    expect(await providerWrites(domain)).toBe(0);

    const next = await reliabilityEngine().apply({
      repository: DEFAULT_REPOSITORY,
      environment: "preview",
      scope,
      plan,
    });
    expect(next.run.status).toBe("succeeded");
    expect(await providerItems(domain)).toEqual([`callbacks ${UNOWNED}`, ...entriesOf(scope)].sort());
    await expectSettled(expect, domain, [scope]);
  });

  it("control: a crash is not swallowed by the provider retry loop", async ({ expect }) => {
    const { domain, scope, plan } = await freshWorld();
    await configureHost(domain, { failures: [{ status: 503, count: 1, on: "write" }] });
    const engine = reliabilityEngine({
      faults: (point) => {
        if (point === "after-intent") throw new SimulatedCrash(point);
      },
    });
    await expect(
      engine.apply({ repository: DEFAULT_REPOSITORY, environment: "preview", scope, plan }),
    ).rejects.toThrow(SimulatedCrash);
    await configureHost(domain, {});
    const next = await reliabilityEngine().apply({
      repository: DEFAULT_REPOSITORY,
      environment: "preview",
      scope,
      plan,
    });
    expect(next.run.status).toBe("succeeded");
    await expectSettled(expect, domain, [scope]);
  });
});
