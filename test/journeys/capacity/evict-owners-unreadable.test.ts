/**
 * Eviction when the list's owners cannot be read (docs/design.md, "Evicting stale scopes";
 * "Lists at their cap": gathering the detail never changes the decision): one owning scope's
 * unreadable receipt makes eviction evict nothing, with a warning, and the run is refused
 * LIST_FULL with the counts alone, as without eviction; never INTERNAL.
 */
import { describe, expect, it } from "vitest";
import type { ReceiptStore } from "../../../workers/receipts/receipt-store";
import { freshPr } from "../../helpers/engine";
import {
  applyRequest,
  cappedOrigins,
  evictingEngine,
  origin,
  scopeLockFree,
  setPullRequest,
  twoAppliedScopes,
} from "../../helpers/eviction";

/** The receipt store, with every read of `scope`'s receipt failing. */
const unreadable =
  (scope: string) =>
  (inner: ReceiptStore): ReceiptStore => ({
    write: (r, etag) => inner.write(r, etag),
    remove: (a, etag) => inner.remove(a, etag),
    listScopes: (f) => inner.listScopes(f),
    read: async (a) => {
      if (a.scope === scope) throw new Error("test: receipt read failed");
      return inner.read(a);
    },
  });

describe("eviction with an owner's receipt unreadable", () => {
  it("the live scope's receipt unreadable: nothing evicted, a warning, and LIST_FULL with the counts alone", async () => {
    const { plan, origins } = await cappedOrigins("ev-ownfail", 2);
    const [closed, live] = await twoAppliedScopes(plan);
    const next = freshPr();
    await setPullRequest(closed, "closed");

    const result = await evictingEngine({ wrapStore: unreadable(live) }).apply(applyRequest(plan, next));
    const { warnings } = result;
    expect(result.run.error?.code).toBe("LIST_FULL");
    expect(result.run.error?.detail).toMatchObject({ cap: 2, entries: 2, after: 3 });
    expect(result.run.error?.detail).not.toHaveProperty("scopes");
    expect(warnings.some((w) => w.includes("eviction: none on") && w.includes("owners were not read"))).toBe(
      true,
    );
    // Read once under the lease: the choice of scopes and their entries' ownership share the failure.
    expect(warnings.filter((w) => w.includes("eviction: none on"))).toHaveLength(1);
    expect([...(await origins())].sort()).toEqual([origin(closed), origin(live)].sort());
    expect(await scopeLockFree(closed)).toBe(true);
  });

  it("control: every receipt readable, the same run evicts the closed scope and succeeds", async () => {
    const { plan, origins } = await cappedOrigins("ev-ownfail-ctl", 2);
    const [closed, live] = await twoAppliedScopes(plan);
    const next = freshPr();
    await setPullRequest(closed, "closed");
    const result = await evictingEngine().apply(applyRequest(plan, next));
    expect(result.run.status).toBe("succeeded");
    expect([...(await origins())].sort()).toEqual([origin(live), origin(next)].sort());
  });
});
