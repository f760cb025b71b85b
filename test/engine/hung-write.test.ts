/**
 * A provider write that hangs (docs/design.md, "Lease protocol"): every request carries an
 * AbortSignal at the request timeout or the lease deadline, whichever comes first, so the run stops
 * waiting instead of renewing a lease around a call that never answers. Its outcome is unknown: the
 * line says the write may have landed and its intent stays. How the lease ends depends on whether it
 * is still held (docs/design.md, "Fencing around a write"): each attempt given up at its request
 * timeout while renewals keep the lease, it ends by a quiet release (the lock-delay after the release
 * covers every attempt); still in flight at the lease deadline, it is abandoned and ends by expiry
 * (the lock-delay after the expiry covers it). Time is a manual clock; the hung request is the
 * emulator's held write (knob holdWrites).
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { RunResult } from "../../shared/schemas/run";
import type { LockProvider } from "../../workers/engine/deps";
import { MAX_CRITICAL_SECTION_MS } from "../../workers/engine/lease/parent-lease";
import { ManualClock } from "../helpers/clock";
import { auth0Client, configureHost, emulatorStub, freshAuth0Domain } from "../helpers/emulators";
import { appLockKey, durableIntents, freshPr } from "../helpers/engine";
import { overriding } from "../helpers/lock-overrides";
import { endLockDelay, expireLeaseNow, stub as lock, rawStub } from "../helpers/locks";
import { APP_CLIENT, auth0Plan, seedTenant } from "../helpers/plans";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { type TestEngineOptions, testEngine } from "../helpers/test-engine";

async function until(what: string, ok: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 10_000; i++) {
    if (await ok()) return;
    await scheduler.wait(1);
  }
  throw new Error(`never: ${what}`);
}

/** The parent lock's renewals never reach the object (a transport failure keeps the last deadline). */
const parentRenewalsFail = (inner: LockProvider): LockProvider => ({
  ...inner,
  parent: async (identity) =>
    overriding(await inner.parent(identity), {
      renew: async () => {
        throw new Error("the lock object is unreachable");
      },
    }),
});

/**
 * Applies one line while every attempt of its write hangs, letting the manual clock run to each
 * next timer until the run ends; then recovers the scope once the lock is free again (`free`).
 */
async function hungApply(options: TestEngineOptions, free: (key: string) => Promise<void>) {
  const domain = freshAuth0Domain();
  await seedTenant(domain);
  const scope = freshPr();
  const url = `https://${scope}.preview.example.com/callback`;
  const plan = auth0Plan(domain, [
    { id: "callback", op: "auth0.callbackUrl", url: "https://{scope}.preview.example.com/callback" },
  ]);
  const clock = new ManualClock();
  const engine = testEngine({ clock, combining: false, ...options });
  const key = await appLockKey(domain);
  const address = { repository: DEFAULT_REPOSITORY, environment: "preview", scope, wait: true };

  await configureHost(domain, { holdWrites: 10 });
  const run = engine.apply({ ...address, plan });
  await until("the write is held", async () => (await emulatorStub(domain).stats()).heldWrites === 1);
  // Time passes with the write unanswered: each attempt's signal fires and the group fails.
  // (Polling, not racing: each step waits for the run to arm its next timer.)
  const start = clock.now();
  let settled = false;
  void run.finally(() => {
    settled = true;
  });
  while (!settled) {
    await Promise.race([clock.untilTimer(), scheduler.wait(50)]);
    if (clock.pending.length > 0) clock.advanceToNext();
    await scheduler.wait(1);
  }
  const result: RunResult = await run;
  const elapsed = clock.now() - start;
  const history = (await lock(key).read({ key })).history;
  const intents = (await durableIntents("preview", scope)).map((i) => i.key);
  // Here the runtime cancels an aborted request, so nothing lands late (a real provider may still
  // apply it: the lock-delay is for that, test/engine/write-fencing.test.ts). Once the lock is free
  // again, a recovery of the scope resolves the intent from what the provider says.
  await emulatorStub(domain).releaseWrites();
  await configureHost(domain, {});
  await free(key);
  await runDurableObjectAlarm(rawStub(key));
  const recovered = await engine.recover(address);
  return {
    result,
    elapsed,
    history,
    intents,
    url,
    recovered,
    callbacks: await auth0Client(domain, APP_CLIENT),
  };
}

describe("a provider write that never answers", () => {
  it("each attempt timed out while the lease was held: LOCK_LOST saying it may have landed, the intent kept, the lease released quietly", async () => {
    // A lease long enough for every attempt and backoff: no deadline can come first.
    const run = await hungApply({ bindings: { LEASE_TTL_SECONDS: "120" } }, endLockDelay);
    expect(run.elapsed).toBeLessThan(MAX_CRITICAL_SECTION_MS);
    expect(run.result.run.status).toBe("failed");
    expect(run.result.lines[0]?.error?.code).toBe("LOCK_LOST");
    expect(run.result.lines[0]?.error?.message).toMatch(/timed out after/);
    expect(run.result.lines[0]?.error?.message).toContain("may have landed");
    // Released quietly: nobody is granted the lock before the lock-delay after the release.
    expect(run.history.at(-1)).toMatchObject({
      transition: "released",
      note: expect.stringMatching(/may still land/),
    });
    expect(run.intents).toContain(run.url);
    expect(run.recovered.run.status).toBe("succeeded");
    expect(run.callbacks?.callbacks).toEqual([]);
  });

  it("still in flight at the lease deadline: LOCK_LOST saying it may have landed, the intent kept, the lease left to expire", async () => {
    // No renewal reaches the object: the deadline measured at the claims comes during an attempt.
    const run = await hungApply({ wrapLocks: parentRenewalsFail }, expireLeaseNow);
    expect(run.result.run.status).toBe("failed");
    expect(run.result.lines[0]?.error?.code).toBe("LOCK_LOST");
    expect(run.result.lines[0]?.error?.message).toContain("lease deadline");
    // Abandoned, never released: it ends by expiry, and the lock-delay follows.
    expect(run.history.map((h) => h.transition)).not.toContain("released");
    expect(run.intents).toContain(run.url);
    expect(run.recovered.run.status).toBe("succeeded");
    expect(run.callbacks?.callbacks).toEqual([]);
  });
});
