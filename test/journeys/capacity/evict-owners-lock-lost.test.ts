/**
 * Eviction reads who holds the full list under the parent lease; a failed read of their receipts
 * evicts nothing and refuses LIST_FULL with the counts (docs/design.md, "Evicting stale scopes").
 * The parent lease itself lost at that read is another matter: the run has lost its lock, and
 * saying the list is full (and what to destroy) would be untrue.
 */
import { describe, expect, it } from "vitest";
import { freshPr } from "../../helpers/engine";
import {
  applyRequest,
  cappedOrigins,
  evictingEngine,
  setPullRequest,
  twoAppliedScopes,
  wrapParentLocks,
} from "../../helpers/eviction";

describe("the parent lease lost while eviction reads the list's owners", () => {
  it("the run fails LOCK_LOST, not LIST_FULL, and nothing is written", async () => {
    const { plan, origins } = await cappedOrigins("ev-owners-lost", 2);
    const [closed] = await twoAppliedScopes(plan);
    await setPullRequest(closed, "closed");
    const before = [...(await origins())].sort();
    let asked = 0;
    const wrapLocks = wrapParentLocks((target) => ({
      ...target,
      // The lease taken away (an operator's force-release) as the owners are read.
      owners: async () => {
        asked += 1;
        return {
          ok: false,
          error: { code: "LOCK_LOST", message: "test: the lease was taken away" },
        } as never;
      },
    }));
    const result = await evictingEngine({ wrapLocks }).apply(applyRequest(plan, freshPr()));
    expect(asked).toBeGreaterThan(0);
    expect(result.run.error?.code).toBe("LOCK_LOST");
    expect([...(await origins())].sort()).toEqual(before);
  });
});
