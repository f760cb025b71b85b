/**
 * The claims are the parent's check before the write (docs/design.md, "One group write, one
 * fence"): no other round trip may come between them and the send. Eviction checks each evicted
 * scope's lease by a round trip; made after the claims, a parent force-released during it (no
 * lock-delay) let the write go out over the next holder's.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { LockProvider } from "../../../workers/engine/deps";
import { lockStub } from "../../../workers/locks/lock-target";
import { appLockKey, freshPr } from "../../helpers/engine";
import { applyRequest, cappedOrigins, evictingEngine, setPullRequest } from "../../helpers/eviction";
import { overriding } from "../../helpers/lock-overrides";

describe("the evicted leases are checked before the claims", () => {
  it("a parent force-released while an evicted scope's lease is checked: no provider write is sent", async () => {
    const { domain, plan } = await cappedOrigins("claims-last", 1);
    const closed = freshPr();
    expect((await evictingEngine().apply(applyRequest(plan, closed))).run.status).toBe("succeeded");
    await setPullRequest(closed, "closed");
    const key = await appLockKey(domain);
    let forced = false;
    // The evicted scope's lease check is a renewal of its scope lock: the admin acts right then.
    const wrapLocks = (inner: LockProvider): LockProvider => ({
      ...inner,
      scope: (repo, environment, scope) => {
        const target = inner.scope(repo, environment, scope);
        if (scope !== closed) return target;
        return overriding(target, {
          renew: async (req) => {
            if (!forced) {
              forced = true;
              await lockStub(env, key).forceRelease({ key, reason: "test", actor: "admin" });
            }
            return target.renew(req);
          },
        });
      },
    });
    const patches: string[] = [];
    const wrapFetch =
      (inner: typeof fetch): typeof fetch =>
      async (input, init) => {
        if ((init?.method ?? "GET") === "PATCH") patches.push(String(input));
        return inner(input, init);
      };
    const result = await evictingEngine({ wrapLocks, wrapFetch }).apply(applyRequest(plan, freshPr()));
    expect(forced).toBe(true);
    // The claims after the check find the lease gone: nothing is written over the next holder.
    expect(patches).toEqual([]);
    expect(result.run.status).toBe("failed");
  });
});
