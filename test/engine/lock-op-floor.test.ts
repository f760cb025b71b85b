/**
 * The lock round trips of a warm group write (issue 24 item 3, issue 29 item 3; docs/performance.md "Where a run's
 * time goes"): a scope's three new lines on a known Auth0 application. The parent grant hands over
 * the ownership view, the claims renew the lease (so no fencing renewal before the write), and the
 * parent's release is its check after the write (docs/design.md, "Lease protocol").
 */
import { describe, expect, it } from "vitest";
import type { LockProvider } from "../../workers/engine/deps";
import type { LockTarget } from "../../workers/locks/lock-target";
import { apply, testApp } from "../helpers/app";
import { freshAuth0Domain } from "../helpers/emulators";
import { freshPr } from "../helpers/engine";
import { previewPlan, seedTenant } from "../helpers/plans";

const calls: string[] = [];

function recorded(target: LockTarget, kind: string): LockTarget {
  return new Proxy(target, {
    get(t, prop) {
      const value: unknown = Reflect.get(t, prop, t);
      if (typeof value !== "function" || typeof prop !== "string") return value;
      return (...args: unknown[]) => {
        calls.push(`${kind} ${prop}`);
        return value.apply(t, args);
      };
    },
  });
}

const wrapLocks = (inner: LockProvider): LockProvider => ({
  scope: (...args) => recorded(inner.scope(...args), "scope"),
  parent: async (identity) => recorded(await inner.parent(identity), "parent"),
  holdsScope: (...args) => {
    calls.push("holdsScope");
    return inner.holdsScope(...args);
  },
});

const app = testApp({ engine: { wrapLocks } });

describe("lock operations of a warm group write", () => {
  it("a second scope's three lines on a known application: the parent lock's calls, and the scope's", async () => {
    const domain = freshAuth0Domain("lockops");
    await seedTenant(domain);
    await apply(app, "preview", freshPr(), previewPlan(domain)); // the object's one-time work
    calls.length = 0;
    const result = await apply(app, "preview", freshPr(), previewPlan(domain));
    expect(result.lines.map((l) => l.result)).toEqual(["created", "created", "created"]);
    expect(calls).toEqual([
      "scope acquire",
      // The group's intents are made durable by a receipt put, not a lock call (issue 29 item 3).
      // Grant with the ownership view, taking what others queued (write combining) in its step.
      "parent acquireOrCombine",
      // The scope lease checked by a round trip before the claims (docs/design.md, "Ownership").
      "scope renew",
      // The claims, renewing the lease: the fencing check right before the write.
      "parent changeOwners",
      // After the write: the scope lease by a round trip (its release comes after the result)...
      "scope renew",
      // ...and the parent's release, which answers whether the token was still live: its check.
      "parent release",
      "scope release",
    ]);
    // The run's counts stop at its result, before the scope release. Before issue 24 item 3 they
    // were 10 (an ownership read of its own, and a parent renewal right before the write); 9 with
    // the scope lock's putIntents; 8 since issue 29 item 3, whose intents are a receipt put again;
    // 7 since the parent release is the check after the write (no renewal of its own); 6 since
    // the grant takes the queue (no takeQueued).
    expect(result.counts?.lockOps).toBe(6);
    expect(result.counts?.storageWrites).toBe(2);
  });

  it("the first group on a new application adds the object's one-time work, and only that", async () => {
    const domain = freshAuth0Domain("lockops-new");
    await seedTenant(domain);
    calls.length = 0;
    const result = await apply(app, "preview", freshPr(), previewPlan(domain));
    expect(result.lines.map((l) => l.result)).toEqual(["created", "created", "created"]);
    const parent = calls.filter((c) => c.startsWith("parent "));
    expect(parent).toEqual([
      "parent acquireOrCombine",
      // The grant's view says ownership was never rebuilt: rebuilt from the receipts, read again.
      "parent changeOwners",
      "parent owners",
      // The first look at each of the three lists: what is there, marked foreign, read again.
      "parent owners",
      "parent changeOwners",
      "parent owners",
      "parent changeOwners",
      "parent owners",
      "parent changeOwners",
      "parent owners",
      "parent changeOwners",
      // The release is the check after the write.
      "parent release",
    ]);
    // With the scope lease's acquire and its two round trips; 19 before issue 24 item 3, 18 with
    // the scope lock's putIntents, 17 since issue 29 item 3 (a receipt put instead), 16 since the
    // release is the parent's check after the write, 15 since the grant takes the queue.
    expect(result.counts?.lockOps).toBe(15);
  });
});
