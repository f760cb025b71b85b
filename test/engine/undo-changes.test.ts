/**
 * Withdrawing a refused write's claims (docs/design.md, "Fencing around a write"): the claims of
 * what a send of several requests wrote before the refusal stay; the refused and unsent go.
 */
import { describe, expect, it } from "vitest";
import type { ItemOwnership, OwnerChange } from "../../shared/schemas/ownership";
import { undoChanges, withOwnerChanges } from "../../workers/engine/rules/group-decisions";

const op = "clerk.redirectUrl";
const own = (key: string, owners: string[] = [], foreign = false): ItemOwnership => ({
  op,
  key,
  owners,
  foreign,
});
const add = (key: string, owner: string): OwnerChange => ({ op, key, action: "add", owner });

describe("undoChanges", () => {
  it("nothing kept: every claim of the refused write is withdrawn, a foreign mark too", () => {
    const made = [add("a", "me"), { op, key: "b", action: "foreign" } as OwnerChange, add("b", "me")];
    expect(undoChanges([own("a"), own("b")], made)).toEqual([
      { op, key: "a", action: "remove", owner: "me" },
      { op, key: "b", action: "remove", owner: "me" },
      { op, key: "b", action: "not-foreign" },
    ]);
  });

  it("the claims of what was written stay; the refused and the unsent go", () => {
    const made = [add("a", "me"), add("b", "me"), add("c", "waiter")];
    expect(undoChanges([own("a"), own("b"), own("c", ["other"])], made, [add("a", "me")])).toEqual([
      { op, key: "b", action: "remove", owner: "me" },
      { op, key: "c", action: "remove", owner: "waiter" },
    ]);
  });

  it("withOwnerChanges: a written removal's leave, seen before it is recorded", () => {
    const leave: OwnerChange = { op, key: "a", action: "remove", owner: "me" };
    expect(withOwnerChanges([own("a", ["me"]), own("b", ["me"])], [leave])).toEqual([
      own("a", []),
      own("b", ["me"]),
    ]);
  });
});
