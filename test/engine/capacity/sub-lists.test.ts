/**
 * One op with several lists on one object (docs/design.md, "Lists at their cap", "Fill levels"),
 * as a bucket's CORS rules each hold a list of origins: a counted cap is checked on each list the
 * group writes to, not only the first item's, and the fills after the write name each list. Pure.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ItemAction, OpSpec, Params } from "../../../workers/adapters/op-spec";
import { overCap } from "../../../workers/engine/capacity/list-fill";
import type { Item } from "../../../workers/engine/plan/item";
import type { Decided } from "../../../workers/engine/rules/group-decisions";
import { fillsAfterWrite } from "../../../workers/engine/write/fill-after-write";

/** Rules by name, each a list of origins. */
type Rules = Record<string, string[]>;

const rulesOp: OpSpec = {
  name: "fake.corsOrigin",
  providerType: "fake",
  params: z.record(z.string(), z.string()),
  key: (p) => p.origin as string,
  itemParam: "origin",
  lockOn: () => "fake:bucket",
  inspect: async () => ({ present: false }),
  create: async () => {},
  remove: async () => {},
  list: async () => [],
  batch: {
    kind: "fake.bucket",
    read: async () => ({}),
    keys: (state, params) => (state as Rules)[params.rule as string] ?? [],
    listName: (params) => `rule ${params.rule}`,
    edit: (state: unknown, params: Params, action: ItemAction) => {
      const s = state as Rules;
      const [rule, origin] = [params.rule as string, params.origin as string];
      const kept = (s[rule] ?? []).filter((o) => o !== origin);
      return { ...s, [rule]: action === "create" ? [...kept, origin] : kept };
    },
    write: async () => {},
  },
};

function created(rule: string, origin: string): Decided {
  const item: Item = {
    line: `${rule}-${origin}`,
    opName: rulesOp.name,
    op: rulesOp,
    connection: "fake",
    params: { rule, origin },
    key: origin,
    parent: "fake:bucket",
  };
  return {
    change: { item, action: "create" },
    owner: "scope",
    outcome: "written",
    write: true,
    ownersBefore: [],
    ownersAfter: [],
  };
}

/** The operator's cap on the op (connection `capacity`): 1 per list. */
const capOne = () => 1;

describe("an op with a list per rule", () => {
  it("cap 1, rule A empty, rule B full, one origin each: B is over its cap, named", () => {
    const state: Rules = { A: [], B: ["https://kept"] };
    const fill = overCap(
      "fake:bucket",
      state,
      [created("A", "https://a"), created("B", "https://b")],
      capOne,
    );
    expect(fill).toMatchObject({ op: "fake.corsOrigin", name: "rule B", cap: 1, entries: 1, after: 2 });
    expect(fill?.keys).toEqual(["https://kept"]);
  });

  it("control: each rule with room for its one origin fits", () => {
    const state: Rules = { A: [], B: [] };
    expect(
      overCap("fake:bucket", state, [created("A", "https://a"), created("B", "https://b")], capOne),
    ).toBeNull();
  });

  it("the fills after the write are one per rule, each naming its rule and counting its own origins", () => {
    const state: Rules = { A: ["https://a-0"], B: ["https://b-0", "https://b-1"] };
    const decisions = [created("A", "https://a"), created("B", "https://b")];
    expect(fillsAfterWrite(state, decisions, () => 5, 7)).toEqual([
      { op: "fake.corsOrigin", list: "rule A", cap: 5, entries: 2, at: 7 },
      { op: "fake.corsOrigin", list: "rule B", cap: 5, entries: 3, at: 7 },
    ]);
  });
});
