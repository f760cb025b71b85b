/**
 * An admin's orphan removal writes under the object's parent lease and is fenced like a run's
 * write (docs/design.md, "Lease protocol"): a write whose outcome is unknown ends the lease so that
 * the lock-delay keeps the next holder out while a late landing may still come (a quiet release
 * while the lease is held, else by expiry); and a lease lost while the write was in flight means the removal is not recorded as done
 * (its audit intent is completed as `unknown`).
 * Lost answers are the emulator's knob `loseWriteAnswers`; a write in flight is `holdWrites`.
 */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { systemClock } from "../../../shared/clock";
import { SponsonError } from "../../../shared/errors";
import type { OrphanRemovalAudit } from "../../../workers/audit/orphan-audit";
import { ORPHAN_AUDIT_PREFIX } from "../../../workers/lock-views/owned-objects";
import {
  auth0Client,
  configureHost,
  emulatorStub,
  freshAuth0Domain,
  seedAuth0Tenant,
} from "../../helpers/emulators";
import { appIdentity, appLockKey, freshPr, holdAppLock } from "../../helpers/engine";
import { endLockDelay, stub as lock } from "../../helpers/locks";
import { APP_CLIENT, auth0Plan, seedTenant, TEST_M2M } from "../../helpers/plans";
import { DEFAULT_REPOSITORY } from "../../helpers/repositories";
import { testEngine } from "../../helpers/test-engine";

const BY_HAND = "https://someone.preview.example.com/callback";
const domains: string[] = [];

afterEach(async () => {
  for (const domain of domains.splice(0)) await configureHost(domain, {});
});

/** An application a scope owns an entry on, and an entry added by hand since: an orphan. */
async function world() {
  const domain = freshAuth0Domain();
  domains.push(domain);
  await seedTenant(domain);
  const scope = freshPr();
  const plan = auth0Plan(domain, [
    { id: "cb", op: "auth0.callbackUrl", url: "https://{scope}.preview.example.com/callback" },
  ]);
  // Backoff sleeps return at once: the adapter's retries are not what is measured here.
  const engine = testEngine({
    clock: { ...systemClock, sleep: async () => {} },
  });
  const applied = await engine.apply({
    repository: DEFAULT_REPOSITORY,
    environment: "preview",
    scope,
    plan,
    wait: true,
  });
  expect(applied.run.status).toBe("succeeded");
  const callbacks = async () => (await auth0Client(domain, APP_CLIENT))?.callbacks ?? [];
  await seedAuth0Tenant(domain, {
    m2m: TEST_M2M,
    clients: { [APP_CLIENT]: { callbacks: [...(await callbacks()), BY_HAND] } },
  });
  const remove = () =>
    engine.removeOrphan({
      parent: appIdentity(domain),
      op: "auth0.callbackUrl",
      key: BY_HAND,
      reason: "added by hand",
      actor: "admin",
    });
  return { domain, key: await appLockKey(domain), remove, callbacks };
}

async function refusal(promise: Promise<unknown>): Promise<SponsonError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof SponsonError) return err;
    throw err;
  }
  throw new Error("expected a refusal");
}

async function removalsOf(domain: string): Promise<OrphanRemovalAudit[]> {
  const audit = await env.RECEIPTS.list({ prefix: ORPHAN_AUDIT_PREFIX });
  const records = await Promise.all(
    audit.objects.map(async (o) => (await (await env.RECEIPTS.get(o.key))?.json()) as OrphanRemovalAudit),
  );
  return records.filter((r) => r.key === BY_HAND && r.parent === appIdentity(domain));
}

describe("an orphan removal's write is fenced", () => {
  it("a write with an unknown outcome ends the lease quietly: the next holder waits out the lock-delay", async () => {
    const w = await world();
    // Every attempt lands and loses its answer: the outcome is unknown.
    await configureHost(w.domain, { loseWriteAnswers: 4 });
    const err = await refusal(w.remove());
    expect(err.code).toBe("LOCK_LOST");
    expect(err.detail).toMatchObject({ outcome: "unknown" });
    expect(await w.callbacks()).not.toContain(BY_HAND);
    // Its intent is completed as unknown, never as done (docs/design.md, "Audit before acting").
    expect(await removalsOf(w.domain)).toEqual([
      expect.objectContaining({ status: "unknown", errorCode: "LOCK_LOST" }),
    ]);
    // Released quietly (the lease was held: no answer is not a lost lease): the lock-delay follows.
    const state = await lock(w.key).read({ key: w.key });
    expect(state.held).toBe(false);
    expect(state.history.at(-1)).toMatchObject({
      transition: "released",
      note: expect.stringMatching(/may still land/),
    });
    await expect(holdAppLock(w.domain, "run-next")).rejects.toThrow(/lock-delay/);
    await endLockDelay(w.key);
    await (await holdAppLock(w.domain, "run-next")).release();
  });

  it("a lease lost while the write is in flight: the removal is not recorded as done", async () => {
    const w = await world();
    await configureHost(w.domain, { holdWrites: 1 });
    const removing = w.remove();
    for (let i = 0; (await emulatorStub(w.domain).stats()).heldWrites < 1; i++) {
      if (i > 10_000) throw new Error("the write never arrived");
      await scheduler.wait(1);
    }
    await lock(w.key).forceRelease({ key: w.key, reason: "test", actor: "admin" });
    await emulatorStub(w.domain).releaseWrites();
    const err = await refusal(removing);
    expect(err.code).toBe("LOCK_LOST");
    expect(err.detail).toMatchObject({ outcome: "unknown" });
    // It landed, yet nothing says it was done under a lease held all through it.
    expect(await w.callbacks()).not.toContain(BY_HAND);
    // Its intent is completed as unknown, never as done (docs/design.md, "Audit before acting").
    expect(await removalsOf(w.domain)).toEqual([
      expect.objectContaining({ status: "unknown", errorCode: "LOCK_LOST" }),
    ]);
  });
});
