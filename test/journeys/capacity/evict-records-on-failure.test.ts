/**
 * What an eviction records when a step after its write fails (docs/design.md, "Evicting stale
 * scopes"): the write removed the stale scope's entry, so the audit trail records the eviction and
 * the run says what happened, whatever failed after it; and the stale scope's release hands on a
 * receipt etag only when the save it names succeeded ("Run algorithm", step 4: the next holder
 * trusts it as the receipt's current version).
 */
import { describe, expect, it } from "vitest";
import { scopeLockKey } from "../../../shared/lock-keys";
import type { ReceiptStore } from "../../../workers/receipts/receipt-store";
import { call, testApp } from "../../helpers/app";
import { freshPr } from "../../helpers/engine";
import {
  applyRequest,
  cappedOrigins,
  evictingEngine,
  origin,
  originOwners,
  receiptOf,
  setPullRequest,
  wrapParentLocks,
} from "../../helpers/eviction";
import { granted, stub } from "../../helpers/locks";
import { DEFAULT_REPOSITORY } from "../../helpers/repositories";

/** Two scopes on a client capped at 2, the first one's pull request closed: the next run evicts it. */
async function closedAndLive(name: string) {
  const list = await cappedOrigins(name, 2);
  const [closed, live] = [freshPr(), freshPr()];
  for (const s of [closed, live])
    expect((await evictingEngine().apply(applyRequest(list.plan, s))).run.status).toBe("succeeded");
  await setPullRequest(closed, "closed");
  return { ...list, closed, live, next: freshPr() };
}

async function evictionAudits(runId: string) {
  const audit = await call(testApp(), "GET", "/v1/audit");
  const entries = ((await audit.json()) as { entries: Array<Record<string, unknown>> }).entries;
  return entries.filter((e) => e.kind === "eviction" && e.runId === runId);
}

/** The receipt etag the scope's lock hands its next holder (undefined: it vouches for none). */
async function handedEtag(scope: string): Promise<string | undefined> {
  const key = scopeLockKey(DEFAULT_REPOSITORY.id, "preview", scope);
  const grant = granted(await stub(key).acquire({ key, holder: "test-probe", ttlMs: 60_000 }));
  await stub(key).release({ key, holder: "test-probe", token: grant.token });
  return grant.receiptEtag;
}

describe("an eviction whose later step fails", () => {
  it("the leave call fails: the eviction is audited (receipt updated), its remove intents stay, the run warns, and the release vouches for no etag", async () => {
    const { plan, origins, domain, closed, next } = await closedAndLive("ev-leave-audit");
    const engine = evictingEngine({
      wrapLocks: wrapParentLocks((t) => ({
        ...t,
        // The ownership call after the write carrying the closed scope's leave: not reached.
        changeOwners: async (req) => {
          if (req.changes.some((c) => c.action === "remove" && c.owner.endsWith(`/${closed}`)))
            throw new Error("test: the lock object is unreachable");
          return t.changeOwners(req);
        },
      })),
    });
    const result = await engine.apply(applyRequest(plan, next));

    expect(result.run.status).toBe("failed");
    expect(await origins()).not.toContain(origin(closed));
    expect(await evictionAudits(result.run.id)).toMatchObject([
      { scope: closed, keys: [origin(closed)], reason: "closed", receiptUpdated: true },
    ]);
    expect(result.warnings.filter((w) => w.includes(`eviction: ${closed}'s entries`))).toEqual([
      expect.stringContaining("its leave was not recorded"),
    ]);
    // Its receipt says the eviction; the remove intent covers the ownership the lock still records.
    const receipt = await receiptOf(closed);
    expect(receipt.ledger).toEqual([]);
    expect(receipt.intents).toMatchObject([{ action: "remove", key: origin(closed), runId: result.run.id }]);
    expect(await originOwners(domain, origin(closed))).toEqual([closed]);
    expect(await handedEtag(closed)).toBeUndefined();
  });

  it("the second receipt write lands but its answer is lost: the release vouches for no etag, since the one it holds is not the receipt's", async () => {
    const { plan, closed, next } = await closedAndLive("ev-settle-lost");
    let writes = 0;
    const wrapStore = (inner: ReceiptStore): ReceiptStore => ({
      read: (a) => inner.read(a),
      remove: (a, etag) => inner.remove(a, etag),
      listScopes: (f) => inner.listScopes(f),
      write: async (receipt, etag) => {
        const written = await inner.write(receipt, etag);
        // The closed scope's second write (the intents settled): landed, its answer lost.
        if (receipt.scope === closed && ++writes === 2) throw new Error("test: connection lost");
        return written;
      },
    });
    const result = await evictingEngine({ wrapStore }).apply(applyRequest(plan, next));

    expect(result.run.status).toBe("succeeded");
    expect(result.warnings).toContainEqual(
      expect.stringContaining(`intents in ${closed}'s receipt were not settled`),
    );
    expect((await receiptOf(closed)).intents).toEqual([]);
    expect(await handedEtag(closed)).toBeUndefined();
  });
});
