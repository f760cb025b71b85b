/**
 * fitGroup (workers/engine/capacity/fitting.ts), pure: the run's own changes are fitted with no
 * waiter, each waiter in queue order joins only if it still fits, and the decisions sent are the
 * ones decided with only the waiters kept (docs/design.md, "Lists at their cap").
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ItemAction, OpSpec, Params } from "../../../workers/adapters/op-spec";
import { type FitInput, fitGroup } from "../../../workers/engine/capacity/fitting";
import type { Item } from "../../../workers/engine/plan/item";
import type { Decided } from "../../../workers/engine/rules/group-decisions";

const op: OpSpec = {
  name: "fake.list",
  providerType: "fake",
  params: z.record(z.string(), z.string()),
  key: (p) => p.url as string,
  itemParam: "url",
  lockOn: () => "fake:object",
  inspect: async () => ({ present: false }),
  create: async () => {},
  remove: async () => {},
  list: async () => [],
  capacity: { maxEntries: 2 },
  batch: {
    kind: "fake.object",
    read: async () => [],
    keys: (state) => state as string[],
    edit: (state: unknown, params: Params, action: ItemAction) => {
      const kept = (state as string[]).filter((u) => u !== params.url);
      return action === "create" ? [...kept, params.url as string] : kept;
    },
    write: async () => {},
  },
};

function created(url: string, waiter?: string): Decided {
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
    owner: waiter ?? "me",
    outcome: "written",
    write: true,
    ownersBefore: [],
    ownersAfter: [],
    ...(waiter ? { waiter } : {}),
  } as Decided;
}

/** The run's own create, then waiters w1 and w2 each creating one entry. */
const group = [created("https://own"), created("https://w1", "w1"), created("https://w2", "w2")];
const inputOf = (state: string[], capped = true): FitInput => ({
  object: "fake:object",
  state,
  decideFor: (gone) => group.filter((d) => !("waiter" in d) || !gone.has(d.waiter as string)),
  capOf: (item) => item.op.capacity?.maxEntries,
  capped,
  shares: null,
});
const urls = (ds: readonly Decided[]) => ds.map((d) => d.change.item.key);

describe("fitGroup", () => {
  it("keeps waiters in queue order while they fit and refuses the one past the cap alone", () => {
    const v = fitGroup(inputOf([]), new Set(), null);
    expect(v.ownFill).toBeNull();
    expect([...v.kept]).toEqual(["w1"]);
    expect([...v.refused.keys()]).toEqual(["w2"]);
    expect(v.refused.get("w2")?.code).toBe("LIST_FULL");
    expect(urls(v.decisions)).toEqual(["https://own", "https://w1"]);
  });

  it("a waiter named gone is not fitted: the next one takes the room", () => {
    const v = fitGroup(inputOf([]), new Set(["w1"]), null);
    expect([...v.kept]).toEqual(["w2"]);
    expect(v.refused.size).toBe(0);
    expect(urls(v.decisions)).toEqual(["https://own", "https://w2"]);
  });

  it("the run's own changes past the cap refuse the group: nothing decided, no waiter judged", () => {
    const v = fitGroup(inputOf(["https://a", "https://b"]), new Set(), null);
    expect(v.ownFill).toMatchObject({ object: "fake:object", op: "fake.list", cap: 2, entries: 2, after: 3 });
    expect(v.decisions).toEqual([]);
    expect(v.kept.size + v.refused.size).toBe(0);
  });

  it("uncapped and without shares: every waiter is kept (control)", () => {
    const v = fitGroup(inputOf(["https://a", "https://b"], false), new Set(), null);
    expect(v.ownFill).toBeNull();
    expect(urls(v.decisions)).toEqual(["https://own", "https://w1", "https://w2"]);
  });
});
