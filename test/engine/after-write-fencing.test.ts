/**
 * The parent's check after a write is the token-checked call that follows it anyway, where one
 * does (docs/design.md, "Lease protocol"): the ownership a removal gives up, or a combining
 * holder's report. A lease lost while the write was in flight still ends the group LOCK_LOST with
 * an unknown outcome, its intents kept, its lease abandoned, and nothing of the call recorded.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { RunResult } from "../../shared/schemas/run";
import type { LockProvider } from "../../workers/engine/deps";
import { type LockTarget, lockStub } from "../../workers/locks/lock-target";
import type { EngineOverrides } from "../../workers/wiring/wire";
import { auth0Client, freshAuth0Domain } from "../helpers/emulators";
import { appLockKey, freshPr, holdAppLock, receipt, untilWaiters } from "../helpers/engine";
import { overriding } from "../helpers/lock-overrides";
import { APP_CLIENT, previewPlan, seedTenant } from "../helpers/plans";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { testEngine } from "../helpers/test-engine";

function recordingLocks(calls: string[]) {
  const recorded = (target: LockTarget, kind: string): LockTarget =>
    new Proxy(target, {
      get(t, prop) {
        const value: unknown = Reflect.get(t, prop, t);
        if (typeof value !== "function" || typeof prop !== "string") return value;
        return (...args: unknown[]) => {
          calls.push(`${kind} ${prop}`);
          return value.apply(t, args);
        };
      },
    });
  return (inner: LockProvider): LockProvider => ({
    scope: (...args) => recorded(inner.scope(...args), "scope"),
    parent: async (identity) => recorded(await inner.parent(identity), "parent"),
    holdsScope: inner.holdsScope,
  });
}

/** An admin takes the application's lock away as soon as the provider answered a write. */
function loseParentAfterWrite(domain: string) {
  return (inner: typeof fetch): typeof fetch =>
    async (input, init) => {
      const res = await inner(input, init);
      if ((init?.method ?? "GET") === "PATCH") {
        const key = await appLockKey(domain);
        await lockStub(env, key).forceRelease({ key, reason: "test: lost in flight", actor: "admin" });
      }
      return res;
    };
}

const request = (scope: string) => ({ repository: DEFAULT_REPOSITORY, environment: "preview", scope });

function engine(overrides: EngineOverrides = {}) {
  return testEngine(overrides);
}

/** A known application with a scope whose three lines it owns alone. */
async function appliedScope(): Promise<{ domain: string; scope: string }> {
  const domain = freshAuth0Domain();
  await seedTenant(domain);
  const scope = freshPr();
  // The plan registers the tenant's connection, which an engine reads when it is made.
  const plan = previewPlan(domain);
  const applied: RunResult = await engine().apply({ ...request(scope), plan });
  expect(applied.run.status).toBe("succeeded");
  return { domain, scope };
}

async function ownersOnApp(domain: string): Promise<string[]> {
  const key = await appLockKey(domain);
  return (await lockStub(env, key).ownership({ key })).items.flatMap((i) => i.owners);
}

describe("the parent's check after a write, merged into the call that follows it", () => {
  it("a destroy's removal write: the ownership it gives up is the check after it", async () => {
    const { domain, scope } = await appliedScope();
    const calls: string[] = [];
    const destroyed = await engine({ wrapLocks: recordingLocks(calls) }).destroy(request(scope));
    expect(destroyed.run.status).toBe("succeeded");
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual([]);
    expect(await ownersOnApp(domain)).toEqual([]);
    expect(calls.filter((c) => c.startsWith("parent "))).toEqual([
      // The grant took the queue (nobody waited).
      "parent acquireOrCombine",
      // No ownership change before a removal's write: its fencing check is a renewal.
      "parent renew",
      // The leaves, after the write: token-checked, so the parent's check after it.
      "parent changeOwners",
      "parent release",
    ]);
  });

  it("lost while the removal write was in flight: LOCK_LOST, outcome unknown, intents kept, lease abandoned", async () => {
    const { domain, scope } = await appliedScope();
    const calls: string[] = [];
    const destroyed = await engine({
      wrapLocks: recordingLocks(calls),
      wrapFetch: loseParentAfterWrite(domain),
    }).destroy(request(scope));
    expect(destroyed.run.status).toBe("failed");
    for (const line of destroyed.lines) {
      expect(line.error?.code).toBe("LOCK_LOST");
      expect(line.error?.message).toContain("may have landed");
    }
    // The write landed; the ownership it gave up was not recorded (the call was refused).
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual([]);
    expect(await ownersOnApp(domain)).toHaveLength(3);
    expect((await receipt("preview", scope)).intents.map((i) => i.action)).toEqual([
      "remove",
      "remove",
      "remove",
    ]);
    // Abandoned: no release (it ends by expiry), and the run does not take that lock again.
    const parent = calls.filter((c) => c.startsWith("parent "));
    expect(parent).not.toContain("parent release");
    expect(parent.filter((c) => c.endsWith("acquireOrCombine") || c.endsWith("acquire"))).toHaveLength(1);
  });

  it("a combining holder's write lost in flight: its report is refused, the outcome unknown, the waiter's entry kept", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const plan = previewPlan(domain);
    const calls: string[] = [];
    const holder = engine({ wrapLocks: recordingLocks(calls), wrapFetch: loseParentAfterWrite(domain) });
    const waiter = engine();
    const [a, b] = [freshPr(), freshPr()];
    const key = await appLockKey(domain);
    const held = await holdAppLock(domain);
    const first = holder.apply({ ...request(a), plan, wait: true, waitTimeoutMs: 30_000 });
    await untilWaiters(key, 1);
    const second = waiter.apply({ ...request(b), plan, wait: true, waitTimeoutMs: 30_000 });
    await untilWaiters(key, 2);
    await held.release();
    const ra = await first;
    expect(ra.run.status).toBe("failed");
    expect(ra.lines[0]?.error?.code).toBe("LOCK_LOST");
    expect(ra.lines[0]?.error?.message).toContain("may have landed");
    // The report after the write was its check: refused, and the lease abandoned, not released.
    const parent = calls.filter((c) => c.startsWith("parent "));
    // Handed the lock after its wait, its claim took the waiter's changes (no takeQueued).
    expect(parent).toContain("parent claim");
    expect(parent).not.toContain("parent takeQueued");
    expect(parent.at(-1)).toBe("parent reportCombined");
    expect((await receipt("preview", a)).intents).toHaveLength(3);
    // The waiter's changes were taken and never reported: it writes them itself, and nothing is lost.
    const rb = await second;
    expect(rb.run.status).toBe("succeeded");
    const callbacks = (await auth0Client(domain, APP_CLIENT))?.callbacks ?? [];
    expect(callbacks).toContain(`https://${b}.preview.example.com/callback`);
    expect(callbacks).toContain(`https://${a}.preview.example.com/callback`);
  });

  it("the scope lost before the leaves, the parent with it: the write's outcome is still unknown", async () => {
    const { domain, scope } = await appliedScope();
    const calls: string[] = [];
    let patched = false;
    let scopeChecksAfter = 0;
    const key = await appLockKey(domain);
    // An admin takes both locks away right before the scope's check before the leaves (the
    // second scope renewal after the write): the parent's check after the write is still to come.
    const loseBoth = (inner: LockProvider): LockProvider => {
      const recorded = recordingLocks(calls)(inner);
      return {
        ...recorded,
        scope: (...args) => {
          const target = recorded.scope(...args);
          return overriding(target, {
            renew: async (req) => {
              if (patched && ++scopeChecksAfter === 2) {
                await lockStub(env, key).forceRelease({ key, reason: "test", actor: "admin" });
                await lockStub(env, target.key).forceRelease({
                  key: target.key,
                  reason: "test",
                  actor: "admin",
                });
              }
              return target.renew(req);
            },
          });
        },
      };
    };
    const sawPatch =
      (inner: typeof fetch): typeof fetch =>
      async (input, init) => {
        const res = await inner(input, init);
        if ((init?.method ?? "GET") === "PATCH") patched = true;
        return res;
      };
    const destroyed = await engine({ wrapLocks: loseBoth, wrapFetch: sawPatch }).destroy(request(scope));
    expect(scopeChecksAfter).toBeGreaterThanOrEqual(2);
    expect(destroyed.run.status).toBe("failed");
    expect(destroyed.lines[0]?.error?.code).toBe("LOCK_LOST");
    expect(destroyed.lines[0]?.error?.message).toContain("may have landed");
    expect(calls.filter((c) => c.startsWith("parent "))).not.toContain("parent release");
    expect(await ownersOnApp(domain)).toHaveLength(3);
  });
});
