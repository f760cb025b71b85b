/**
 * A provider write that hangs (docs/design.md, "Lease protocol"): the request carries an
 * AbortSignal at the lease deadline, so the run stops waiting there instead of renewing a lease
 * around a call that never answers. Its outcome is unknown: the line says the write may have
 * landed, its intent stays, and the parent lease is abandoned (never released), so it ends by
 * expiry and the lock-delay covers the write if it lands late. Time is a manual clock; the hung
 * request is the emulator's held write (knob holdWrites).
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { MAX_CRITICAL_SECTION_MS } from "../../workers/engine/write/parent-lease";
import { ManualClock } from "../helpers/clock";
import { auth0Client, configureHost, emulatorStub, freshAuth0Domain } from "../helpers/emulators";
import { appLockKey, durableIntents, freshPr } from "../helpers/engine";
import { expireLeaseNow, stub as lock, rawStub } from "../helpers/locks";
import { APP_CLIENT, auth0Plan, seedTenant } from "../helpers/plans";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { testEngine } from "../helpers/test-engine";

async function until(what: string, ok: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 10_000; i++) {
    if (await ok()) return;
    await scheduler.wait(1);
  }
  throw new Error(`never: ${what}`);
}

describe("a provider write that never answers", () => {
  it("is abandoned at the lease deadline: LOCK_LOST saying it may have landed, the intent kept, the lease left to expire", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const scope = freshPr();
    const url = `https://${scope}.preview.example.com/callback`;
    const plan = auth0Plan(domain, [
      { id: "callback", op: "auth0.callbackUrl", url: "https://{scope}.preview.example.com/callback" },
    ]);
    const clock = new ManualClock();
    const engine = testEngine({ clock, combining: false });
    const key = await appLockKey(domain);

    // Every attempt of the write hangs.
    await configureHost(domain, { holdWrites: 10 });
    const run = engine.apply({
      repository: DEFAULT_REPOSITORY,
      environment: "preview",
      scope,
      plan,
      wait: true,
    });
    await until("the write is held", async () => (await emulatorStub(domain).stats()).heldWrites === 1);
    // Time passes with the write unanswered: each attempt's signal fires (the request timeout, or
    // the lease deadline) and the group fails. (Polling, not racing: each step waits for the run to
    // arm its next timer.)
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
    const result = await run;
    expect(clock.now() - start).toBeLessThan(MAX_CRITICAL_SECTION_MS);
    expect(result.run.status).toBe("failed");
    expect(result.lines[0]?.error?.code).toBe("LOCK_LOST");
    expect(result.lines[0]?.error?.message).toContain("may have landed");
    // The lease was abandoned, never released: it ends by expiry, and the lock-delay follows.
    const history = (await lock(key).read({ key })).history;
    expect(history.map((h) => h.transition)).not.toContain("released");
    // The outcome is unknown: the intent stays for recovery.
    expect((await durableIntents("preview", scope)).map((i) => i.key)).toContain(url);

    // Here the runtime cancels an aborted request, so nothing lands late (a real provider may still
    // apply it: the lock-delay is for that, test/engine/write-fencing.test.ts). Once the lease
    // expired and its delay passed, a recovery of the scope resolves the intent from what the
    // provider says.
    await emulatorStub(domain).releaseWrites();
    await configureHost(domain, {});
    await expireLeaseNow(key);
    await runDurableObjectAlarm(rawStub(key));
    const recovered = await engine.recover({
      repository: DEFAULT_REPOSITORY,
      environment: "preview",
      scope,
      wait: true,
    });
    expect(recovered.run.status).toBe("succeeded");
    expect(await durableIntents("preview", scope)).toEqual([]);
    // Nothing orphaned, nothing left owed.
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual([]);
  });
});
