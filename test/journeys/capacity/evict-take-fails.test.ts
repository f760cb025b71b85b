/**
 * A stale scope that cannot be taken cleanly (docs/design.md, "Evicting stale scopes"): a failed
 * read of its receipt under its lease gives the lease back at once (never left renewing until the
 * evicting run ends), and a lock that refuses for any other reason than being held skips that
 * scope like a busy one, instead of failing the run that wanted room.
 */
import { describe, expect, it } from "vitest";
import { SponsonError } from "../../../shared/errors";
import type { ReceiptStore } from "../../../workers/receipts/receipt-store";
import { freshPr } from "../../helpers/engine";
import {
  ageRuns,
  applyRequest,
  cappedOrigins,
  evictingEngine,
  origin,
  receiptOf,
  scopeLockFree,
  setPullRequest,
  twoAppliedScopes,
  wrapScopeLocks,
} from "../../helpers/eviction";

/** Reads of `scope`'s receipt fail after the first one (the owners read that ranks it). */
function failReadsAfterFirst(scope: string) {
  return (inner: ReceiptStore): ReceiptStore => {
    let reads = 0;
    return {
      write: (r, etag) => inner.write(r, etag),
      remove: (a, etag) => inner.remove(a, etag),
      listScopes: (f) => inner.listScopes(f),
      read: async (a) => {
        if (a.scope === scope && ++reads > 1) throw new Error("test: receipt read failed");
        return inner.read(a);
      },
    };
  };
}

describe("a stale scope that cannot be taken cleanly", () => {
  it("its receipt read under its lease fails: the run is answered and the scope's lock is free right after", async () => {
    const { plan, origins } = await cappedOrigins("ev-readfail", 2);
    const [closed, live] = await twoAppliedScopes(plan);
    const next = freshPr();
    await setPullRequest(closed, "closed");
    const result = await evictingEngine({ wrapStore: failReadsAfterFirst(closed) }).apply(
      applyRequest(plan, next),
    );
    expect(await scopeLockFree(closed)).toBe(true);
    // Skipped like a busy scope: without its room the run is refused as without eviction.
    expect(result.run.error?.code).toBe("LIST_FULL");
    expect([...(await origins())].sort()).toEqual([origin(closed), origin(live)].sort());
  });

  it("its lock answers LOCK_UNAVAILABLE: that scope is skipped and the next stale one evicted", async () => {
    const { plan, origins } = await cappedOrigins("ev-unavail", 2);
    const [closed, idle] = await twoAppliedScopes(plan);
    const next = freshPr();
    await setPullRequest(closed, "closed");
    await ageRuns(idle, 10);
    const wrapLocks = wrapScopeLocks((t, scope) =>
      scope !== closed
        ? t
        : {
            ...t,
            acquire: async () => {
              throw new SponsonError("LOCK_UNAVAILABLE", "test: the lock is overloaded");
            },
          },
    );
    const result = await evictingEngine({ wrapLocks }).apply(applyRequest(plan, next));
    expect(result.run.status).toBe("succeeded");
    expect([...(await origins())].sort()).toEqual([origin(closed), origin(next)].sort());
    expect((await receiptOf(idle)).evictions).toMatchObject([{ reason: "idle" }]);
    expect((await receiptOf(closed)).evictions).toBeUndefined();
  });
});
