/**
 * overCap (docs/design.md, "Lists at their cap"), pure: a cap measured on the whole object
 * (`capacity.measure`) is taken on the object with every write of the group applied, whichever op
 * makes it; a cap counted on one op's list only sees that op's writes.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ItemAction, OpSpec, Params } from "../../../workers/adapters/op-spec";
import { overCap } from "../../../workers/engine/capacity/list-fill";
import type { Item } from "../../../workers/engine/plan/item";
import type { Decided } from "../../../workers/engine/rules/group-decisions";

/** An object with two lists `a` and `b`, one op each. */
type Lists = { a: string[]; b: string[] };

function listOp(list: "a" | "b", capacity: OpSpec["capacity"]): OpSpec {
  const lists = (state: unknown) => state as Lists;
  return {
    name: `fake.${list}`,
    providerType: "fake",
    params: z.record(z.string(), z.string()),
    key: (p) => p.url as string,
    itemParam: "url",
    lockOn: () => "fake:object",
    inspect: async () => ({ present: false }),
    create: async () => {},
    remove: async () => {},
    list: async () => [],
    ...(capacity ? { capacity } : {}),
    batch: {
      kind: "fake.object",
      read: async () => ({ a: [], b: [] }),
      keys: (state) => lists(state)[list],
      edit: (state: unknown, params: Params, action: ItemAction) => {
        const s = lists(state);
        const url = params.url as string;
        const kept = s[list].filter((u) => u !== url);
        return { ...s, [list]: action === "create" ? [...kept, url] : kept };
      },
      write: async () => {},
    },
  };
}

/** The cap counts both lists (as Entra counts every platform of an application). */
const WHOLE = {
  maxEntries: 3,
  counts: "entries of both lists",
  measure: (state: unknown) => {
    const s = state as Lists;
    return { entries: s.a.length + s.b.length };
  },
};

function created(op: OpSpec, url: string): Decided {
  const item: Item = {
    line: url,
    opName: op.name,
    op,
    connection: "fake",
    params: { url },
    key: url,
    parent: "fake:object",
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

const capOf = (item: Item) => item.op.capacity?.maxEntries;

describe("overCap", () => {
  it("a whole-object cap is measured with both ops' writes applied: 2 held + one each is 4 of 3", () => {
    const [a, b] = [listOp("a", WHOLE), listOp("b", WHOLE)];
    const state: Lists = { a: ["https://a-0"], b: ["https://b-0"] };
    const fill = overCap("fake:object", state, [created(a, "https://a-1"), created(b, "https://b-1")], capOf);
    expect(fill).toMatchObject({ object: "fake:object", cap: 3, entries: 2, after: 4 });
  });

  it("control: one op's write alone fits the whole-object cap", () => {
    const [a, b] = [listOp("a", WHOLE), listOp("b", WHOLE)];
    const state: Lists = { a: ["https://a-0"], b: ["https://b-0"] };
    expect(overCap("fake:object", state, [created(a, "https://a-1")], capOf)).toBeNull();
    expect(overCap("fake:object", state, [created(b, "https://b-1")], capOf)).toBeNull();
  });

  it("a cap counted on one op's list sees that list alone: the other op's writes do not count", () => {
    const [a, b] = [listOp("a", { maxEntries: 2 }), listOp("b", { maxEntries: 2 })];
    const state: Lists = { a: ["https://a-0"], b: ["https://b-0"] };
    expect(
      overCap("fake:object", state, [created(a, "https://a-1"), created(b, "https://b-1")], capOf),
    ).toBeNull();
    const fill = overCap("fake:object", state, [created(a, "https://a-1"), created(a, "https://a-2")], capOf);
    expect(fill).toMatchObject({ op: "fake.a", cap: 2, entries: 1, after: 3 });
  });
});
