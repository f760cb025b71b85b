/**
 * The order of an eviction's steps (docs/design.md, "Evicting stale scopes"): the write, then the
 * evicted scope's receipt (its entries out of the ledger, a remove intent for each), only then its
 * leave (under its lease), then its receipt without those intents, the audit record, the release.
 * A failure at any point leaves a state the evicted scope's own runs handle: the lock names it owner
 * of an entry exactly while its ledger or an intent names it (never a ghost owner no destroy
 * removes, never a ledger entry the lock no longer backs).
 */
import { describe, expect, it } from "vitest";
import type { Plan } from "../../../shared/schemas/plan";
import type { LockProvider } from "../../../workers/engine/deps";
import type { ReceiptStore } from "../../../workers/receipts/receipt-store";
import { StepClock } from "../../helpers/clock";
import { freshPr } from "../../helpers/engine";
import {
  applyRequest,
  cappedOrigins,
  destroyRequest,
  evictingEngine,
  origin,
  originOwners,
  receiptOf,
  setPullRequest,
  wrapParentLocks,
} from "../../helpers/eviction";

const DAY_MS = 24 * 60 * 60 * 1000;

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
  it("the leaves fail after the write: the evicted scope keeps its ownership under a remove intent, and its destroy removes what another scope re-created and left", async () => {
    const { plan, line, origins, closed, domain } = await closedAndLive("ev-leave");
    const [next, other] = [freshPr(), freshPr()];
    const result = await evictingEngine({ wrapLocks: failFirstLeave }).apply(applyRequest(plan, next));
    expect(result.run.status).toBe("failed");
    // The receipt recorded the eviction before the leave was tried: the entry is out of the
    // ledger, and a remove intent covers the ownership the lock still records.
    const receipt = await receiptOf(closed);
    expect(receipt.ledger).toEqual([]);
    expect(receipt.intents).toMatchObject([{ action: "remove", key: origin(closed), runId: result.run.id }]);
    expect(receipt.evictions).toMatchObject([{ keys: [origin(closed)], reason: "closed" }]);
    expect(await originOwners(domain, origin(closed))).toEqual([closed]);
    expect(await origins()).not.toContain(origin(closed));

    // Another scope creates the URL again, then is destroyed; the closed scope's destroy follows.
    expect(
      (await evictingEngine().apply(applyRequest(sameUrl(line, origin(closed)), other))).run.status,
    ).toBe("succeeded");
    expect((await evictingEngine().destroy(destroyRequest(other))).run.status).toBe("succeeded");
    expect((await evictingEngine().destroy(destroyRequest(closed))).run.status).toBe("succeeded");
    expect(await origins()).not.toContain(origin(closed));
  });

  it("the receipt write fails: no leave is recorded, and the evicted scope's destroy never removes the entry another scope now owns", async () => {
    const { plan, line, origins, closed, live, domain } = await closedAndLive("ev-receipt");
    const [next, other] = [freshPr(), freshPr()];
    const result = await evictingEngine({ wrapStore: failFirstReceiptWrite(closed) }).apply(
      applyRequest(plan, next),
    );
    expect(result.run.status).toBe("succeeded");
    expect([...(await origins())].sort()).toEqual([origin(live), origin(next)].sort());
    // Its ledger still names the entry, gone from the provider, and the lock still names it owner.
    expect((await receiptOf(closed)).ledger.map((e) => e.key)).toEqual([origin(closed)]);
    expect(await originOwners(domain, origin(closed))).toEqual([closed]);

    // The URL becomes another scope's (the live one made room for it by its own destroy).
    expect((await evictingEngine().destroy(destroyRequest(live))).run.status).toBe("succeeded");
    expect(
      (await evictingEngine().apply(applyRequest(sameUrl(line, origin(closed)), other))).run.status,
    ).toBe("succeeded");
    expect((await evictingEngine().destroy(destroyRequest(closed))).run.status).toBe("succeeded");
    expect([...(await origins())].sort()).toEqual([origin(closed), origin(next)].sort());
  });

  it("the receipt write of an idle scope fails: it stays the owner of the URL its ledger names, so its next apply is true and another scope's destroy leaves the URL it wants", async () => {
    const foreign = "https://app.example.com";
    const { plan, line, origins, domain } = await cappedOrigins("ev-receipt-idle", 3, [foreign]);
    const clock = new StepClock();
    const engine = (o: Parameters<typeof evictingEngine>[0] = {}) => evictingEngine({ clock, ...o });
    const [idle, live, next, other] = [freshPr(), freshPr(), freshPr(), freshPr()];
    expect((await engine().apply(applyRequest(plan, idle))).run.status).toBe("succeeded");
    clock.jump(10 * DAY_MS); // idle 10 days, its pull request still open
    expect((await engine().apply(applyRequest(plan, live))).run.status).toBe("succeeded");

    const evicting = await engine({ wrapStore: failFirstReceiptWrite(idle) }).apply(applyRequest(plan, next));
    expect(evicting.run.status).toBe("succeeded");
    expect([...(await origins())].sort()).toEqual([foreign, origin(live), origin(next)].sort());
    expect((await receiptOf(idle)).ledger.map((e) => e.key)).toEqual([origin(idle)]);

    // Room again, and another scope creates the idle scope's URL as a literal line of its own.
    expect((await engine().destroy(destroyRequest(live))).run.status).toBe("succeeded");
    expect((await engine().apply(applyRequest(sameUrl(line, origin(idle)), other))).run.status).toBe(
      "succeeded",
    );
    // The idle scope pushes again: its URL is there, and it is its own.
    const again = await engine().apply(applyRequest(plan, idle));
    expect(again.lines.map((l) => l.result)).toEqual(["unchanged"]);
    expect((await engine().destroy(destroyRequest(other))).run.status).toBe("succeeded");
    // The model: the idle scope's last apply wants its URL, the evicting scope wants its own.
    expect([...(await origins())].sort()).toEqual([foreign, origin(idle), origin(next)].sort());
    expect(await originOwners(domain, origin(idle))).toEqual([idle]);
  });
});
