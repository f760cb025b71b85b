/**
 * A stale scope taken for an attempt that was refused (docs/design.md, "Evicting stale scopes"):
 * the group is read, decided and fitted again, and a scope the next attempt does not need is given
 * back untouched right then — not kept in the group's fence until the group ends, where a write
 * with an unknown outcome would abandon its lease (locked for a TTL and a lock-delay) although none
 * of its entries was touched.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { auth0Keys, clientRecord } from "../../../dev/emulators/auth0/state";
import { scopeLockKey } from "../../../shared/lock-keys";
import { lockStub } from "../../../workers/locks/lock-target";
import { auth0Client, emulatorStub } from "../../helpers/emulators";
import { freshPr } from "../../helpers/engine";
import {
  applyRequest,
  cappedOrigins,
  evictingEngine,
  origin,
  receiptOf,
  scopeLockFree,
  setPullRequest,
} from "../../helpers/eviction";
import { APP_CLIENT } from "../../helpers/plans";
import { DEFAULT_REPOSITORY } from "../../helpers/repositories";

describe("an evicting attempt refused", () => {
  it("the next attempt fits without a stale scope taken for the first: that scope is given back, and the write's unknown outcome leaves its lock free", async () => {
    const { plan, line, domain, origins } = await cappedOrigins("ev-refused", 3);
    const [first, second, live] = [freshPr(), freshPr(), freshPr()];
    for (const s of [first, second, live])
      expect((await evictingEngine().apply(applyRequest(plan, s))).run.status).toBe("succeeded");
    for (const s of [first, second]) await setPullRequest(s, "closed");
    // Two new origins on a full list of three: both closed scopes are taken to make room.
    const next = freshPr();
    const two = {
      version: 2 as const,
      lines: [line("a", origin(`${next}-a`)), line("b", origin(`${next}-b`))],
    };

    let attempts = 0;
    const engine = evictingEngine({
      faults: async (at) => {
        if (at !== "after-owners" || ++attempts > 1) return;
        // Right before the first attempt's write: the first closed scope's lease is force-released
        // (the group is decided again without it), and someone removes two entries by hand, so the
        // next attempt fits without evicting anything.
        const key = scopeLockKey(DEFAULT_REPOSITORY.id, "preview", first);
        await lockStub(env, key).forceRelease({ key, reason: "test: an operator", actor: "admin" });
        const client = await auth0Client(domain, APP_CLIENT);
        await emulatorStub(domain).seed({
          [auth0Keys.client(APP_CLIENT)]: clientRecord(APP_CLIENT, {
            ...client,
            web_origins: [origin(second)],
          }),
        });
      },
      // The second attempt's write never answers: its outcome is unknown.
      wrapFetch: (inner) => async (input, init) => {
        if (init?.method === "PATCH") throw new TypeError("test: network connection lost");
        return inner(input, init);
      },
    });
    const result = await engine.apply(applyRequest(two, next));

    expect(attempts).toBe(2);
    expect(result.run.error).toMatchObject({ code: "LOCK_LOST", detail: { outcome: "unknown" } });
    // The second closed scope was not needed by the write that was sent: untouched, and free.
    expect(await scopeLockFree(second)).toBe(true);
    expect((await receiptOf(second)).ledger.map((e) => e.key)).toEqual([origin(second)]);
    expect(await origins()).toEqual([origin(second)]);
  });
});
