/**
 * Control cases for the checker on what the concurrent-acquirers test records (grants and releases
 * as clients saw them) and on the object's own history: it must catch the violations that test
 * relies on.
 */
import { describe, it } from "vitest";
import type { HistoryEntry } from "../../shared/schemas/lock";
import { checkLockHistory, objectHistory, type Recorded } from "../helpers/lock-history";

let n = 0;
const grant = (holder: string, token: number, at: number): Recorded => ({
  type: "grant",
  holder,
  token,
  at,
  expiresAt: at + 1_000,
  waited: false,
  inv: ++n,
  res: ++n,
});
const release = (holder: string, token: number, at: number): Recorded => ({
  type: "release",
  holder,
  token,
  released: true,
  at,
  inv: ++n,
  res: ++n,
});
const entry = (transition: HistoryEntry["transition"], holder: string, token: number): HistoryEntry => ({
  at: 0,
  transition,
  holder,
  token,
});
const checkObject = (entries: HistoryEntry[]) => checkLockHistory(objectHistory(entries), { window: true });

describe("history checker", () => {
  it("passes back-to-back holds that share a millisecond at the hand-over", ({ expect }) => {
    const events = [grant("a", 1, 10), release("a", 1, 20), grant("b", 2, 20), release("b", 2, 25)];
    expect(checkLockHistory(events)).toEqual([]);
  });

  it("reports a holder granted while the previous one still held the lock", ({ expect }) => {
    const events = [grant("a", 1, 10), grant("b", 2, 15), release("a", 1, 20), release("b", 2, 30)];
    expect(checkLockHistory(events)).toEqual([
      "b (token 2) granted at 15 while token 1 was valid until 20",
      "release of token 1 succeeded after token 2 was granted",
    ]);
  });

  it("reports a higher token granted before a lower one, and a token granted twice", ({ expect }) => {
    expect(checkLockHistory([grant("a", 2, 10), release("a", 2, 11), grant("b", 3, 5)])).toContain(
      "token 3 granted at 5, before token 2",
    );
    expect(checkLockHistory([grant("a", 1, 10), grant("b", 1, 30)])).toContain("token 1 granted twice");
  });

  it("reports a lease never released while a later token was granted", ({ expect }) => {
    expect(checkLockHistory([grant("a", 1, 10), grant("b", 2, 30)])).toHaveLength(1);
  });

  it("accepts an object history that starts mid-lease and alternates grants and releases", ({ expect }) => {
    const history = [
      entry("renewed", "a", 4),
      entry("released", "a", 4),
      entry("acquired", "b", 5),
      entry("renewed", "b", 5),
      entry("expired", "b", 5),
      entry("taken-over", "c", 6),
      entry("released", "c", 6),
    ];
    expect(checkObject(history)).toEqual([]);
  });

  it("reports an object history with a grant inside a live lease or a token going back", ({ expect }) => {
    const overlap = [entry("acquired", "a", 1), entry("acquired", "b", 2), entry("released", "a", 1)];
    expect(checkObject(overlap)).toContain("b (token 2) granted at 2 while token 1 was valid until 3");
    const backwards = [entry("acquired", "a", 3), entry("released", "a", 3), entry("acquired", "b", 2)];
    expect(checkObject(backwards)).toContain("token 3 granted at 1, before token 2");
  });

  it("accepts changes combined for waiters under the live lease, which grant nothing", ({ expect }) => {
    const history = [
      entry("acquired", "a", 1),
      entry("combined", "b", 1),
      entry("combined", "c", 1),
      entry("released", "a", 1),
      entry("acquired", "d", 2),
      entry("released", "d", 2),
    ];
    expect(checkObject(history)).toEqual([]);
  });

  it("reports changes combined under a stale token, with no lease, or for the holder itself", ({
    expect,
  }) => {
    const stale = [entry("acquired", "a", 1), entry("released", "a", 1), entry("acquired", "b", 2)];
    expect(checkObject([...stale, entry("combined", "c", 1)])).toContain(
      "combine of token 1 succeeded after token 2 was granted",
    );
    const free = [entry("acquired", "a", 1), entry("released", "a", 1), entry("combined", "c", 1)];
    expect(checkObject(free)).toHaveLength(1);
    const own = [entry("acquired", "a", 1), entry("combined", "a", 1)];
    expect(checkObject(own)).toContain("combined for a under its own lease (token 1)");
  });

  it("reports a release by another holder, of a token never granted, or before its grant", ({ expect }) => {
    const v = checkLockHistory([grant("a", 1, 10), release("b", 1, 20), release("c", 7, 30)]);
    expect(v).toContain("release of token 1 by b, granted to a");
    expect(v).toContain("release of token 7 by c, a token never granted");
    expect(checkLockHistory([grant("a", 1, 10), release("a", 1, 5)])).toContain(
      "release of token 1 before it was granted",
    );
  });

  it("reports an object history acting for a lease that ended, or ending another holder's", ({ expect }) => {
    const renewedLate = [entry("acquired", "a", 1), entry("expired", "a", 1), entry("renewed", "a", 1)];
    expect(checkObject(renewedLate)).toContain("renew of token 1 succeeded after its lease ended");
    const twice = [entry("acquired", "a", 1), entry("released", "a", 1), entry("expired", "a", 1)];
    expect(checkObject(twice)).toContain("token 1 ended twice (force)");
    const wrongHolder = [entry("acquired", "a", 1), entry("claim-lapsed", "b", 1)];
    expect(checkObject(wrongHolder)).toContain("force of token 1 by b, granted to a");
  });
});
