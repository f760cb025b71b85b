/**
 * The parent release as the check after a write (docs/design.md, "Lease protocol", "Fencing around
 * a write"): where no token-checked parent call follows a group's write, its release is that call.
 * The release answers whether the lease was live when it arrived; "not live" (expired, taken away)
 * leaves the write's outcome unknown exactly as a refused renewal did: LOCK_LOST, intents kept, the
 * lock not taken again by the run, and after an expiry the lock-delay keeps the next holder out.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { ReleaseOutcome } from "../../shared/schemas/lock";
import type { RunResult } from "../../shared/schemas/run";
import type { LockProvider } from "../../workers/engine/deps";
import { type LockTarget, lockStub } from "../../workers/locks/lock-target";
import { auth0Client, freshAuth0Domain } from "../helpers/emulators";
import { appLockKey, freshPr, receipt } from "../helpers/engine";
import { overriding } from "../helpers/lock-overrides";
import { expireLeaseJustNow } from "../helpers/locks";
import { APP_CLIENT, previewPlan, seedTenant } from "../helpers/plans";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { testEngine } from "../helpers/test-engine";

const request = (scope: string) => ({ repository: DEFAULT_REPOSITORY, environment: "preview", scope });

/** Records the parent lock's calls, and what each release answered. */
function recordingParents(calls: string[], releases: ReleaseOutcome[]) {
  return (inner: LockProvider): LockProvider => ({
    ...inner,
    parent: async (identity) => {
      const target: LockTarget = await inner.parent(identity);
      const recorded = new Proxy(target, {
        get(t, prop) {
          const value: unknown = Reflect.get(t, prop, t);
          if (typeof value !== "function" || typeof prop !== "string") return value;
          return (...args: unknown[]) => {
            calls.push(prop);
            return value.apply(t, args);
          };
        },
      });
      return overriding(recorded, {
        release: async (req) => {
          const answer = await recorded.release(req);
          if (answer.ok) releases.push(answer.value);
          return answer;
        },
      });
    },
  });
}

/** Once the provider answered a write, `lose` takes the application's lease away. */
function afterWrite(domain: string, lose: (key: string) => Promise<void>) {
  return (inner: typeof fetch): typeof fetch =>
    async (input, init) => {
      const res = await inner(input, init);
      if ((init?.method ?? "GET") === "PATCH") await lose(await appLockKey(domain));
      return res;
    };
}

/** A known application: another scope applied there first (the object's one-time work is done). */
async function knownApplication(): Promise<string> {
  const domain = freshAuth0Domain("release-check");
  await seedTenant(domain);
  // The plan registers the tenant's connection, which an engine reads when it is made.
  const plan = previewPlan(domain);
  const first: RunResult = await testEngine().apply({ ...request(freshPr()), plan });
  expect(first.run.status).toBe("succeeded");
  return domain;
}

describe("the parent release as the check after a write", () => {
  it("a scope's new lines: no renewal after the write, the release answers the lease was live", async () => {
    const domain = await knownApplication();
    const [calls, releases] = [[] as string[], [] as ReleaseOutcome[]];
    const plan = previewPlan(domain);
    const result = await testEngine({ wrapLocks: recordingParents(calls, releases) }).apply({
      ...request(freshPr()),
      plan,
    });
    expect(result.run.status).toBe("succeeded");
    expect(calls).toEqual(["acquireOrCombine", "changeOwners", "release"]);
    expect(releases).toEqual([expect.objectContaining({ released: true, reason: "released" })]);
  });

  it("taken away by an admin while the write was in flight: the release is refused, outcome unknown, intents kept", async () => {
    const domain = await knownApplication();
    const [calls, releases] = [[] as string[], [] as ReleaseOutcome[]];
    const scope = freshPr();
    const plan = previewPlan(domain);
    const result = await testEngine({
      wrapLocks: recordingParents(calls, releases),
      wrapFetch: afterWrite(domain, async (key) => {
        await lockStub(env, key).forceRelease({ key, reason: "test: lost in flight", actor: "admin" });
      }),
    }).apply({ ...request(scope), plan });
    expect(result.run.status).toBe("failed");
    expect(result.lines[0]?.error?.code).toBe("LOCK_LOST");
    expect(result.lines[0]?.error?.message).toContain("may have landed");
    // The release was sent (it is the check) and said the lease was not this run's any more.
    expect(releases).toEqual([expect.objectContaining({ released: false, reason: "not-held" })]);
    // The run does not take that lock again (its rollback leaves the intents for recovery).
    expect(calls.filter((c) => c === "acquireOrCombine" || c === "acquire")).toHaveLength(1);
    expect((await receipt("preview", scope)).intents).toHaveLength(3);
  });

  it("expired at the object while the write was in flight: released late, outcome unknown, the lock-delay keeps the next run out", async () => {
    const domain = await knownApplication();
    const [calls, releases] = [[] as string[], [] as ReleaseOutcome[]];
    const scope = freshPr();
    const key = await appLockKey(domain);
    const plan = previewPlan(domain);
    const result = await testEngine({
      wrapLocks: recordingParents(calls, releases),
      // The holder's own deadline is far away: only the object knows the lease ran out.
      wrapFetch: afterWrite(domain, expireLeaseJustNow),
    }).apply({ ...request(scope), plan });
    expect(result.run.status).toBe("failed");
    expect(result.lines[0]?.error?.code).toBe("LOCK_LOST");
    expect(result.lines[0]?.error?.message).toContain("may have landed");
    expect(releases).toEqual([expect.objectContaining({ released: true, reason: "released-expired" })]);
    expect((await receipt("preview", scope)).intents).toHaveLength(3);
    // The write did land; a newcomer must not read the object before a late landing could.
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toContain(
      `https://${scope}.preview.example.com/callback`,
    );
    const next = await lockStub(env, key).acquire({ key, holder: "run-next", ttlMs: 30_000 });
    expect(next).toMatchObject({ ok: false, error: { code: "LOCK_HELD" } });
    expect(next.ok ? "" : next.error.message).toContain("lock-delay");
  });

  it("control: the same write with the lease left alone succeeds and the lock is free at once", async () => {
    const domain = await knownApplication();
    const key = await appLockKey(domain);
    const plan = previewPlan(domain);
    const result = await testEngine({ wrapFetch: afterWrite(domain, async () => {}) }).apply({
      ...request(freshPr()),
      plan,
    });
    expect(result.run.status).toBe("succeeded");
    const next = await lockStub(env, key).acquire({ key, holder: "run-next", ttlMs: 30_000 });
    expect(next.ok).toBe(true);
  });
});
