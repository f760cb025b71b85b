/**
 * Eviction tries a stale scope's lease without waiting (docs/design.md, "Evicting stale scopes");
 * when that try's answer is lost after the object granted it, the client gives the grant back
 * ("Lease protocol": a lost answer is given back). Without that, nobody renews or releases it, and
 * the stale scope's own next run is refused LOCK_HELD naming the evicting run until the lease's TTL
 * and the lock-delay after it have passed.
 */
import { describe, expect, it } from "vitest";
import { freshPr } from "../../helpers/engine";
import {
  applyRequest,
  cappedOrigins,
  destroyRequest,
  evictingEngine,
  origin,
  setPullRequest,
  twoAppliedScopes,
  wrapScopeLocks,
} from "../../helpers/eviction";

describe("a stale scope's lease whose grant's answer is lost", () => {
  it("is given back: the scope's own next run is not refused LOCK_HELD", async () => {
    const { plan, origins } = await cappedOrigins("ev-lost", 2);
    const [closed, live] = await twoAppliedScopes(plan);
    const next = freshPr();
    await setPullRequest(closed, "closed");
    let lost = 0;
    const wrapLocks = wrapScopeLocks((t, scope) =>
      scope !== closed
        ? t
        : {
            ...t,
            // The object grants, the answer never comes back (once: the give-back gets through).
            acquire: async (req) => {
              const answer = await t.acquire(req);
              if (lost++ === 0) throw new Error("Network connection lost.");
              return answer;
            },
          },
    );
    const result = await evictingEngine({ wrapLocks }).apply(applyRequest(plan, next));
    // The try failed, so that scope was skipped: no room, refused as without eviction.
    expect(lost).toBeGreaterThan(0);
    expect(result.run.error?.code).toBe("LIST_FULL");
    expect([...(await origins())].sort()).toEqual([origin(closed), origin(live)].sort());
    // The closed scope's own destroy, not waiting, takes its lock at once.
    const destroyed = await evictingEngine().destroy({ ...destroyRequest(closed), wait: false });
    expect(destroyed.run.error ?? null).toBeNull();
    expect(destroyed.run.status).toBe("succeeded");
  });
});
