/**
 * Control of the shared entry checker (test/helpers/entry-history.ts) the property and fleet
 * histories end every step with: it passes a list that matches its model and names every way a
 * bad list is bad, so a history check built on it cannot pass by checking nothing.
 */
import { describe, expect, it } from "vitest";
import { checkEntries } from "../helpers/entry-history";

const model = {
  foreign: ["f1"],
  wanted: new Map([["w1", ["pr-1"]]]),
  doubt: ["d1"],
};

describe("the entry checker", () => {
  it("passes a list holding the foreign and wanted entries, with or without those in doubt", () => {
    expect(checkEntries(["f1", "w1"], model, { when: "step 1" })).toEqual([]);
    expect(checkEntries(["w1", "d1", "f1"], model, { when: "step 1" })).toEqual([]);
  });

  it("names a lost foreign entry, a lost wanted one, a leaked one and a doubled one", () => {
    expect(checkEntries(["w1", "x9", "w1"], model, { when: "step 2" })).toEqual([
      "step 2: lost foreign f1",
      "step 2: leaked x9",
      "step 2: doubled w1",
    ]);
    expect(checkEntries(["f1", "d1"], model, { when: "step 3" })).toEqual([
      "step 3: lost w1 (wanted by pr-1)",
    ]);
    // An entry in doubt that is also wanted is still lost when it is gone.
    const both = { ...model, doubt: ["w1"] };
    expect(checkEntries(["f1"], both, { when: "step 4" })).toEqual(["step 4: lost w1 (wanted by pr-1)"]);
  });

  it("after every scope is destroyed, anything but the foreign entries is leaked; doubles only when asked", () => {
    const settled = { foreign: ["f1"], wanted: [], doubt: [] };
    expect(checkEntries(["f1", "w1"], settled, { when: "end" })).toEqual(["end: leaked w1"]);
    expect(checkEntries(["f1", "f1"], settled, { when: "end" })).toEqual(["end: doubled f1"]);
    expect(checkEntries(["f1", "f1"], settled, { when: "end", doubles: false })).toEqual([]);
  });
});
