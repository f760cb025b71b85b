/**
 * Eviction and the evicted scope's lease (docs/design.md, "Evicting stale scopes"; "Lease
 * protocol"): the stale scope's lease is checked right before the provider write, so a lease lost
 * since it was taken (force-released, or lapsed) drops that scope's removals and the group is
 * fitted again, instead of a second holder removing an entry the scope's own new run relies on.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { scopeLockKey } from "../../../shared/lock-keys";
import { lockStub } from "../../../workers/locks/lock-target";
import { call, testApp } from "../../helpers/app";
import { freshPr } from "../../helpers/engine";
import {
  applyRequest,
  cappedOrigins,
  destroyRequest,
  evictingEngine,
  origin,
  receiptOf,
  setPullRequest,
  twoAppliedScopes,
  wrapParentLocks,
} from "../../helpers/eviction";
import { DEFAULT_REPOSITORY } from "../../helpers/repositories";

describe("an evicted scope's lease lost before the write", () => {
  it("force-released and run again by its own reopened PR right before the write: its entry is kept and the evicting run is refused LIST_FULL", async () => {
    const { plan, origins } = await cappedOrigins("ev-lost", 2);
    const [closed, live] = await twoAppliedScopes(plan);
    const next = freshPr();
    await setPullRequest(closed, "closed");
    let ownRun: string | null = null;
    const wrapLocks = wrapParentLocks((t, inner) => ({
      ...t,
      changeOwners: async (r) => {
        if (ownRun === null && r.changes.some((c) => c.action === "add")) {
          // The claims, the last call before the write: the closed scope's lease ends (an
          // operator's force-release; a lapse of its renewals does the same) and its reopened
          // PR's run goes through.
          await inner
            .scope(DEFAULT_REPOSITORY.id, "preview", closed)
            .forceRelease({ reason: "test", actor: "test" });
          await setPullRequest(closed, "open");
          ownRun = (await evictingEngine().apply(applyRequest(plan, closed))).run.status;
        }
        return t.changeOwners(r);
      },
    }));
    const result = await evictingEngine({ wrapLocks }).apply(applyRequest(plan, next));
    expect(ownRun).toBe("succeeded");
    // Without the closed scope's entry the run's own does not fit: refused as without eviction.
    expect(result.run.error?.code).toBe("LIST_FULL");
    expect([...(await origins())].sort()).toEqual([origin(closed), origin(live)].sort());
    const receipt = await receiptOf(closed);
    expect(receipt.ledger.map((e) => e.key)).toEqual([origin(closed)]);
    expect(receipt.evictions).toBeUndefined();
  });

  it("control: the same run with the closed scope's lease kept evicts it and succeeds", async () => {
    const { plan, origins } = await cappedOrigins("ev-kept", 2);
    const [closed, live] = await twoAppliedScopes(plan);
    const next = freshPr();
    await setPullRequest(closed, "closed");
    const result = await evictingEngine().apply(applyRequest(plan, next));
    expect(result.run.status).toBe("succeeded");
    expect([...(await origins())].sort()).toEqual([origin(live), origin(next)].sort());
    expect((await receiptOf(closed)).ledger).toEqual([]);
  });

  it("lost while the write is in flight: its leave is not recorded nor its receipt written (a warning and an audit record say so), and its destroy removes the entry another scope re-created and left", async () => {
    const { plan, line, origins } = await cappedOrigins("ev-lost-after", 2);
    const [closed, live, next, other] = [freshPr(), freshPr(), freshPr(), freshPr()];
    for (const s of [closed, live])
      expect((await evictingEngine().apply(applyRequest(plan, s))).run.status).toBe("succeeded");
    await setPullRequest(closed, "closed");
    let released = false;
    const wrapFetch =
      (inner: typeof fetch): typeof fetch =>
      async (input, init) => {
        if (!released && init?.method === "PATCH") {
          released = true;
          const key = scopeLockKey(DEFAULT_REPOSITORY.id, "preview", closed);
          await lockStub(env, key).forceRelease({ key, reason: "test: lost in flight", actor: "admin" });
        }
        return inner(input, init);
      };
    const result = await evictingEngine({ wrapFetch }).apply(applyRequest(plan, next));
    const { warnings } = result;
    expect(released).toBe(true);
    expect(result.run.status).toBe("succeeded");
    expect([...(await origins())].sort()).toEqual([origin(live), origin(next)].sort());
    // The removal happened: the run's warning and the audit trail say so, its receipt not updated.
    expect(
      warnings.filter((w) => w.includes(`eviction: ${closed}'s entries ${origin(closed)} were removed`)),
    ).toHaveLength(1);
    const audit = await call(testApp(), "GET", "/v1/audit");
    const entries = ((await audit.json()) as { entries: Array<Record<string, unknown>> }).entries;
    expect(entries.filter((e) => e.kind === "eviction" && e.runId === result.run.id)).toMatchObject([
      { scope: closed, keys: [origin(closed)], reason: "closed", receiptUpdated: false },
    ]);
    // Not its holder any more: its receipt is left as it was, naming the entry it still owns.
    const receipt = await receiptOf(closed);
    expect(receipt.ledger.map((e) => e.key)).toEqual([origin(closed)]);
    expect(receipt.evictions).toBeUndefined();
    // Its ownership kept too: another scope's use of the URL, then its destroy, leaves it to the
    // closed scope's destroy, which removes it.
    await evictingEngine().destroy(destroyRequest(live));
    const literal = { version: 2 as const, lines: [line("same", origin(closed))] };
    expect((await evictingEngine().apply(applyRequest(literal, other))).run.status).toBe("succeeded");
    expect((await evictingEngine().destroy(destroyRequest(other))).run.status).toBe("succeeded");
    expect((await evictingEngine().destroy(destroyRequest(closed))).run.status).toBe("succeeded");
    expect(await origins()).not.toContain(origin(closed));
  });
});
