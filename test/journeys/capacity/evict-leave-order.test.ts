/**
 * The order of an eviction's steps (docs/design.md, "Evicting stale scopes"): the write, then the
 * evicted scope's leave (under its lease), then its receipt, then the audit record, then the
 * release. A failure at any point leaves a state the evicted scope's own destroy handles: the lock
 * never names it owner of an entry its receipt no longer lists (a ghost owner no destroy removes).
 */
import { describe, expect, it } from "vitest";
import type { Plan } from "../../../shared/schemas/plan";
import type { LockProvider } from "../../../workers/engine/deps";
import type { ReceiptStore } from "../../../workers/receipts/receipt-store";
import { freshPr } from "../../helpers/engine";
import {
  applyRequest,
  cappedOrigins,
  destroyRequest,
  evictingEngine,
  origin,
  receiptOf,
  setPullRequest,
  wrapParentLocks,
} from "../../helpers/eviction";

/** Parent locks whose first ownership change carrying a removal fails in transport. */
function failFirstLeave(inner: LockProvider): LockProvider {
  let failed = false;
  return wrapParentLocks((t) => ({
    ...t,
    changeOwners: async (r) => {
      if (!failed && r.changes.some((c) => c.action === "remove")) {
        failed = true;
        throw new Error("test: changeOwners transport failure");
      }
      return t.changeOwners(r);
    },
  }))(inner);
}

/** A receipt store whose first write of `scope`'s receipt fails. */
function failFirstReceiptWrite(scope: string) {
  return (inner: ReceiptStore): ReceiptStore => {
    let failed = false;
    return {
      read: (a) => inner.read(a),
      remove: (a, etag) => inner.remove(a, etag),
      listScopes: (f) => inner.listScopes(f),
      write: async (receipt, etag) => {
        if (!failed && receipt.scope === scope) {
          failed = true;
          throw new Error("test: receipt write failed");
        }
        return inner.write(receipt, etag);
      },
    };
  };
}

async function closedAndLive(name: string) {
  const list = await cappedOrigins(name, 2);
  const [closed, live] = [freshPr(), freshPr()];
  for (const s of [closed, live])
    expect((await evictingEngine().apply(applyRequest(list.plan, s))).run.status).toBe("succeeded");
  await setPullRequest(closed, "closed");
  return { ...list, closed, live };
}

/** Another scope takes the evicted URL as a literal line of its own. */
const sameUrl = (line: (id: string, url: string) => Plan["lines"][number], url: string): Plan => ({
  version: 2,
  lines: [line("same", url)],
});

describe("an eviction that fails part way", () => {
  it("the leaves fail after the write: the evicted scope keeps its entry and its ownership, and its destroy removes what another scope re-created and left", async () => {
    const { plan, line, origins, closed } = await closedAndLive("ev-leave");
    const [next, other] = [freshPr(), freshPr()];
    const result = await evictingEngine({ wrapLocks: failFirstLeave }).apply(applyRequest(plan, next));
    expect(result.run.status).toBe("failed");
    // Nothing about the closed scope's receipt changed: it still lists the entry it still owns.
    const receipt = await receiptOf(closed);
    expect(receipt.ledger.map((e) => e.key)).toEqual([origin(closed)]);
    expect(receipt.evictions).toBeUndefined();
    expect(await origins()).not.toContain(origin(closed));

    // Another scope creates the URL again, then is destroyed; the closed scope's destroy follows.
    expect(
      (await evictingEngine().apply(applyRequest(sameUrl(line, origin(closed)), other))).run.status,
    ).toBe("succeeded");
    expect((await evictingEngine().destroy(destroyRequest(other))).run.status).toBe("succeeded");
    expect((await evictingEngine().destroy(destroyRequest(closed))).run.status).toBe("succeeded");
    expect(await origins()).not.toContain(origin(closed));
  });

  it("the receipt write fails after the leave: the evicted scope's destroy never removes the entry another scope now owns", async () => {
    const { plan, line, origins, closed, live } = await closedAndLive("ev-receipt");
    const [next, other] = [freshPr(), freshPr()];
    const result = await evictingEngine({ wrapStore: failFirstReceiptWrite(closed) }).apply(
      applyRequest(plan, next),
    );
    expect(result.run.status).toBe("succeeded");
    expect([...(await origins())].sort()).toEqual([origin(live), origin(next)].sort());
    // Its ledger still names the entry: gone from the provider and no longer its own.
    expect((await receiptOf(closed)).ledger.map((e) => e.key)).toEqual([origin(closed)]);

    // The URL becomes another scope's (the live one made room for it by its own destroy).
    expect((await evictingEngine().destroy(destroyRequest(live))).run.status).toBe("succeeded");
    expect(
      (await evictingEngine().apply(applyRequest(sameUrl(line, origin(closed)), other))).run.status,
    ).toBe("succeeded");
    expect((await evictingEngine().destroy(destroyRequest(closed))).run.status).toBe("succeeded");
    expect([...(await origins())].sort()).toEqual([origin(closed), origin(next)].sort());
  });
});
