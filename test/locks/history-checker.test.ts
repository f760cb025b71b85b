/** Control cases for the checker: it must catch the violations the concurrency test relies on. */
import { describe, it } from "vitest";
import type { HistoryEntry } from "../../shared/schemas/lock";
import { checkHistorySequence, checkLeaseEvents, type LeaseEvent } from "../helpers/lock-history";

const grant = (holder: string, token: number, at: number): LeaseEvent => ({
  type: "grant",
  holder,
  token,
  at,
});
const release = (holder: string, token: number, at: number): LeaseEvent => ({
  type: "release",
  holder,
  token,
  at,
});
const entry = (transition: HistoryEntry["transition"], holder: string, token: number): HistoryEntry => ({
  at: 0,
  transition,
  holder,
  token,
});

describe("history checker", () => {
  it("passes back-to-back holds that share a millisecond at the hand-over", ({ expect }) => {
    const events = [grant("a", 1, 10), release("a", 1, 20), grant("b", 2, 20), release("b", 2, 25)];
    expect(checkLeaseEvents(events)).toEqual([]);
  });

  it("reports a holder granted while the previous one still held the lock", ({ expect }) => {
    const events = [grant("a", 1, 10), grant("b", 2, 15), release("a", 1, 20), release("b", 2, 30)];
    expect(checkLeaseEvents(events)).toEqual([expect.stringContaining("b (token 2) was granted at 15")]);
  });

  it("reports a higher token granted before a lower one, and a token granted twice", ({ expect }) => {
    expect(checkLeaseEvents([grant("a", 2, 10), release("a", 2, 11), grant("b", 3, 5)])).toContain(
      "token 3 was granted before token 2",
    );
    expect(checkLeaseEvents([grant("a", 1, 10), grant("b", 1, 30)])).toContain("token 1 granted twice");
  });

  it("reports a lease never released while a later token was granted", ({ expect }) => {
    expect(checkLeaseEvents([grant("a", 1, 10), grant("b", 2, 30)])).toHaveLength(1);
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
    expect(checkHistorySequence(history)).toEqual([]);
  });

  it("reports an object history with a grant inside a live lease or a token going back", ({ expect }) => {
    const overlap = [entry("acquired", "a", 1), entry("acquired", "b", 2), entry("released", "a", 1)];
    expect(checkHistorySequence(overlap)).toContain("b (token 2) granted while a held it");
    const backwards = [entry("acquired", "a", 3), entry("released", "a", 3), entry("acquired", "b", 2)];
    expect(checkHistorySequence(backwards)).toContain("token 2 after token 3");
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
    expect(checkHistorySequence(history)).toEqual([]);
  });

  it("reports changes combined under a stale token, with no lease, or for the holder itself", ({
    expect,
  }) => {
    const stale = [entry("acquired", "a", 1), entry("released", "a", 1), entry("acquired", "b", 2)];
    expect(checkHistorySequence([...stale, entry("combined", "c", 1)])).toContain(
      "combined for c under token 1 with no such live lease",
    );
    const free = [entry("acquired", "a", 1), entry("released", "a", 1), entry("combined", "c", 1)];
    expect(checkHistorySequence(free)).toHaveLength(1);
    const own = [entry("acquired", "a", 1), entry("combined", "a", 1)];
    expect(checkHistorySequence(own)).toContain("combined for a under its own lease (token 1)");
  });
});
