/**
 * Fencing around the write (docs/design.md, "Lease protocol"). Run A's PATCH hangs at the emulator
 * (knob holdWrites) while its parent lease expires; run B wants the same application. With the
 * lock-delay B is not granted until the delay after A's expiry has passed, A's late write lands
 * first, A's lease check after the write fails (its line says the write may have landed, its
 * intents stay), and B reads A's write and keeps it. The control case — no lock-delay, no check
 * after the write — lets B write first and A's late write overwrite B's entry: both say succeeded.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Plan } from "../../shared/schemas/plan";
import { auth0Client, configureHost, emulatorStub, freshAuth0Domain } from "../helpers/emulators";
import { appLockKey, durableIntents, freshPr, untilWaiters } from "../helpers/engine";
import { endLockDelay, expireLeaseJustNow, rawStub } from "../helpers/locks";
import { APP_CLIENT, auth0Plan, seedTenant } from "../helpers/plans";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { testEngine } from "../helpers/test-engine";

const url = (scope: string) => `https://${scope}.preview.example.com/callback`;

function plan(domain: string): Plan {
  return auth0Plan(domain, [
    { id: "callback", op: "auth0.callbackUrl", url: "https://{scope}.preview.example.com/callback" },
  ]);
}

function applier(fencing: boolean, domain: string) {
  // The plan registers the tenant's connection, which an engine reads when it is made.
  const p = plan(domain);
  const engine = testEngine({ controls: { fencing }, combining: false });
  return (scope: string) =>
    engine.apply({
      repository: DEFAULT_REPOSITORY,
      environment: "preview",
      scope,
      plan: p,
      wait: true,
      waitTimeoutMs: 60_000,
    });
}

async function until(what: string, ok: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 10_000; i++) {
    if (await ok()) return;
    await scheduler.wait(1);
  }
  throw new Error(`never: ${what}`);
}

/** A's write is held at the emulator, and A's parent lease has just expired. */
async function hungWriteAfterExpiry(fencing: boolean) {
  const domain = freshAuth0Domain();
  await seedTenant(domain);
  const key = await appLockKey(domain);
  const [a, b] = [freshPr(), freshPr()];
  await configureHost(domain, { holdWrites: 1 });
  const runA = applier(fencing, domain)(a);
  await until("A's write is held", async () => (await emulatorStub(domain).stats()).heldWrites === 1);
  await expireLeaseJustNow(key);
  const landA = async () => {
    await emulatorStub(domain).releaseWrites();
    await until("A's write landed", async () => (await emulatorStub(domain).stats()).heldWrites === 0);
  };
  return { domain, key, a, b, runA, landA, applyB: () => applier(fencing, domain)(b) };
}

describe("a provider write that lands after its lease expired", () => {
  it("with the lock-delay and the check after the write: nothing is lost, A says its write may have landed", async () => {
    const w = await hungWriteAfterExpiry(true);
    const runB = w.applyB();
    // The lock-delay after A's expiry: B waits, it does not take the lock over.
    await untilWaiters(w.key, 1);
    await w.landA();
    // A's check after its write fails: the outcome is unknown, its intent stays for recovery.
    const ra = await w.runA;
    expect(ra.run.status).toBe("failed");
    const line = ra.lines[0];
    expect(line?.error?.code).toBe("LOCK_LOST");
    expect(line?.error?.message).toContain("may have landed");
    expect((await durableIntents("preview", w.a)).map((i) => i.key)).toContain(url(w.a));
    await endLockDelay(w.key);
    await runDurableObjectAlarm(rawStub(w.key));
    const rb = await runB;
    expect(rb.run.status).toBe("succeeded");
    // B read A's write and kept it: nothing lost.
    expect((await auth0Client(w.domain, APP_CLIENT))?.callbacks).toEqual([url(w.a), url(w.b)]);
    expect((await auth0Client(w.domain, APP_CLIENT))?.callbacks).toContain(url(w.b));
    await configureHost(w.domain, {});
  });

  it("control, without the lock-delay and the check after the write: A's late write overwrites B's entry and both say succeeded", async () => {
    const w = await hungWriteAfterExpiry(false);
    // No lock-delay: B takes the expired lease over at once, reads and writes.
    const rb = await w.applyB();
    expect(rb.run.status).toBe("succeeded");
    expect((await auth0Client(w.domain, APP_CLIENT))?.callbacks).toEqual([url(w.b)]);
    await w.landA();
    const ra = await w.runA;
    expect(ra.run.status).toBe("succeeded");
    // The loss this fencing prevents: B's entry is gone though B's run said it was written.
    expect((await auth0Client(w.domain, APP_CLIENT))?.callbacks).toEqual([url(w.a)]);
    await configureHost(w.domain, {});
  });
});
